"""``GitPort`` over dulwich: no ``git`` binary involved."""

from __future__ import annotations

import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Final

from dulwich.diff_tree import (
    CHANGE_ADD,
    CHANGE_COPY,
    CHANGE_DELETE,
    CHANGE_RENAME,
    RenameDetector,
    TreeChange,
    tree_changes,
)
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.objects import TreeEntry as GitTreeEntry
from dulwich.repo import Repo

from memhtml.adapters.git.failures import git_operation
from memhtml.adapters.git.held_repository import HeldRepository
from memhtml.adapters.git.line_walk import changed_files
from memhtml.adapters.git.repository import (
    commit_tree,
    commit_tree_or_empty,
    decode_path,
    head_commit,
    is_file_mode,
    open_repository,
    require_worktree,
    tree_path_lookup,
    working_path,
)
from memhtml.adapters.git.status import working_tree_status
from memhtml.adapters.git.status_cache import StatusCache
from memhtml.adapters.git.tree_diff import LeafChange, leaf_changes
from memhtml.adapters.git.watched_status import WatchedStatus
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import (
    CommitNote,
    DiffEntry,
    LineStep,
    StatusEntry,
    TreeEntry,
    blob_sha,
    check_repo_path,
)
from memhtml.ports.tree_watch import TreeWatch

HEAD_OPERATION: Final = "head"
LIST_TREE_OPERATION: Final = "list_tree"
READ_BLOBS_OPERATION: Final = "read_blobs"
COMMIT_AT_OPERATION: Final = "commit_at"
FIRST_PARENTS_OPERATION: Final = "first_parent_changes"
RECENT_COMMITS_OPERATION: Final = "recent_commits"
DIFF_OPERATION: Final = "diff"
STATUS_OPERATION: Final = "status"
HASH_WORKING_FILE_OPERATION: Final = "hash_working_file"
READ_WORKING_FILE_OPERATION: Final = "read_working_file"


