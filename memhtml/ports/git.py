"""The indexer's view of git: the commit HEAD is on, trees, blobs, diffs and the dirty tree.

Signatures carry plain values (str paths, hex shas, bytes), never a git library's objects, so
the indexer depends on a shape and an in-memory fake can stand in for a repository.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Final, Literal, Protocol

import attrs

from memhtml.ports.errors import GitFailure

DiffStatus = Literal["A", "M", "D", "R"]
RENAMED: Final = "R"

# Why a path is refused. Stable strings so a caller can branch on them without parsing prose.
REFUSED_EMPTY: Final = "empty"
REFUSED_ABSOLUTE: Final = "absolute"
REFUSED_DOT_SEGMENT: Final = "dot-segment"
REFUSED_EMPTY_SEGMENT: Final = "empty-segment"
REFUSED_CHARACTER: Final = "character"
REFUSED_GIT_DIR: Final = "git-dir"
# A directory on the way is a symlink (git: "beyond a symbolic link"); a read's symlinked
# file resolves outside the working tree.
REFUSED_SYMLINK: Final = "beyond-symlink"
REFUSED_SYMLINK_ESCAPE: Final = "symlink-escape"

# A backslash is a separator on Windows and NUL ends a C string; either would let one path
# name two different files depending on who reads it.
_FORBIDDEN_CHARACTERS: Final = frozenset({"\\", "\x00"})
_GIT_DIR: Final = ".git"


@attrs.frozen(kw_only=True)
class TreeEntry:
    """One blob of a commit's tree (a ``git ls-tree -r`` row).

    Attributes:
        path: Repo-root-relative, ``/``-separated, no leading slash: the ``files.path`` key.
        blob_sha: The blob's own sha, equal to what ``hash_working_file`` gives for the same
            bytes, which makes it the free change key.
    """

    path: str
    blob_sha: str


@attrs.frozen(kw_only=True)
class LineStep:
    """One commit of HEAD's first-parent line and what it changed against its first parent.

    Attributes:
        sha: The commit.
        at: Its commit time, Unix seconds.
        changes: ``(path, blob after)`` for every file path whose blob differs from the first
            parent's (``None``: gone), by path; a rename is a path gone and a path added.
    """

    sha: str
    at: int
    changes: tuple[tuple[str, str | None], ...] = ()


@attrs.frozen(kw_only=True)
class CommitNote:
    """One commit of HEAD's first-parent line as ``git log --first-parent`` shows it.

    Attributes:
        sha: The commit.
        parent: Its first parent; ``None`` for a root commit.
        message: The whole message, trailers included.
    """

    sha: str
    parent: str | None
    message: str


def _from_path_matches_status(
    entry: DiffEntry, _: attrs.Attribute[str | None], value: str | None
) -> None:
    if (entry.status == RENAMED) != (value is not None):
        raise ValueError("from_path is set exactly when status is R")


@attrs.frozen(kw_only=True)
class DiffEntry:
    """One ``git diff --name-status -M`` row between two commits.

    A rename is reported as ``R`` with ``from_path`` rather than a delete plus an add: chunks
    and vectors key on content, so handling the archive move as a rename re-embeds nothing. A
    copy is an add, because its source still exists.

    Attributes:
        status: ``A`` added, ``M`` modified, ``D`` deleted, ``R`` renamed.
        path: The path in the newer commit (the old path for ``D``).
        from_path: The source of a rename; ``None`` for every other status.
    """

    status: DiffStatus
    path: str
    from_path: str | None = attrs.field(default=None, validator=_from_path_matches_status)


@attrs.frozen(kw_only=True)
class StatusEntry:
    """One uncommitted change the working tree carries (a ``git status --porcelain=v2`` row).

    Attributes:
        path: The path whose working-tree state differs from HEAD.
        deleted: True when the path is gone from the working tree.
        from_path: The source of a staged rename, so the indexer can retire the source row in
            the same pass. Without it the old row stays active and the destination's
            projection collides with it on the active content-hash index.
    """

    path: str
    deleted: bool = False
    from_path: str | None = None


class PathRefused(GitFailure):
    """A path refused before anything is read or written.

    Raised for a repo-relative path that could name a file outside the repository or inside
    ``.git`` (here, and in the adapters for symlinks on the way), and by the writer for a
    change set that contradicts itself or its parent tree. A ``GitFailure`` so that callers
    see one error type from the port; the store validates user paths first and reports its
    own usage error, so this is the last line of defence, not the first.

    Attributes:
        path: The refused path, as the caller gave it (kept off the message).
        reason: One of the ``REFUSED_*`` strings (here and in ``memhtml.ports.git_writer``).
    """

    def __init__(self, operation: str, path: str, reason: str) -> None:
        super().__init__(f"{operation} (path refused: {reason})")
        self.operation = operation
        self.path = path
        self.reason = reason


def check_repo_path(path: str, operation: str) -> str:
    """Return ``path`` when it is a safe repo-relative path, else raise ``PathRefused``.

    Safe means: non-empty, relative, ``/``-separated segments that are neither empty, ``.``
    nor ``..``, no backslash or NUL, and no ``.git`` segment in any letter case.

    Args:
        path: The path to check.
        operation: The port operation to name in the failure.

    Raises:
        PathRefused: With the first reason found.
    """
    if not path:
        raise PathRefused(operation, path, REFUSED_EMPTY)
    if path.startswith("/"):
        raise PathRefused(operation, path, REFUSED_ABSOLUTE)
    if any(ch in _FORBIDDEN_CHARACTERS for ch in path):
        raise PathRefused(operation, path, REFUSED_CHARACTER)
    for segment in path.split("/"):
        if not segment:
            raise PathRefused(operation, path, REFUSED_EMPTY_SEGMENT)
        if segment in {".", ".."}:
            raise PathRefused(operation, path, REFUSED_DOT_SEGMENT)
        if segment.lower() == _GIT_DIR:
            raise PathRefused(operation, path, REFUSED_GIT_DIR)
    return path


def blob_sha(data: bytes) -> str:
    """The sha git gives a blob holding ``data`` (``git hash-object``)."""
    header = b"blob %d\x00" % len(data)
    return hashlib.sha1(header + data, usedforsecurity=False).hexdigest()


class GitPort(Protocol):
    """Read access to one repository: its HEAD, trees, blobs, diffs and working tree.

    Every failure is a ``GitFailure`` whose message names the operation only, never the git
    library's own output (which can carry a path, a branch name or a hunk).
    """

    def head(self) -> str | None:
        """The commit HEAD points at (detached or on a branch); ``None`` on an unborn HEAD.

        The indexer reads an unborn HEAD as an empty tree: a fresh store has nothing to index,
        which is not a failure.
        """
        ...

    def list_tree(self, ref: str, prefixes: Sequence[str] = ()) -> tuple[TreeEntry, ...]:
        """Every blob of ``ref``'s tree under the given path prefixes, recursively.

        A prefix names a directory or a file (``projects`` matches ``projects/…``, never
        ``projects-old/…``); no prefixes means the whole tree. Submodule entries are dropped,
        as are paths that are not UTF-8. Ordered by path (binary string order), each path
        once. Works on a bare repository.

        Raises:
            GitFailure: ``ref`` names no commit, or the repository cannot be read.
        """
        ...

    def commit_at(self, epoch_seconds: int) -> str | None:
        """The newest commit on HEAD's first-parent line whose commit time is at or before
        ``epoch_seconds`` (what the store knew then, ``read --known-at``); ``None`` when HEAD is
        unborn or every commit is younger. Works on a bare repository.

        The line is walked from HEAD back along first parents and the first commit not after
        the instant wins, so a clock that ran backwards between two commits cannot make an
        older tree answer for a later instant.

        Raises:
            GitFailure: The repository cannot be read.
        """
        ...

    def recent_commits(self, limit: int) -> tuple[CommitNote, ...]:
        """Up to ``limit`` commits of HEAD's first-parent line, HEAD first; empty when HEAD is
        unborn. A command finds its own commit by its trailer here (``landed_request.py``).

        Raises:
            GitFailure: The repository cannot be read.
        """
        ...

    def first_parent_changes(self, stop: str | None) -> tuple[LineStep, ...] | None:
        """HEAD's first-parent line back to, not including, ``stop``, oldest first (``None``:
        the whole line), each commit with its changes against its first parent (the root
        commit against the empty tree). ``None`` when ``stop`` is not on the line (history
        was rewritten). An unborn HEAD has an empty line. Submodule entries and non-UTF-8
        paths are dropped. Works on a bare repository.

        Raises:
            GitFailure: The repository cannot be read.
        """
        ...

    def read_blobs(self, shas: Sequence[str]) -> Mapping[str, bytes]:
        """The bytes of each blob, by sha, read in one batch. Works on a bare repository.

        Raises:
            GitFailure: A sha names no blob (missing, malformed, or another object type).
        """
        ...

    def diff(self, from_sha: str | None, to_sha: str | None) -> tuple[DiffEntry, ...]:
        """Name-status changes from one commit to another, with rename detection.

        ``None`` on either side stands for an empty tree (an unborn HEAD). Submodule entries
        and non-UTF-8 paths are dropped. Ordered by path, then status.

        Raises:
            GitFailure: A sha names no commit.
        """
        ...

    def status(self) -> tuple[StatusEntry, ...]:
        """Uncommitted changes: the index against HEAD, then the working tree against the index.

        One entry per path, ordered by path. Untracked files are included, ignored and
        unmerged paths dropped; a staged rename (a staged delete plus a staged add of the same
        blob) is one entry for the destination carrying its source.

        Raises:
            GitFailure: The repository is bare or cannot be read.
        """
        ...

    def hash_working_file(self, path: str) -> str:
        """The blob sha the working-tree file at ``path`` would have.

        Raises:
            PathRefused: ``path`` is unsafe or resolves outside the repository.
            GitFailure: The file is missing or unreadable, or the repository is bare.
        """
        ...

    def read_working_file(self, path: str) -> bytes:
        """The bytes of the working-tree file at ``path``.

        Raises:
            PathRefused: ``path`` is unsafe or resolves outside the repository.
            GitFailure: The file is missing or unreadable, or the repository is bare. A
                missing file is the normal case for a path just archived; callers count it.
        """
        ...
