"""Scoring: hit ranks in, discrimination and corpus ranks, MRR, inversions and the verdict out.

Pure, so the invariants (a rank within [1, 1 + controls], an MRR within [0, 1], an absent
target losing to every control) are property-tested without building a store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

MRR_DECIMALS: Final = 4


@attrs.frozen(kw_only=True)
class ControlRank:
    """Where one control landed: its path, family and 1-based rank (None when absent)."""

    path: str
    family: str
    rank: int | None


@attrs.frozen(kw_only=True)
class ProbeScore:
    """One probe's outcome (a ``results[]`` item of ``eval.discrimination``).

    Attributes:
        query: The probe query.
        target_path: The memory that should win.
        target_rank: Its 1-based hit position, or None when absent.
        discrimination_rank: 1 + controls the target does not strictly outrank.
        control_ranks: Every control's rank, in family order.
        discriminated: ``discrimination_rank == 1``.
        reciprocal_rank: ``1 / discrimination_rank``.
        corpus_reciprocal_rank: ``1 / target_rank``, 0 when absent.
        degraded: The search ran without the vector arm.
        hit_paths: Every hit, best first; kept for checks (no archived hit), not reported.
    """

    query: str
    target_path: str
    target_rank: int | None
    discrimination_rank: int
    control_ranks: tuple[ControlRank, ...]
    discriminated: bool
    reciprocal_rank: float
    corpus_reciprocal_rank: float
    degraded: bool
    hit_paths: tuple[str, ...] = ()

    @property
    def offending(self) -> tuple[ControlRank, ...]:
        """The controls the target did not strictly outrank, in family order."""
        return tuple(c for c in self.control_ranks if not outranks(self.target_rank, c.rank))


def rank_of(path: str, hits: Sequence[str]) -> int | None:
    """The 1-based position of ``path`` in ``hits``, or None."""
    try:
        return hits.index(path) + 1
    except ValueError:
        return None


def outranks(target: int | None, control: int | None) -> bool:
    """Whether the target strictly outranks a control: an absent control is beaten, an absent
    target beats nothing."""
    if target is None:
        return False
    return control is None or target < control


def score_probe(
    *,
    query: str,
    target_path: str,
    controls: Sequence[tuple[str, str]],
    hits: Sequence[str],
    degraded: bool,
) -> ProbeScore:
    """Score one probe from its hit paths.

    Args:
        query: The probe query.
        target_path: The target memory.
        controls: ``(path, family)`` of each of its controls.
        hits: The search's hit paths, best first.
        degraded: Whether the search ran without the vector arm.
    """
    target_rank = rank_of(target_path, hits)
    ranks = tuple(
        ControlRank(path=path, family=family, rank=rank_of(path, hits)) for path, family in controls
    )
    beaten_by = sum(1 for c in ranks if not outranks(target_rank, c.rank))
    discrimination_rank = 1 + beaten_by
    return ProbeScore(
        query=query,
        target_path=target_path,
        target_rank=target_rank,
        discrimination_rank=discrimination_rank,
        control_ranks=ranks,
        discriminated=discrimination_rank == 1,
        reciprocal_rank=1 / discrimination_rank,
        corpus_reciprocal_rank=0.0 if target_rank is None else 1 / target_rank,
        degraded=degraded,
        hit_paths=tuple(hits),
    )


def mean_4dp(values: Sequence[float]) -> float:
    """The mean rounded to 4 decimals; 0 for no values (zero probes cannot pass)."""
    if not values:
        return 0.0
    return round(sum(values) / len(values), MRR_DECIMALS)


@attrs.frozen(kw_only=True)
class GateSummary:
    """The aggregate numbers and the verdict of one run."""

    probes: int
    discriminated: int
    inversions: tuple[ProbeScore, ...]
    mrr: float
    corpus_mrr: float
    degraded_probes: int
    lexically_discriminated: int
    passed: bool


def summarize(
    scores: Sequence[ProbeScore],
    *,
    mrr_floor: float,
    lexical: bool,
    capabilities_passed: bool = True,
) -> GateSummary:
    """Aggregate probe scores and apply the pass rule (docs/evaluation.md §A.3).

    fake/local: at least one probe, no inversion, ``mrr >= mrr_floor`` and no degraded probe.
    lexical: not MRR-gated; every probe degraded and at least one discriminated. In every mode
    the capability probes (§A.5) must all pass too.
    """
    discriminated = sum(1 for s in scores if s.discriminated)
    inversions = tuple(s for s in scores if s.discrimination_rank > 1)
    degraded = sum(1 for s in scores if s.degraded)
    mrr = mean_4dp([s.reciprocal_rank for s in scores])
    lexically = sum(1 for s in scores if s.degraded and s.discriminated)
    if lexical:
        passed = bool(scores) and degraded == len(scores) and lexically >= 1
    else:
        passed = bool(scores) and not inversions and mrr >= mrr_floor and degraded == 0
    passed = passed and capabilities_passed
    return GateSummary(
        probes=len(scores),
        discriminated=discriminated,
        inversions=inversions,
        mrr=mrr,
        corpus_mrr=mean_4dp([s.corpus_reciprocal_rank for s in scores]),
        degraded_probes=degraded,
        lexically_discriminated=lexically,
        passed=passed,
    )
