"""``GitLanding`` over dulwich: a merge commit's objects, and the journaled branch move.

``advance`` is a commit without new objects: it runs the writer's own steps in the writer's
order (journal, index lock, HEAD check, journal names the target, compare-and-swap of the
branch, working files, index, journal removed), so the recovery that finishes or undoes a
killed commit (``recovery``) finishes or undoes a killed sync the same way. The working files
follow as recovery brings them (``commit_finish.finish_working_tree``): a file is written only
where it still holds the old commit's content or is missing, so a local edit is never lost.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import attrs
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import HEADREF

from memhtml.adapters.git import journal as journals
from memhtml.adapters.git.commit_finish import (
    IndexEdit,
    commit_changes,
    finish_working_tree,
    index_mtime_ns,
    updated_index,
)
from memhtml.adapters.git.commit_steps import swap_head, take_index_lock
from memhtml.adapters.git.failures import git_operation
from memhtml.adapters.git.identity import FALLBACK_IDENTITY, Identity, sign_commit
from memhtml.adapters.git.index_file import read_index
from memhtml.adapters.git.leftovers import LOCK_SUFFIX
from memhtml.adapters.git.locks import inode_of
from memhtml.adapters.git.recovery import quick_look, run_recovery
from memhtml.adapters.git.repository import (
    head_commit,
    open_repository,
    require_worktree,
    write_loose_as_git,
)
from memhtml.adapters.git.tree_edit import edit_tree
from memhtml.adapters.git.write_lock import RepositoryWriteLock
from memhtml.faults import fault_point
from memhtml.ports.clock import Clock
from memhtml.ports.git import PathRefused, blob_sha, check_repo_path
from memhtml.ports.git_writer import FILE_MODE, FileWrite, HeadMoved, TreeEdit

MERGE_OPERATION: Final = "merge commit"
ADVANCE_OPERATION: Final = "advance"
REFUSED_TWICE: Final = "conflicting-roles"
_REFLOG: Final = b"sync: "


class DulwichLanding:
    """Merge commits and branch moves in the repository at ``root``.

    Args:
        root: The working tree's root.
        clock: Commit timestamps; the system clock in UTC by default.
        env: Where ``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` are read (``os.environ`` by default).
        fallback: The identity when git's own resolution finds none.
        write_lock: The store's writers' lock, held by ``advance`` (nesting in a caller's).
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
        self._root = str(root)
        self._clock = clock
        self._env = env
        self._fallback = fallback
        self._write_lock = write_lock

    def merge_commit(
        self,
        *,
        parents: tuple[str, ...],
        edits: tuple[TreeEdit, ...],
        writes: tuple[FileWrite, ...],
        message: str,
    ) -> str:
        """See ``GitLanding.merge_commit``."""
        seen: set[str] = set()
        for path in [*(e.path for e in edits), *(w.path for w in writes)]:
            check_repo_path(path, MERGE_OPERATION)
            if path in seen:
                raise PathRefused(MERGE_OPERATION, path, REFUSED_TWICE)
            seen.add(path)
        with (
            git_operation(MERGE_OPERATION),
            open_repository(self._root, MERGE_OPERATION) as repo,
        ):
            write_loose_as_git(repo)
            store = repo.object_store
            first = repo[ObjectID(parents[0].encode("ascii"))]
            if not isinstance(first, Commit):
                raise TypeError("not a commit")
            for write in writes:
                store.add_object(Blob.from_string(write.data))
            changes = [
                (
                    edit.path.encode("utf-8"),
                    None if edit.blob_sha is None else edit.mode,
                    None if edit.blob_sha is None else ObjectID(edit.blob_sha.encode("ascii")),
                )
                for edit in edits
            ]
            changes += [
                (w.path.encode("utf-8"), FILE_MODE, ObjectID(blob_sha(w.data).encode("ascii")))
                for w in writes
            ]
            commit = Commit()
            commit.tree = edit_tree(store, ObjectID(first.tree), changes)
            commit.parents = [ObjectID(p.encode("ascii")) for p in parents]
            sign_commit(
                commit,
                config=repo.get_config_stack(),
                env=os.environ if self._env is None else self._env,
                fallback=self._fallback,
                when=int(self._now().timestamp()),
                message=message,
            )
            store.add_object(commit)
            return commit.id.decode("ascii")

    def advance(self, *, expected_head: str | None, target: str) -> None:
        """See ``GitLanding.advance`` (and the module docstring for the order of the steps)."""
        with (
            git_operation(ADVANCE_OPERATION),
            self._serialized(),
            open_repository(self._root, ADVANCE_OPERATION) as repo,
        ):
            require_worktree(repo, ADVANCE_OPERATION)
            root, git_dir = Path(repo.path), Path(repo.controldir())
            if quick_look(git_dir):
                run_recovery(repo, repair=True, sweep=False)
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
                    racy_after = index_mtime_ns(repo.index_path())
                    records = read_index(repo.index_path())
                    actual = head_commit(repo)
                    found = None if actual is None else actual.decode("ascii")
                    if found != expected_head:
                        raise HeadMoved(expected_head, found)
                    commit = repo[ObjectID(target.encode("ascii"))]
                    if not isinstance(commit, Commit):
                        raise TypeError("not a commit")
                    journal = attrs.evolve(
                        journal,
                        new=target,
                        lock_inode=inode_of(Path(repo.index_path() + LOCK_SUFFIX)),
                    )
                    journals.write(journal, durable=True)
                    fault_point("advance.prepared")
                    swap_head(repo, expected_head, actual, commit, reflog=_REFLOG)
                except BaseException:
                    journals.remove(journal)
                    raise
                fault_point("advance.ref")
                changes = commit_changes(repo, expected_head, target)
                edits = [
                    IndexEdit(
                        path=path,
                        blob=None if e is None else (_hex(e.sha), e.mode or FILE_MODE),
                    )
                    for path, e in changes
                ]
                verified: set[str] = set()
                try:
                    tree = finish_working_tree(repo, root, expected_head, target, changes)
                    verified = set(tree.verified)
                finally:
                    # The branch moved: the index must describe it even when a file failed,
                    # or status would show the sync's own changes as staged reversals. The
                    # journal then stays, and the next recovery writes what is missing.
                    lock.write(updated_index(records, root, edits, verified, racy_after=racy_after))
                    lock.close()
            fault_point("advance.index")
            journals.remove(journal)

    def _now(self) -> dt.datetime:
        return self._clock.now() if self._clock is not None else dt.datetime.now(dt.UTC)

    @contextmanager
    def _serialized(self) -> Iterator[None]:
        if self._write_lock is None:
            yield
            return
        with self._write_lock.held():
            yield


def _hex(sha: bytes | None) -> str:
    assert sha is not None
    return sha.decode("ascii")
