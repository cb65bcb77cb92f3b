"""Bounded authority: after fusion, a small multiplier for what a memory is, not what it says.

A maintained memory (procedural, semantic, error pattern) over an episodic note, importance and
confidence, a pin, and a small closed tag vocabulary move a memory's fused score by at most
:data:`AUTHORITY_BOUND` either way. That reorders near-ties only: a memory needs a fused lead of
more than ``(1 + B) / (1 − B)`` (≈ 1.22 at 10 %) to be safe from any adjustment, and no amount of
authority can lift a memory without query evidence over one with it
(``docs/ranking.md §3.1``). The step runs between fusion and polarity (``app/retrieval``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Final

import attrs

from memhtml.domain.fusion import Fused
from memhtml.domain.scope import ascii_fold

AUTHORITY_BOUND: Final = 0.10
"""The largest share by which authority moves a fused score, up or down."""

KIND_ADJUSTMENT: Final[Mapping[str, float]] = {
    "procedural": 0.03,
    "semantic": 0.03,
    "error_pattern": 0.03,
    "episodic": -0.03,
}
"""Maintained knowledge over a session note; other types are neutral."""

IMPORTANCE_STEP: Final = 0.008
"""Per importance point above or below the default 5 (1 → −0.032, 10 → +0.04)."""

DEFAULT_IMPORTANCE: Final = 5

CONFIDENCE_SPAN: Final = 0.04
"""What a confidence of 0 costs against the default 1 (linear in between)."""

PIN_ADJUSTMENT: Final = 0.05
"""What ``memhtml-pinned`` earns (docs/format.md §2)."""

AUTHORITY_TAGS: Final[Mapping[str, float]] = {
    "canonical": 0.03,
    "decision": 0.02,
    "gotcha": 0.02,
    "runbook": 0.02,
    "draft": -0.03,
    "stale": -0.05,
}
"""The closed tag vocabulary authority reads (ASCII case-folded); any other tag is neutral."""

DIGITS: Final = 3
"""Adjustments are rounded to thousandths, as the hits report them."""


@attrs.frozen(kw_only=True)
class AuthorityFacts:
    """What authority reads about one memory (its ``files`` row and tags)."""

    memory_type: str
    importance: int = DEFAULT_IMPORTANCE
    confidence: float = 1.0
    pinned: bool = False
    tags: frozenset[str] = frozenset()


def authority_adjustment(facts: AuthorityFacts) -> float:
    """The signed share by which ``facts`` move a fused score: the sum of the kind, tier, pin
    and tag terms, clamped to ±:data:`AUTHORITY_BOUND` and rounded to :data:`DIGITS`."""
    total = KIND_ADJUSTMENT.get(facts.memory_type, 0.0)
    total += (facts.importance - DEFAULT_IMPORTANCE) * IMPORTANCE_STEP
    total += (min(max(facts.confidence, 0.0), 1.0) - 1.0) * CONFIDENCE_SPAN
    total += PIN_ADJUSTMENT if facts.pinned else 0.0
    total += sum(AUTHORITY_TAGS.get(tag, 0.0) for tag in {ascii_fold(t) for t in facts.tags})
    clamped = min(max(total, -AUTHORITY_BOUND), AUTHORITY_BOUND)
    return round(clamped, DIGITS) + 0.0  # + 0.0 turns a rounded -0.0 into 0.0


@attrs.frozen(kw_only=True)
class AuthorityRun:
    """The fused candidates reordered by authority.

    Attributes:
        fused: The candidates in their new order, each score multiplied by ``1 + adjustment``.
        adjustments: The adjustment applied to each candidate that got a non-zero one.
    """

    fused: tuple[Fused, ...]
    adjustments: Mapping[str, float]


def apply_authority(
    fused: Sequence[Fused],
    facts: Mapping[str, AuthorityFacts],
    query_arms: Collection[str],
) -> AuthorityRun:
    """Multiply each fused score by ``1 + adjustment`` and reorder, within two guarantees.

    A candidate no query arm ranked (only recency or salience did) is never raised: its
    adjustment is capped at 0. And it never passes a candidate with query evidence that fusion
    put above it: it waits until every such candidate has been placed. Within each group the
    order is by adjusted score, then fused position.

    Args:
        fused: The fused order, best first.
        facts: Per path, what authority reads; a path without facts is left unadjusted.
        query_arms: The names of the arms that read the query (``ArmKind.QUERY``).
    """
    adjustments: dict[str, float] = {}
    evidence: list[bool] = []
    scores: list[float] = []
    for candidate in fused:
        has_evidence = any(name in query_arms for name, _ in candidate.ranks)
        known = facts.get(candidate.path)
        adjustment = 0.0 if known is None else authority_adjustment(known)
        if not has_evidence:
            adjustment = min(adjustment, 0.0)
        if adjustment:
            adjustments[candidate.path] = adjustment
        evidence.append(has_evidence)
        scores.append(candidate.score * (1.0 + adjustment))
    order = _guarded_order(scores, evidence)
    return AuthorityRun(
        fused=tuple(attrs.evolve(fused[i], score=scores[i]) for i in order),
        adjustments=adjustments,
    )


def _guarded_order(scores: Sequence[float], evidence: Sequence[bool]) -> list[int]:
    """Positions by adjusted score (then position), holding back each candidate without
    evidence until every candidate with evidence fused above it has been placed."""
    by_score = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    with_evidence = [i for i in range(len(scores)) if evidence[i]]
    placed: set[int] = set()
    cursor = 0  # with_evidence[cursor] is the earliest evidence position not placed yet

    def blocked(i: int) -> bool:
        return cursor < len(with_evidence) and with_evidence[cursor] < i

    order: list[int] = []
    waiting: list[int] = []
    for i in by_score:
        if evidence[i]:
            order.append(i)
            placed.add(i)
            while cursor < len(with_evidence) and with_evidence[cursor] in placed:
                cursor += 1
            while waiting and not blocked(waiting[0]):
                order.append(waiting.pop(0))
        elif waiting or blocked(i):
            waiting.append(i)
        else:
            order.append(i)
    order.extend(waiting)
    return order
