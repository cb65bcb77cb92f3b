"""The steps of ``DulwichGitWriter.commit`` that need no state of the writer: checking the
working paths, reading the parent tree, moving the branch, taking the index lock."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Final

from dulwich.file import FileLocked, GitFile, _GitFile
from dulwich.objects import Commit, ObjectID
from dulwich.refs import HEADREF
from dulwich.repo import Repo

from memhtml.adapters.git import journal as journals
from memhtml.adapters.git.commit_finish import IndexEdit
from memhtml.adapters.git.leftovers import LOCK_SUFFIX
from memhtml.adapters.git.locks import judge_unclaimed_lock
from memhtml.adapters.git.repository import head_commit, is_file_mode, working_path
from memhtml.ports.git import PathRefused
from memhtml.ports.git_writer import (
    COMMIT_OPERATION,
    REFUSED_OCCUPIED,
    BaseNode,
    ChangeSet,
    GitLocked,
    HeadMoved,
    TreeEdit,
)

_REFLOG_PREFIX: Final = b"commit: "


def check_working_paths(root: Path, changes: ChangeSet) -> None:
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


def base_node(lookup: Callable[[str], tuple[int, ObjectID] | None], path: str) -> BaseNode | None:
    found = lookup(path)
    if found is None:
        return None
    mode, sha = found
    if stat.S_ISDIR(mode):
        return BaseNode(kind="tree")
    if is_file_mode(mode):
        return BaseNode(kind="file", blob_sha=sha.decode("ascii"), mode=mode)
    return BaseNode(kind="other")


def missing_move_sources(
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


def swap_head(
    repo: Repo,
    expected_head: str | None,
    actual: ObjectID | None,
    commit: Commit,
    *,
    reflog: bytes = _REFLOG_PREFIX,
) -> None:
    """Move HEAD's branch (or a detached HEAD) to ``commit`` only if it is still ``actual``.

    ``reflog`` starts the reflog line, before the commit's subject (``commit: `` as git's).
    """
    subject = commit.message.split(b"\n", 1)[0]
    try:
        if actual is None:
            moved = repo.refs.add_if_new(
                HEADREF, commit.id, committer=commit.committer, message=reflog + subject
            )
        else:
            moved = repo.refs.set_if_equals(
                HEADREF,
                actual,
                commit.id,
                committer=commit.committer,
                timestamp=commit.commit_time,
                timezone=0,
                message=reflog + subject,
            )
    except FileLocked as error:
        raise HeadMoved(expected_head, None) from error
    if not moved:
        now = head_commit(repo)
        raise HeadMoved(expected_head, None if now is None else now.decode("ascii"))


def index_edits(edits: tuple[TreeEdit, ...]) -> list[IndexEdit]:
    return [
        IndexEdit(path=e.path, blob=None if e.blob_sha is None else (e.blob_sha, e.mode))
        for e in edits
    ]


def take_index_lock(repo: Repo) -> _GitFile:
    """``.git/index.lock``, or the reason it cannot be had.

    A memhtml writer inside its commit (its journal claims the lock) is an ordinary race:
    ``HeadMoved``. Anything else holds a lock the recovery before this judged not stale.

    Raises:
        HeadMoved: Another memhtml writer holds it.
        GitLocked: Anything else holds it.
    """
    try:
        return GitFile(repo.index_path(), "wb")
    except FileLocked as error:
        lock = Path(repo.index_path() + LOCK_SUFFIX)
        index = Path(repo.index_path())
        mine = journals.current_owner()
        for entry in journals.read_all(Path(repo.controldir())):
            if (
                isinstance(entry, journals.Journal)
                and entry.owner != mine
                and journals.claims_lock(entry, lock, index)
            ):
                raise HeadMoved(None, None, why="another writer holds the index lock") from error
        raise GitLocked(str(lock), judge_unclaimed_lock(lock, Path(repo.path)).reason) from error
