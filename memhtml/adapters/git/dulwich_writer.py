"""``GitWriter`` over dulwich: one change set, one commit, HEAD moved compare-and-swap."""

from __future__ import annotations

import datetime as dt
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Final

from dulwich.errors import NotGitRepository
from dulwich.file import FileLocked, GitFile
from dulwich.object_store import commit_tree_changes
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import HEADREF
from dulwich.repo import Repo

from memhtml.adapters.git.failures import git_operation
from memhtml.adapters.git.identity import FALLBACK_IDENTITY, Identity, resolve_identity
from memhtml.adapters.git.index_file import (
    UNSTAMPED,
    IndexRecord,
    StatStamp,
    encode_entry,
    index_bytes,
    read_index,
    stamp_of,
)
from memhtml.adapters.git.repository import (
    commit_tree_or_empty,
    head_commit,
    is_file_mode,
    open_repository,
    require_worktree,
    tree_path_lookup,
    working_path,
)
from memhtml.adapters.git.working_tree import apply_change_set
from memhtml.ports.clock import Clock
from memhtml.ports.git import PathRefused
from memhtml.ports.git_writer import (
    COMMIT_OPERATION,
    REFUSED_OCCUPIED,
    BaseNode,
    ChangeSet,
    HeadMoved,
    TreeEdit,
    plan_tree_edits,
)

INIT_OPERATION: Final = "init"
INITIAL_BRANCH: Final = b"main"
_REFLOG_PREFIX: Final = b"commit: "
# From this many new blobs a commit writes one pack instead of loose objects: a loose object
# costs a file and a directory entry each (10,000 of them took 6 s, a pack 1.7 s) and reads
# back slower. Below it a pack per small commit would pile up packs every lookup must scan.
PACK_THRESHOLD: Final = 64


class _UtcClock:
    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