class DulwichGit:
    """The indexer's git port over the repository at ``root``.

    The repository is opened per call, so every answer reflects refs and files as they are
    now, including commits another process just landed.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        status_cache: Path | None = None,
        watch: TreeWatch | None = None,
        arm_watch_at: int = 2,
    ) -> None:
        """Bind the port to a repository root (a working tree, or a bare repository).

        ``status_cache`` names a file where status keeps what later calls, in this process or
        another, can reuse (``status_cache``); without it status still reuses what this
        process computed for the same index and HEAD, but lists every directory. ``watch``
        lets status re-check only what changed (``watched_status``), from the
        ``arm_watch_at``-th status on; without it every status walks.
        """
        self._root = str(root)
        self._status_cache = StatusCache(status_cache)
        self._watched = None if watch is None else WatchedStatus(watch, arm_at_call=arm_watch_at)
        # A warm process (it holds a watcher) keeps the repository open between reads.
        self._held = None if watch is None else HeldRepository(self._root)

    def _open(self, operation: str) -> AbstractContextManager[Repo]:
        if self._held is not None:
            return self._held.use(operation)
        return open_repository(self._root, operation)

    def head(self) -> str | None:
        """See ``GitPort.head``."""
        with git_operation(HEAD_OPERATION), self._open(HEAD_OPERATION) as repo:
            sha = head_commit(repo)
        return None if sha is None else sha.decode("ascii")

    def list_tree(self, ref: str, prefixes: Sequence[str] = ()) -> tuple[TreeEntry, ...]:
        """See ``GitPort.list_tree``."""
        with (
            git_operation(LIST_TREE_OPERATION),
            self._open(LIST_TREE_OPERATION) as repo,
        ):
            tree_id = commit_tree(repo, ref)
            found: dict[str, str] = {}
            for raw_path, sha in _blobs_under(repo, tree_id, prefixes):
                path = decode_path(raw_path)
                if path is not None:
                    found[path] = sha.decode("ascii")
        return tuple(TreeEntry(path=path, blob_sha=found[path]) for path in sorted(found))

    def commit_at(self, epoch_seconds: int) -> str | None:
        """See ``GitPort.commit_at``."""
        with (
            git_operation(COMMIT_AT_OPERATION),
            self._open(COMMIT_AT_OPERATION) as repo,
        ):
            sha = head_commit(repo)
            while sha is not None:
                commit = repo[sha]
                if not isinstance(commit, Commit):
                    raise GitFailure(COMMIT_AT_OPERATION)
                if commit.commit_time <= epoch_seconds:
                    return sha.decode("ascii")
                sha = commit.parents[0] if commit.parents else None
        return None

    def recent_commits(self, limit: int) -> tuple[CommitNote, ...]:
        """See ``GitPort.recent_commits``."""
        op = RECENT_COMMITS_OPERATION
        notes: list[CommitNote] = []
        with git_operation(op), self._open(op) as repo:
            sha = head_commit(repo)
            while sha is not None and len(notes) < limit:
                commit = repo[sha]
                if not isinstance(commit, Commit):
                    raise GitFailure(op)
                parent = commit.parents[0] if commit.parents else None
                notes.append(
                    CommitNote(
                        sha=sha.decode("ascii"),
                        parent=None if parent is None else parent.decode("ascii"),
                        message=commit.message.decode("utf-8", errors="replace"),
                    )
                )
                sha = parent
        return tuple(notes)

    def first_parent_changes(self, stop: str | None) -> tuple[LineStep, ...] | None:
        """See ``GitPort.first_parent_changes``."""
        op = FIRST_PARENTS_OPERATION
        with git_operation(op), self._open(op) as repo:
            line: list[Commit] = []
            sha = head_commit(repo)
            while sha is not None and sha.decode("ascii") != stop:
                commit = repo[sha]
                if not isinstance(commit, Commit):
                    raise GitFailure(op)
                line.append(commit)
                sha = commit.parents[0] if commit.parents else None
            if stop is not None and sha is None:
                return None
            line.reverse()
            parent_tree: bytes | None = commit_tree_or_empty(repo, stop)
            steps: list[LineStep] = []
            for commit in line:
                changes = changed_files(repo.object_store, parent_tree, commit.tree)
                steps.append(
                    LineStep(sha=commit.id.decode("ascii"), at=commit.commit_time, changes=changes)
                )
                parent_tree = commit.tree
        return tuple(steps)

    def read_blobs(self, shas: Sequence[str]) -> Mapping[str, bytes]:
        """See ``GitPort.read_blobs``."""
        found: dict[str, bytes] = {}
        with (
            git_operation(READ_BLOBS_OPERATION),
            self._open(READ_BLOBS_OPERATION) as repo,
        ):
            for sha in shas:
                if sha in found:
                    continue
                blob = repo.object_store[ObjectID(sha.encode("ascii"))]
                if not isinstance(blob, Blob):
                    raise GitFailure(READ_BLOBS_OPERATION)
                found[sha] = blob.as_raw_string()
        return found

    def diff(self, from_sha: str | None, to_sha: str | None) -> tuple[DiffEntry, ...]:
        """See ``GitPort.diff``."""
        with git_operation(DIFF_OPERATION), self._open(DIFF_OPERATION) as repo:
            old_tree = commit_tree_or_empty(repo, from_sha)
            new_tree = commit_tree_or_empty(repo, to_sha)
            leaves = list(leaf_changes(repo.object_store, old_tree, new_tree))
            if _renames_possible(leaves) and old_tree is not None and new_tree is not None:
                detector = RenameDetector(repo.object_store)
                changes = list(
                    tree_changes(repo.object_store, old_tree, new_tree, rename_detector=detector)
                )
                return _name_status(changes)
        return _leaf_name_status(leaves)

    def status(self) -> tuple[StatusEntry, ...]:
        """See ``GitPort.status``."""
        with git_operation(STATUS_OPERATION), self._open(STATUS_OPERATION) as repo:
            require_worktree(repo, STATUS_OPERATION)
            if self._watched is not None:
                return self._watched.status(repo, self._status_cache)
            return working_tree_status(repo, self._status_cache)

    @property
    def status_walks(self) -> int | None:
        """Whole status walks so far when a watcher is wired (``None`` without one)."""
        return None if self._watched is None else self._watched.walks

    def close(self) -> None:
        """Release the watcher, if any (status walks afterwards); reads keep working."""
        if self._watched is not None:
            self._watched.close()
        if self._held is not None:
            self._held.close()

    def hash_working_file(self, path: str) -> str:
        """See ``GitPort.hash_working_file``."""
        return blob_sha(self._read(path, HASH_WORKING_FILE_OPERATION))

    def read_working_file(self, path: str) -> bytes:
        """See ``GitPort.read_working_file``."""
        return self._read(path, READ_WORKING_FILE_OPERATION)

    def _read(self, path: str, operation: str) -> bytes:
        check_repo_path(path, operation)
        with git_operation(operation), self._open(operation) as repo:
            require_worktree(repo, operation)
            return working_path(Path(repo.path), path, operation, follow_final=True).read_bytes()


def _blobs_under(
    repo: Repo, tree_id: ObjectID, prefixes: Sequence[str]
) -> Iterator[tuple[bytes, ObjectID]]:
    """(path, sha) of every file-mode entry below the prefixes; gitlinks are not blobs."""
    roots: list[tuple[bytes, int, ObjectID]] = []
    if not prefixes:
        roots.append((b"", stat.S_IFDIR, tree_id))
    # One lookup for every prefix: an update after a 500-file batch asks for each new file.
    lookup = tree_path_lookup(repo, tree_id)
    for prefix in prefixes:
        clean = check_repo_path(prefix.rstrip("/"), LIST_TREE_OPERATION)
        found = lookup(clean)
        if found is not None:
            roots.append((clean.encode("utf-8"), *found))
    for base, mode, sha in roots:
        if not stat.S_ISDIR(mode):
            if is_file_mode(mode):
                yield base, sha
            continue
        under = base + b"/" if base else b""
        for path, _, entry in leaf_changes(repo.object_store, None, sha, under):
            if entry is not None and is_file_mode(entry[0]):
                yield path, ObjectID(entry[1])


def _file_path(entry: GitTreeEntry | None) -> str | None:
    """The text path of one side of a change, ``None`` when absent, a gitlink or not UTF-8."""
    if entry is None or entry.mode is None or entry.path is None or not is_file_mode(entry.mode):
        return None
    return decode_path(entry.path)


def _name_status(changes: list[TreeChange]) -> tuple[DiffEntry, ...]:
    """Name-status rows: copies become adds, a delete plus an add of one path a modify."""
    added: set[str] = set()
    deleted: set[str] = set()
    rows: list[DiffEntry] = []
    for change in changes:
        old, new = _file_path(change.old), _file_path(change.new)
        if change.type == CHANGE_RENAME and old is not None and new is not None:
            rows.append(DiffEntry(status="R", path=new, from_path=old))
        elif change.type == CHANGE_COPY or change.type == CHANGE_ADD:
            if new is not None:
                added.add(new)
        elif change.type == CHANGE_DELETE:
            if old is not None:
                deleted.add(old)
        elif old is not None and new is not None:
            rows.append(DiffEntry(status="M", path=new))
        elif new is not None:
            added.add(new)
        elif old is not None:
            deleted.add(old)
    # A type change (file to symlink) walks as a delete plus an add of the same path.
    rows.extend(DiffEntry(status="M", path=path) for path in added & deleted)
    rows.extend(DiffEntry(status="A", path=path) for path in added - deleted)
    rows.extend(DiffEntry(status="D", path=path) for path in deleted - added)
    return tuple(sorted(rows, key=lambda row: (row.path, row.status)))


def _renames_possible(leaves: list[LeafChange]) -> bool:
    """Whether rename detection could pair anything: it needs a leaf added and one deleted.

    A leaf whose file type changed (a file turned symlink) counts as both, as dulwich's diff
    splits it: its old content may be what a new path holds.
    """
    added = deleted = False
    for _, old, new in leaves:
        retyped = old is not None and new is not None and stat.S_IFMT(old[0]) != stat.S_IFMT(new[0])
        added |= old is None or retyped
        deleted |= new is None or retyped
        if added and deleted:
            return True
    return False


def _leaf_name_status(leaves: list[LeafChange]) -> tuple[DiffEntry, ...]:
    """Name-status rows of a diff that has no rename to find: what ``_name_status`` gives for
    the same trees (a file-type change is one modification there too)."""
    rows: list[DiffEntry] = []
    for raw_path, old, new in leaves:
        path = decode_path(raw_path)
        if path is None:
            continue
        was = old is not None and is_file_mode(old[0])
        now = new is not None and is_file_mode(new[0])
        if was or now:
            rows.append(DiffEntry(status="M" if was and now else "A" if now else "D", path=path))
    return tuple(sorted(rows, key=lambda row: (row.path, row.status)))
