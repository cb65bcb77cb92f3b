"""Ranking metrics for the LoCoMo benchmark (docs/evaluation.md §B.4), pure.

Binary relevance throughout: an item is gold or it is not. Each function takes the ranked items
(best first, distinct) and the gold set; none of them looks at anything else, so the turn level
and the session level are the same code over different items.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Iterable, Sequence
from typing import Final, TypeVar

import attrs

H = TypeVar("H", bound=Hashable)

MRR_CUTOFF: Final = 10
NDCG_CUTOFF: Final = 10


@attrs.frozen(kw_only=True)
class RankingScores:
    """One query's scores, or a mean over queries."""

    recall5: float
    recall10: float
    hit5: float
    hit10: float
    mrr: float
    ndcg10: float


SCORE_FIELDS: Final = tuple(field.name for field in attrs.fields(RankingScores))


def _checked(ranked: Sequence[H], gold: Collection[H], k: int = 1) -> None:
    if k < 1:
        raise ValueError(f"a cutoff must be >= 1, got {k}")
    if not gold:
        raise ValueError("a query without gold cannot be scored")
    if len(set(ranked)) != len(ranked):
        raise ValueError("ranked items must be distinct; map them with first_occurrences")


def recall_at(ranked: Sequence[H], gold: Collection[H], k: int) -> float:
    """|gold ∩ top k| / |gold|: how much of the evidence the first ``k`` hits hold."""
    _checked(ranked, gold, k)
    wanted = set(gold)
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def hit_at(ranked: Sequence[H], gold: Collection[H], k: int) -> float:
    """1.0 when any gold item is in the top ``k``, else 0.0 (what some peers call recall)."""
    _checked(ranked, gold, k)
    wanted = set(gold)
    return 1.0 if any(item in wanted for item in ranked[:k]) else 0.0


def reciprocal_rank(ranked: Sequence[H], gold: Collection[H], cutoff: int = MRR_CUTOFF) -> float:
    """1 / the 1-based rank of the first gold item within ``cutoff``, else 0.0."""
    _checked(ranked, gold, cutoff)
    wanted = set(gold)
    for position, item in enumerate(ranked[:cutoff], start=1):
        if item in wanted:
            return 1.0 / position
    return 0.0


def ndcg_at(ranked: Sequence[H], gold: Collection[H], k: int = NDCG_CUTOFF) -> float:
    """Binary-gain nDCG: Σ rel_i / log2(i + 1) over the top ``k``, over the ideal ordering's
    sum for min(|gold|, k) relevant items."""
    _checked(ranked, gold, k)
    wanted = set(gold)
    dcg = sum(
        1.0 / math.log2(position + 1)
        for position, item in enumerate(ranked[:k], start=1)
        if item in wanted
    )
    ideal = sum(1.0 / math.log2(position + 1) for position in range(1, min(len(wanted), k) + 1))
    return dcg / ideal


def score_ranking(ranked: Sequence[H], gold: Collection[H]) -> RankingScores:
    """Every metric of one query.

    Each single metric raises ``ValueError`` likewise, and for a cutoff below 1.

    Raises:
        ValueError: ``gold`` is empty or ``ranked`` repeats an item.
    """
    return RankingScores(
        recall5=recall_at(ranked, gold, 5),
        recall10=recall_at(ranked, gold, 10),
        hit5=hit_at(ranked, gold, 5),
        hit10=hit_at(ranked, gold, 10),
        mrr=reciprocal_rank(ranked, gold),
        ndcg10=ndcg_at(ranked, gold),
    )


def mean_scores(scores: Sequence[RankingScores]) -> RankingScores | None:
    """The per-field mean over queries (each query weighs the same); None for no query."""
    if not scores:
        return None
    return RankingScores(
        **{name: math.fsum(getattr(s, name) for s in scores) / len(scores) for name in SCORE_FIELDS}
    )


def first_occurrences(items: Iterable[H]) -> tuple[H, ...]:
    """``items`` with repeats removed, each kept where it first appears.

    Maps a turn ranking to a session ranking: a session ranks where its best turn ranks.
    """
    return tuple(dict.fromkeys(items))


def nearest_rank(values: Sequence[float], percent: float) -> float | None:
    """The nearest-rank percentile: the ⌈p/100 · n⌉-th smallest value; None for no values.

    Raises:
        ValueError: ``percent`` outside (0, 100].
    """
    if not 0 < percent <= 100:
        raise ValueError(f"percent must lie in (0, 100], got {percent!r}")
    if not values:
        return None
    ordered = sorted(values)
    # percent · n first: exact for whole percents, where p/100 · n can round up past a rank.
    return ordered[max(1, math.ceil(percent * len(ordered) / 100)) - 1]
