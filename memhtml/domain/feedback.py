"""Dense pseudo-relevance feedback: the query vector moved toward its first results (Rocchio).

The top ``n`` memories of the query's words (or of a first fusion) are taken as relevant
without being judged; each gives one unit direction (its chunk nearest the query, or the mean
of its chunks), and the query becomes ``normalize(q̂ + β · mean(d̂))``. The search with that
vector can reach memories that resemble what the words found but share little with the
query's own phrasing (docs/ranking.md §3.2).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Final

FEEDBACK_PICKS: Final = ("nearest", "mean")
"""How a memory with several chunks gives its direction: the chunk nearest the query, or the
mean of its chunks' unit vectors."""

FEEDBACK_DEPTH_DEFAULT: Final = 3
"""Memories feedback reads by default: the own-text arm's top three lifted LoCoMo's turn MRR
0.498 → 0.511 (95 % paired bootstrap above 0) with no other measure moving beyond noise, at
1.07x a search's cost (BENCHMARKS.md, issue 13)."""

FEEDBACK_SOURCES: Final = ("words", "fused")
"""Which memories feedback reads: the own-text arm's best matches (``words``: one light
statement before the fusion, which then runs once with the moved vector) or the first fusion's
best (``fused``: the whole statement twice)."""

FEEDBACK_SOURCE_DEFAULT: Final = "words"
FEEDBACK_WORD_ARMS: Final = frozenset({"fts"})
"""The arms whose best matches ``words`` feedback reads. The own-text arm alone measured as well
as it with the context arm (BENCHMARKS.md), at half the cost."""

FEEDBACK_PICK_DEFAULT: Final = "nearest"
FEEDBACK_WEIGHT_DEFAULT: Final = 0.5
"""β when feedback runs and no weight is given."""

MAX_FEEDBACK_DEPTH: Final = 50
"""The most first-round memories feedback may read."""


def unit(vector: Sequence[float]) -> tuple[float, ...] | None:
    """``vector`` scaled to length 1; ``None`` for a zero or non-finite vector."""
    norm = math.hypot(*vector)
    if not (math.isfinite(norm) and norm > 0.0):
        return None
    return tuple(x / norm for x in vector)


def document_direction(
    query: Sequence[float], chunks: Sequence[Sequence[float]], pick: str
) -> tuple[float, ...] | None:
    """One memory's unit direction from its chunk vectors.

    Args:
        query: The query vector (any length-``d`` vector; only its direction is read).
        chunks: The memory's chunk vectors; those of another width or without a direction are
            left out.
        pick: ``nearest`` (the chunk with the largest cosine to the query, the first on a tie)
            or ``mean`` (the normalised mean of the chunks' unit vectors).

    Returns:
        A unit vector, or ``None`` when no chunk gives a direction (or the mean cancels out).

    Raises:
        ValueError: ``pick`` is not one of :data:`FEEDBACK_PICKS` (a caller bug).
    """
    if pick not in FEEDBACK_PICKS:
        raise ValueError(f"unknown feedback pick {pick!r}")
    units = [u for u in (unit(c) for c in chunks if len(c) == len(query)) if u is not None]
    if not units:
        return None
    if pick == "nearest":
        return max(units, key=lambda u: float(sum(map(operator.mul, u, query))))
    return unit([math.fsum(column) for column in zip(*units, strict=True)])


def rocchio(
    query: Sequence[float], documents: Sequence[Sequence[float]], weight: float
) -> tuple[float, ...] | None:
    """``normalize(q̂ + weight · mean(documents))``, the fed-back query vector.

    Args:
        query: The query vector.
        documents: Unit directions of the memories taken as relevant (:func:`document_direction`);
            those of another width are left out.
        weight: β >= 0; 0 gives back the query's own direction.

    Returns:
        The new unit query vector; the query's own direction when no document is usable;
        ``None`` when the query has no direction, or the sum cancels out.
    """
    start = unit(query)
    if start is None:
        return None
    usable = [d for d in documents if len(d) == len(start)]
    if not usable or weight == 0.0:
        return start
    share = weight / len(usable)
    moved = [
        q + share * math.fsum(column)
        for q, column in zip(start, zip(*usable, strict=True), strict=True)
    ]
    return unit(moved)
