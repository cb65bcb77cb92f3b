"""Questions about the commit graph a sync asks (docs/sync.md §2): where two histories meet,
how far apart they are, what each changed and when."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs

from memhtml.domain.sync_values import Stamp


@attrs.frozen(kw_only=True)
class AheadBehind:
    """How two commits relate.

    Attributes:
        ahead: Commits reachable from the local one and not from the remote one.
        behind: Commits reachable from the remote one and not from the local one.
    """

    ahead: int
    behind: int


@attrs.frozen(kw_only=True)
class PathChange:
    """One path that differs between two commits: its blob before and after (``None`` where
    the path is absent)."""

    path: str
    old: str | None
    new: str | None


@attrs.frozen(kw_only=True)
class MergeCommit:
    """A commit with two or more parents: its id, its parents in order, and its message."""

    sha: str
    parents: tuple[str, ...]
    message: str


class GitHistory(Protocol):
    """Read-only questions about the local repository's commits.

    Raises ``GitFailure`` when a sha names no commit or the repository cannot be read.
    """

    def merge_bases(self, a: str, b: str) -> tuple[str, ...]:
        """The best common ancestors of two commits (none for unrelated histories); ``a``
        itself when it is an ancestor of ``b``. Ordered by commit time, newest first."""
        ...

    def ahead_behind(self, local: str | None, remote: str | None) -> AheadBehind:
        """Commit counts on each side of the two commits' common history (``None``: none)."""
        ...

    def changes(self, old: str | None, new: str) -> tuple[PathChange, ...]:
        """Every file path whose blob differs from commit ``old`` (``None``: empty) to ``new``,
        by path. No rename detection: a move is a removal and an addition."""
        ...

    def last_touches(
        self, tip: str, since: Sequence[str], paths: Sequence[str]
    ) -> Mapping[str, Stamp]:
        """For each path, the newest commit reachable from ``tip`` and not from ``since`` that
        changed it (a merge counts only where it differs from every parent). Paths no such
        commit changed are absent."""
        ...

    def merge_commits(self, tip: str, since: Sequence[str]) -> tuple[MergeCommit, ...]:
        """The merge commits reachable from ``tip`` and not from any of ``since``, every
        commit after its parents (oldest first). Messages are decoded as UTF-8, errors
        replaced."""
        ...
