"""The store's write side of git: create the repository, and land a change set as one commit.

The meaning of a change set (which combinations are refused, which tree edits it makes) is
decided here, in pure code, so every implementation refuses the same things.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final, Literal, Protocol

import attrs

from memhtml.ports.errors import GitFailure
from memhtml.ports.git import PathRefused, blob_sha, check_repo_path

COMMIT_OPERATION: Final = "commit"
# A plain, non-executable file: the only mode a write produces.
FILE_MODE: Final = 0o100644

# Why a change set is refused, beyond an unsafe path (see ``memhtml.ports.git``).
REFUSED_CONFLICTING_ROLES: Final = "conflicting-roles"
REFUSED_NOT_A_FILE: Final = "not-a-file"
REFUSED_OCCUPIED: Final = "occupied"
REFUSED_UNDER_A_FILE: Final = "under-a-file"

NodeKind = Literal["file", "tree", "other"]


@attrs.frozen(kw_only=True)
class FileWrite:
    """Put ``data`` at ``path``, creating or overwriting a plain file."""

    path: str
    data: bytes


@attrs.frozen(kw_only=True)
class FileMove:
    """Move the file at ``source`` to ``target`` keeping its blob and mode (``git mv``).

    A write to ``target`` in the same change set replaces the moved content, which is how an
    archive move stamps the file it moves and still diffs as a rename.
    """

    source: str
    target: str


@attrs.frozen(kw_only=True)
class ChangeSet:
    """Everything one commit changes. Each path plays one role, except that a move's target
    may also be written.
    """

    writes: tuple[FileWrite, ...] = ()
    deletes: tuple[str, ...] = ()
    moves: tuple[FileMove, ...] = ()


@attrs.frozen(kw_only=True)
class BaseNode:
    """What the commit's parent tree holds at a path: a file (with its blob and mode), a
    directory, or something else (a submodule).
    """

    kind: NodeKind
    blob_sha: str | None = None
    mode: int = FILE_MODE


@attrs.frozen(kw_only=True)
class TreeEdit:
    """One path of the new tree: a blob and its mode, or ``blob_sha=None`` to remove the path."""

    path: str
    blob_sha: str | None
    mode: int = FILE_MODE


class HeadMoved(GitFailure):
    """HEAD was not at ``expected_head`` when the commit tried to land, or another writer held
    the lock. Nothing was written; re-read HEAD, rebuild the change set and retry.

    Attributes:
        expected: The head the caller built on.
        actual: The head found, when it was read (``None`` when unborn or unknown).
    """

    def __init__(
        self, expected: str | None, actual: str | None, *, why: str = "HEAD moved"
    ) -> None:
        super().__init__(f"{COMMIT_OPERATION} ({why})")
        self.operation = COMMIT_OPERATION
        self.expected = expected
        self.actual = actual


class GitLocked(HeadMoved):
    """A git lock file (``.git/index.lock``, a branch's ``.lock``) is held by something that is
    not a dead memhtml writer: a git command that is running, or one that died and left a lock
    too young to be called stale. Nothing was written. A ``HeadMoved``, so writers retry it.

    Attributes:
        lock_path: The lock file, absolute.
        reason: Why it was not removed (a live git process, its age).
    """

    def __init__(self, lock_path: str, reason: str) -> None:
        super().__init__(None, None, why=f"{lock_path} is held: {reason}")
        self.lock_path = lock_path
        self.reason = reason
        self.suggestions = (
            "wait for the git command holding the lock to finish, then retry",
            f"rm '{lock_path}'  # only when no git command is running in this repository",
        )


# What a recovery pass found (``RecoveryFinding.kind``).
FOUND_INTERRUPTED_COMMIT: Final = "interrupted-commit"
"""A memhtml commit was killed mid-way; finished (HEAD had moved) or rolled back (it had not)."""
FOUND_COMMIT_IN_PROGRESS: Final = "commit-in-progress"
"""A live writer is inside its commit; nothing to do."""
FOUND_STALE_LOCK: Final = "stale-lock"
"""A git lock file nobody holds any more."""
FOUND_HELD_LOCK: Final = "held-lock"
"""A git lock file that may still be held; left alone."""
FOUND_OBJECT_LEFTOVERS: Final = "object-leftovers"
"""Half-written object files (lock files, temporary or index-less packs) of a dead writer."""
FOUND_TEMP_FILES: Final = "temp-files"
"""Temporary files a dead writer left in the working tree."""
FOUND_INDEX_BEHIND: Final = "index-behind-head"
"""The git index describes HEAD's parent: a commit whose working tree never followed it."""


@attrs.frozen(kw_only=True)
class RecoveryFinding:
    """One condition a crashed command left behind, and whether it was repaired.

    Attributes:
        kind: One of the ``FOUND_*`` names (the application adds its own for the databases).
        detail: What exactly, in words: paths, counts, commits. Never file contents.
        repaired: True when this pass repaired it; False when it was only seen.
        path: The file concerned, absolute, when there is one (a lock file).
    """

    kind: str
    detail: str
    repaired: bool
    path: str | None = None


class GitWriter(Protocol):
    """Creates the repository and lands change sets, one commit each.

    A commit killed at any point leaves either the old state, the new one, or a journal from
    which ``recover`` (run by every commit first, and by the application before it reads or
    writes) finishes or undoes it.
    """

    def init(self) -> bool:
        """Create the repository (initial branch ``main``) unless one exists; True if created.

        Never writes git config beyond what creating a repository requires: no identity.

        Raises:
            GitFailure: The directory cannot hold a repository.
        """
        ...

    def commit(self, changes: ChangeSet, message: str, *, expected_head: str | None) -> str:
        """Land ``changes`` as one commit on top of ``expected_head``; return the new commit.

        The new tree is ``expected_head``'s tree with the changes applied (other staged work
        stays staged, not committed). The branch HEAD names (or HEAD itself when detached)
        moves compare-and-swap from ``expected_head``, ``None`` meaning unborn; then the
        working-tree files and the index follow. Every call makes a commit, even one whose
        tree equals its parent's. Should a working file fail to update after HEAD moved (a
        full disk), the commit stands, the index describes it, ``GitFailure`` is raised, and
        status shows the files that differ.

        Raises:
            HeadMoved: HEAD is not at ``expected_head`` or a concurrent writer holds the lock.
            PathRefused: A path is unsafe, would be written through a symlink out of the
                repository, or the change set is inconsistent with itself or its base tree.
            GitFailure: Any other failure (bare repository, unreadable objects, disk).
        """
        ...

    def needs_recovery(self) -> bool:
        """Whether a quick look (a file or two, no reads of git data) finds anything a crashed
        writer may have left; cheap enough to ask on every command."""
        ...

    def inspect(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """What ``recover`` would repair, changing nothing (every finding ``repaired=False``).

        Args:
            sweep: Also walk the whole working tree for temporary files (doctor); otherwise
                only the directories a dead writer's journal names are looked at.
        """
        ...

    def recover(self, *, sweep: bool = False) -> tuple[RecoveryFinding, ...]:
        """Finish or undo a dead writer's commit and remove what it left, when provably safe.

        The caller holds the writers' lock, so no other memhtml writer is running. A commit
        whose branch had moved is finished: working files that still hold the old content (or
        are missing) get the committed content, files someone edited since are left as they
        are, and the index is brought to the commit. A commit whose branch had not moved is
        undone; its objects stay as unreachable garbage. Lock files are removed only when
        their holder is provably gone (see ARCHITECTURE.md, "Decisions").

        Args:
            sweep: As for ``inspect``.

        Returns:
            Every condition found; ``repaired`` says which were dealt with.

        Raises:
            GitFailure: The repository cannot be read or the repair cannot be written.
        """
        ...


def _ancestors(path: str) -> Iterator[str]:
    parts = path.split("/")
    for end in range(1, len(parts)):
        yield "/".join(parts[:end])


def _refuse(path: str, reason: str) -> PathRefused:
    return PathRefused(COMMIT_OPERATION, path, reason)


def _check_roles(changes: ChangeSet) -> None:
    """Refuse a change set in which a path plays two roles (a move target may be written)."""
    writes = [w.path for w in changes.writes]
    sources = [m.source for m in changes.moves]
    targets = [m.target for m in changes.moves]
    for group in (writes, list(changes.deletes), sources, targets):
        seen: set[str] = set()
        for path in group:
            if path in seen:
                raise _refuse(path, REFUSED_CONFLICTING_ROLES)
            seen.add(path)
    deletes = set(changes.deletes)
    for path in [*writes, *sources, *targets]:
        if path in deletes:
            raise _refuse(path, REFUSED_CONFLICTING_ROLES)
    moved_from = set(sources)
    for path in [*writes, *targets]:
        if path in moved_from:
            raise _refuse(path, REFUSED_CONFLICTING_ROLES)


def plan_tree_edits(
    changes: ChangeSet, lookup: Callable[[str], BaseNode | None]
) -> tuple[TreeEdit, ...]:
    """Check a change set against the parent tree and turn it into tree edits.

    Refused (``PathRefused`` with ``operation="commit"``): an unsafe path; a path in two roles
    (a move target that is also written is allowed); deleting or moving what is not a file of
    the parent tree; moving onto an existing path; writing over a directory or submodule; a
    new path below a file, whether that file is in the parent tree or is itself new. A path
    below a file being removed in the same change set is refused too: git would take it, but
    nothing here needs it and the rule stays one line.

    ``lookup`` is asked about each distinct path at most once, and never about a path below
    one it reported absent (nothing can be there). A 500-file batch into one folder used to
    ask ~2,000 times, mostly about the same few folders, and each answer walks git trees.

    Args:
        changes: The change set.
        lookup: What the parent tree holds at a path, ``None`` when nothing.

    Returns:
        One edit per changed path, ordered by path.
    """
    for path in [
        *(w.path for w in changes.writes),
        *changes.deletes,
        *(p for m in changes.moves for p in (m.source, m.target)),
    ]:
        check_repo_path(path, COMMIT_OPERATION)
    _check_roles(changes)
    node_at = _remembering(lookup)

    removed: dict[str, BaseNode] = {}
    for path in [*changes.deletes, *(m.source for m in changes.moves)]:
        node = node_at(path)
        if node is None or node.kind != "file":
            raise _refuse(path, REFUSED_NOT_A_FILE)
        removed[path] = node

    targets = {m.target for m in changes.moves}
    written = {w.path: w.data for w in changes.writes}
    new_paths = targets | set(written)
    for path in sorted(new_paths):
        above, node = _nodes_along(path, node_at)
        if node is not None and (path in targets or node.kind != "file"):
            raise _refuse(path, REFUSED_OCCUPIED)
        for ancestor, found in above:
            if ancestor in new_paths or (found is not None and found.kind != "tree"):
                raise _refuse(path, REFUSED_UNDER_A_FILE)

    edits = {path: TreeEdit(path=path, blob_sha=None) for path in removed}
    for move in changes.moves:
        source = removed[move.source]
        edits[move.target] = TreeEdit(path=move.target, blob_sha=source.blob_sha, mode=source.mode)
    for path, data in written.items():
        edits[path] = TreeEdit(path=path, blob_sha=blob_sha(data))
    return tuple(edits[path] for path in sorted(edits))


def _remembering(
    lookup: Callable[[str], BaseNode | None],
) -> Callable[[str], BaseNode | None]:
    """``lookup`` with each answer kept, so a folder shared by many paths is read once."""
    answers: dict[str, BaseNode | None] = {}

    def node_at(path: str) -> BaseNode | None:
        if path not in answers:
            answers[path] = lookup(path)
        return answers[path]

    return node_at


def _nodes_along(
    path: str, node_at: Callable[[str], BaseNode | None]
) -> tuple[list[tuple[str, BaseNode | None]], BaseNode | None]:
    """The parent tree's node at each ancestor of ``path`` (top down) and at ``path`` itself.

    Below an absent path, or below a file, nothing is there: those are answered ``None``
    without asking.
    """
    above: list[tuple[str, BaseNode | None]] = []
    blocked = False
    for ancestor in _ancestors(path):
        found = None if blocked else node_at(ancestor)
        blocked = blocked or found is None or found.kind != "tree"
        above.append((ancestor, found))
    return above, None if blocked else node_at(path)