class DulwichGitWriter:
    """The store's git writer over the repository at ``root``.

    Concurrency: a commit holds the index lock (``.git/index.lock``, as git itself does) from
    the HEAD check until the new index is in place, and moves the ref compare-and-swap, so two
    writers never both land on one parent; the loser gets ``HeadMoved`` and retries. A stale
    lock left by a crashed process also reads as ``HeadMoved``, so callers cap their retries.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        clock: Clock | None = None,
        env: Mapping[str, str] | None = None,
        fallback: Identity = FALLBACK_IDENTITY,
    ) -> None:
        """Bind the writer to a repository root.

        Args:
            root: The working tree's root directory.
            clock: Commit timestamps; the system clock in UTC by default.
            env: Where ``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` are read; ``os.environ`` (at
                commit time) by default.
            fallback: The identity used when git's own resolution finds none
                (``MEMHTML_GIT_NAME``/``MEMHTML_GIT_EMAIL`` are the app's to read).
        """
        self._root = Path(root)
        self._clock: Clock = clock if clock is not None else _UtcClock()
        self._env = env
        self._fallback = fallback

    def init(self) -> bool:
        """See ``GitWriter.init``."""
        with git_operation(INIT_OPERATION):
            if _is_repository(self._root):
                return False
            self._root.mkdir(parents=True, exist_ok=True)
            try:
                Repo.init(str(self._root), default_branch=INITIAL_BRANCH).close()
            except FileExistsError:
                # Another process created it between the check and the mkdir of `.git`.
                if _is_repository(self._root):
                    return False
                raise
            return True

    def commit(self, changes: ChangeSet, message: str, *, expected_head: str | None) -> str:
        """See ``GitWriter.commit``."""
        with (
            git_operation(COMMIT_OPERATION),
            open_repository(str(self._root), COMMIT_OPERATION) as repo,
        ):
            require_worktree(repo, COMMIT_OPERATION)
            root = Path(repo.path)
            _check_working_paths(root, changes)
            try:
                lock = GitFile(repo.index_path(), "wb")
            except FileLocked as error:
                raise HeadMoved(expected_head, None) from error
            with lock:
                records = read_index(repo.index_path())
                actual = head_commit(repo)
                found = None if actual is None else actual.decode("ascii")
                if found != expected_head:
                    raise HeadMoved(expected_head, found)
                base_tree = commit_tree_or_empty(repo, expected_head)
                in_base = tree_path_lookup(repo, base_tree)
                edits = plan_tree_edits(changes, lambda path: _base_node(in_base, path))
                missing = _missing_move_sources(repo, root, changes, edits)
                commit = self._make_commit(repo, base_tree, actual, changes, edits, message)
                _swap_head(repo, expected_head, actual, commit)
                try:
                    apply_change_set(root, changes, missing)
                finally:
                    # The commit has landed: the index must describe it even when a file
                    # could not be written, or every later status would report the commit's
                    # own changes as staged reversals.
                    lock.write(_updated_index(records, root, changes, edits))
                    lock.close()
            return commit.id.decode("ascii")

    def _make_commit(
        self,
        repo: Repo,
        base_tree: ObjectID | None,
        parent: ObjectID | None,
        changes: ChangeSet,
        edits: tuple[TreeEdit, ...],
        message: str,
    ) -> Commit:
        store = repo.object_store
        blobs = {blob.id: blob for blob in (Blob.from_string(w.data) for w in changes.writes)}
        if len(blobs) >= PACK_THRESHOLD:
            store.add_objects([(blob, None) for blob in blobs.values()])
        else:
            for blob in blobs.values():
                store.add_object(blob)
        tree_id = commit_tree_changes(
            store,
            base_tree if base_tree is not None else Tree(),
            [
                (
                    edit.path.encode("utf-8"),
                    None if edit.blob_sha is None else edit.mode,
                    None if edit.blob_sha is None else ObjectID(edit.blob_sha.encode("ascii")),
                )
                for edit in edits
            ],
        )
        env = os.environ if self._env is None else self._env
        config = repo.get_config_stack()
        when = int(self._clock.now().timestamp())
        commit = Commit()
        commit.tree = tree_id
        commit.parents = [] if parent is None else [parent]
        commit.author = resolve_identity("AUTHOR", config, env, self._fallback).as_header()
        commit.committer = resolve_identity("COMMITTER", config, env, self._fallback).as_header()
        commit.author_time = commit.commit_time = when
        commit.author_timezone = commit.commit_timezone = 0
        commit.encoding = b"UTF-8"
        commit.message = (message.rstrip("\n") + "\n").encode("utf-8")
        store.add_object(commit)
        return commit


def _is_repository(root: Path) -> bool:
    try:
        Repo(str(root)).close()
    except NotGitRepository:
        return False
    return True


def _check_working_paths(root: Path, changes: ChangeSet) -> None:
    """Refuse, before any lock or object, a path that leaves the tree or a change that clobbers.

    A move onto a file already on disk (untracked, say) would overwrite it, which ``git mv``
    refuses too; nothing here may lose a file the commit does not name. A write onto a
    directory on disk could only fail after HEAD moved, so it is refused here instead.
    """
    plain: set[str] = set()
    for path in [
        *(write.path for write in changes.writes),
        *changes.deletes,
        *(path for move in changes.moves for path in (move.source, move.target)),
    ]:
        working_path(root, path, COMMIT_OPERATION, follow_final=False, plain_directories=plain)
    for move in changes.moves:
        if os.path.lexists(root / move.target):
            raise PathRefused(COMMIT_OPERATION, move.target, REFUSED_OCCUPIED)
    for write in changes.writes:
        target = root / write.path
        if target.is_dir() and not target.is_symlink():
            raise PathRefused(COMMIT_OPERATION, write.path, REFUSED_OCCUPIED)


def _base_node(lookup: Callable[[str], tuple[int, ObjectID] | None], path: str) -> BaseNode | None:
    found = lookup(path)
    if found is None:
        return None
    mode, sha = found
    if stat.S_ISDIR(mode):
        return BaseNode(kind="tree")
    if is_file_mode(mode):
        return BaseNode(kind="file", blob_sha=sha.decode("ascii"), mode=mode)
    return BaseNode(kind="other")


def _missing_move_sources(
    repo: Repo, root: Path, changes: ChangeSet, edits: tuple[TreeEdit, ...]
) -> dict[str, bytes]:
    """Committed bytes of move sources already gone from the disk, read before HEAD moves."""
    edit_by_path = {edit.path: edit for edit in edits}
    missing: dict[str, bytes] = {}
    for move in changes.moves:
        if os.path.lexists(root / move.source):
            continue
        sha = edit_by_path[move.target].blob_sha
        assert sha is not None  # a move target always gets a blob
        blob = repo.object_store[ObjectID(sha.encode("ascii"))]
        missing[move.source] = blob.as_raw_string()
    return missing


def _swap_head(
    repo: Repo, expected_head: str | None, actual: ObjectID | None, commit: Commit
) -> None:
    """Move HEAD's branch (or a detached HEAD) to ``commit`` only if it is still ``actual``."""
    subject = commit.message.split(b"\n", 1)[0]
    try:
        if actual is None:
            moved = repo.refs.add_if_new(
                HEADREF, commit.id, committer=commit.committer, message=_REFLOG_PREFIX + subject
            )
        else:
            moved = repo.refs.set_if_equals(
                HEADREF,
                actual,
                commit.id,
                committer=commit.committer,
                timestamp=commit.commit_time,
                timezone=0,
                message=_REFLOG_PREFIX + subject,
            )
    except FileLocked as error:
        raise HeadMoved(expected_head, None) from error
    if not moved:
        now = head_commit(repo)
        raise HeadMoved(expected_head, None if now is None else now.decode("ascii"))


def _stamp(path: Path) -> StatStamp:
    try:
        return stamp_of(os.lstat(path))
    except OSError:
        return UNSTAMPED


def _updated_index(
    records: list[IndexRecord], root: Path, changes: ChangeSet, edits: tuple[TreeEdit, ...]
) -> bytes:
    """The index with the committed paths' entries replaced; every other entry kept verbatim.

    A written file is stamped with its stat data, as ``git add`` would. A moved file is not:
    its working copy may carry unstaged edits, and stat data taken now would make status
    trust it as equal to the committed blob.
    """
    written = {write.path for write in changes.writes}
    changed = {edit.path.encode("utf-8") for edit in edits}
    kept = [record for record in records if record.path not in changed]
    for edit in edits:
        if edit.blob_sha is None:
            continue
        stamp = _stamp(root / edit.path) if edit.path in written else UNSTAMPED
        kept.append(
            encode_entry(edit.path.encode("utf-8"), edit.blob_sha.encode("ascii"), edit.mode, stamp)
        )
    return index_bytes(kept)
