"""``GitWriter`` over dulwich: one change set, one commit, HEAD moved compare-and-swap."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import attrs
from dulwich.errors import NotGitRepository
from dulwich.object_store import commit_tree_changes
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import HEADREF
from dulwich.repo import Repo

from memhtml.adapters.git import journal as journals
from memhtml.adapters.git.commit_finish import index_mtime_ns, updated_entries
from memhtml.adapters.git.commit_steps import (
    base_node,
    check_working_paths,
    index_edits,
    missing_move_sources,
    swap_head,
    take_index_lock,
)
from memhtml.adapters.git.failures import git_operation
from memhtml.adapters.git.identity import (
    FALLBACK_IDENTITY,
    Identity,
    sign_commit,
)
from memhtml.adapters.git.index_file import (
    IndexRecord,
    index_bytes,
    read_index_bytes,
    remember_written,
)
from memhtml.adapters.git.index_snapshot import index_key
from memhtml.adapters.git.leftovers import LOCK_SUFFIX
from memhtml.adapters.git.locks import inode_of
from memhtml.adapters.git.recovery import git_dir_of, quick_look, run_recovery
from memhtml.adapters.git.repository import (
    commit_tree_or_empty,
    head_commit,
    open_repository,
    require_worktree,
    tree_path_lookup,
    write_loose_as_git,
)
from memhtml.adapters.git.status_cache import NO_INDEX, remember_written_index
from memhtml.adapters.git.working_tree import apply_change_set
from memhtml.adapters.git.write_lock import RepositoryWriteLock
from memhtml.faults import fault_point
from memhtml.ports.clock import Clock
from memhtml.ports.git_writer import (
    COMMIT_OPERATION,
    ChangeSet,
    HeadMoved,
    RecoveryFinding,
    TreeEdit,
    plan_tree_edits,
)

INIT_OPERATION: Final = "init"
RECOVER_OPERATION: Final = "recover"
INITIAL_BRANCH: Final = b"main"
# From this many new blobs a commit writes one pack instead of loose objects: a loose object
# costs a file and a directory entry each (10,000 of them took 6 s, a pack 1.7 s) and reads
# back slower. Below it a pack per small commit would pile up packs every lookup must scan.
PACK_THRESHOLD: Final = 64


class _UtcClock:
    def now(self) -> dt.datetime:
        return dt.datetime.now(dt.UTC)


class DulwichGitWriter:
    """The store's git writer over the repository at ``root``.

    Concurrency: a commit holds the writers' lock (when given one) for the whole commit, and
    the index lock (``.git/index.lock``, as git itself does) from the HEAD check until the new
    index is in place, and moves the ref compare-and-swap, so two writers never both land on
    one parent; the loser gets ``HeadMoved`` and retries. A lock held by a git command reads
    as ``GitLocked`` (a ``HeadMoved``), so callers cap their retries.

    Crash safety, in the order a commit runs: take the index lock; write the journal
    (``journal``); write the objects; record the new commit in the journal; move the branch
    (the commit point); write the working files; put the new index in place; delete the
    journal. A writer killed anywhere in between leaves a journal, and the next commit (or
    ``recover``) undoes it when the branch had not moved and finishes it when it had.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        clock: Clock | None = None,
        env: Mapping[str, str] | None = None,
        fallback: Identity = FALLBACK_IDENTITY,
        write_lock: RepositoryWriteLock | None = None,
    ) -> None:
        """Bind the writer to a repository root.

        Args:
            root: The working tree's root directory.
            clock: Commit timestamps; the system clock in UTC by default.
            env: Where ``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` are read; ``os.environ`` (at
                commit time) by default.
            fallback: The identity used when git's own resolution finds none
                (``MEMHTML_GIT_NAME``/``MEMHTML_GIT_EMAIL`` are the app's to read).
            write_lock: The store's writers' lock, held by every commit and repair (it nests
                inside a hold the caller already has); without it the caller serializes.
        """
        self._root = Path(root)
        self._clock: Clock = clock if clock is not None else _UtcClock()
        self._env = env
        self._fallback = fallback
        self._write_lock = write_lock

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
        """See ``GitWriter.commit`` (and the class docstring for the order of the steps)."""
        with (
            git_operation(COMMIT_OPERATION),
            self._serialized(),
            open_repository(str(self._root), COMMIT_OPERATION) as repo,
        ):
            require_worktree(repo, COMMIT_OPERATION)
            write_loose_as_git(repo)
            root = Path(repo.path)
            git_dir = Path(repo.controldir())
            if quick_look(git_dir):
                run_recovery(repo, repair=True, sweep=False)
            check_working_paths(root, changes)
            names, _ = repo.refs.follow(HEADREF)
            ref = names[-1].decode("utf-8") if names else "HEAD"
            journal = journals.begin(git_dir, ref=ref, old=expected_head)
            try:
                lock = take_index_lock(repo)
            except BaseException:
                journals.remove(journal)
                raise
            with lock:
                try:
                    fault_point("commit.locked")
                    racy_after = index_mtime_ns(repo.index_path())
                    before, records = _index_now(repo.index_path())
                    actual = head_commit(repo)
                    found = None if actual is None else actual.decode("ascii")
                    if found != expected_head:
                        raise HeadMoved(expected_head, found)
                    base_tree = commit_tree_or_empty(repo, expected_head)
                    in_base = tree_path_lookup(repo, base_tree)
                    edits = plan_tree_edits(changes, lambda path: base_node(in_base, path))
                    missing = missing_move_sources(repo, root, changes, edits)
                    commit = self._make_commit(repo, base_tree, actual, changes, edits, message)
                    fault_point("commit.objects")
                    journal = attrs.evolve(
                        journal,
                        new=commit.id.decode("ascii"),
                        lock_inode=inode_of(Path(repo.index_path() + LOCK_SUFFIX)),
                    )
                    journals.write(journal, durable=True)
                    fault_point("commit.prepared")
                    swap_head(repo, expected_head, actual, commit)
                except BaseException:
                    # The branch did not move: nothing is left to finish.
                    journals.remove(journal)
                    raise
                fault_point("commit.ref")
                try:
                    apply_change_set(root, changes, missing)
                finally:
                    # The commit has landed: the index must describe it even when a file
                    # could not be written, or every later status would report the commit's
                    # own changes as staged reversals. The journal then stays, so the next
                    # recovery writes the files that are missing.
                    written = {write.path for write in changes.writes}
                    kept, added, edited = updated_entries(
                        records, root, index_edits(edits), written, racy_after=racy_after
                    )
                    after = index_bytes([*kept, *added])
                    lock.write(after)
                    lock.close()
                    remember_written(after, [*kept, *added])
                    remember_written_index(
                        repo.index_path(), before, after, (edited, added), (base_tree, commit.tree)
                    )
            fault_point("commit.index")
            journals.remove(journal)
            return commit.id.decode("ascii")

    def needs_recovery(self) -> bool:
        """See ``GitWriter.needs_recovery``."""
        return quick_look(git_dir_of(self._root))

    def inspect(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.inspect``."""
        with (
            git_operation(RECOVER_OPERATION),
            open_repository(str(self._root), RECOVER_OPERATION) as repo,
        ):
            return run_recovery(repo, repair=False, sweep=sweep)

    def recover(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """See ``GitWriter.recover``."""
        with (
            git_operation(RECOVER_OPERATION),
            self._serialized(),
            open_repository(str(self._root), RECOVER_OPERATION) as repo,
        ):
            require_worktree(repo, RECOVER_OPERATION)
            return run_recovery(repo, repair=True, sweep=sweep)

    @contextmanager
    def _serialized(self) -> Iterator[None]:
        if self._write_lock is None:
            yield
            return
        with self._write_lock.held():
            yield

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
        commit = Commit()
        commit.tree = tree_id
        commit.parents = [] if parent is None else [parent]
        sign_commit(
            commit,
            config=repo.get_config_stack(),
            env=os.environ if self._env is None else self._env,
            fallback=self._fallback,
            when=int(self._clock.now().timestamp()),
            message=message,
        )
        store.add_object(commit)
        return commit


def _index_now(index_path: str) -> tuple[bytes, list[IndexRecord]]:
    """The index's content key and its records (none, keyed ``NO_INDEX``, when it is missing)."""
    try:
        with open(index_path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return NO_INDEX, []
    return index_key(data), read_index_bytes(data)


def _is_repository(root: Path) -> bool:
    try:
        Repo(str(root)).close()
    except NotGitRepository:
        return False
    return True
