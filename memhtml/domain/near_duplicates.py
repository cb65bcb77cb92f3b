"""Which scored neighbours a near-duplicate report keeps: the floor, the order, the cap.

The rule both backends and the write path share (docs/cli-contract.md §3.8): a neighbour is
kept when its similarity is at or above the floor and it is not excluded; the kept ones come
most similar first, path order on ties, at most ``limit``. The SQLite statement decides the
same in SQL (``row_number() OVER (ORDER BY sim DESC, path)``); the in-memory backend calls this.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Final, Protocol, TypeVar

DEFAULT_NEAR_FLOOR: Final = 0.935
"""The default cosine floor for the local model (MiniLM): between the highest similarity of two
unrelated memories and the lowest of a restatement on the discrimination gate's corpus
(BENCHMARKS.md, "Near-duplicate assist"). The floor is the caller's policy."""
DEFAULT_NEAR_LIMIT: Final = 3
"""Neighbours reported per written memory by default."""


class Scored(Protocol):
    """One neighbour and its similarity to the query."""

    @property
    def path(self) -> str:
        """The neighbour's repo path."""
        ...

    @property
    def similarity(self) -> float:
        """Its cosine similarity to the query."""
        ...


S = TypeVar("S", bound=Scored)


def ranked_near(
    scored: Iterable[S], *, floor: float, limit: int, excluded: Collection[str] = ()
) -> tuple[S, ...]:
    """The neighbours at or above ``floor`` whose path is not ``excluded``: most similar
    first, path order on ties, at most ``limit`` (none when ``limit`` < 1)."""
    if limit < 1:
        return ()
    kept = [s for s in scored if s.similarity >= floor and s.path not in excluded]
    kept.sort(key=lambda s: (-s.similarity, s.path))
    return tuple(kept[:limit])
