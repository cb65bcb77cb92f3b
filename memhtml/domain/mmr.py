"""Maximal marginal relevance: the diversification pass after fusion and polarity.

Greedy selection: each step picks the candidate maximising
``λ·relevance − (1−λ)·max_sim_to_selected``. Relevance is a linear stand-in for the
candidate's position in the ranked input (after polarity): ``1 − i/n`` for the i-th of n.
Fused sums are not comparable across queries, so a monotone stand-in for rank is the honest
input; diversification only needs the order to be right.

Why linear and not ``1/position``: relevance has to live on the same scale as the cosine
penalty. Under ``1/position`` the second candidate already scores half the first, so at
λ = 0.5 a near-duplicate of the top hit at position 2 (cosine 0.6) lost to an unrelated
candidate at position 25 — measured on the demo corpus, where the two best full-text matches
fell out of the top 10. A linear stand-in keeps neighbouring ranks close, so similarity only
reorders candidates whose relevance is genuinely close.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, Protocol, TypeVar

from memhtml.domain.errors import InvalidInput
from memhtml.domain.vectors import PairSimilarity, cosine_lookup

MMR_LAMBDA: Final = 1.0
"""Weight of relevance against redundancy; 1 means pure relevance (no diversification).

Off by default: on LoCoMo (hybrid, all ten conversations) every λ < 1 measured lowered turn
Recall@10 — λ 0.5 by 0.014 to 0.078 depending on the metric, λ 0.8 over the fused score by
0.009 — because the evidence turns of one question are alike by nature (BENCHMARKS.md, issue
13). ``--mmr-lambda`` turns it on; its first pick is always the fused top hit."""

MMR_RELEVANCE_DEFAULT: Final = "fused"
"""What MMR reads as relevance when turned on: ``fused`` (each candidate's fused score over
the best, so relevance reflects the evidence) or ``rank`` (``1 − i/n``)."""


class MmrCandidate(Protocol):
    """What MMR reads from a candidate besides its position: its vector, when known."""

    @property
    def vector(self) -> Sequence[float] | None:
        """The candidate's embedding, or ``None`` when it has none."""
        ...


CandidateT = TypeVar("CandidateT", bound=MmrCandidate)


def mmr_select(
    candidates: Sequence[CandidateT],
    *,
    lambda_: float = MMR_LAMBDA,
    limit: int | None = None,
    similarity: PairSimilarity | None = None,
    relevance: Sequence[float] | None = None,
    compare_all: bool = False,
) -> tuple[CandidateT, ...]:
    """Pick up to ``limit`` candidates greedily, trading relevance against redundancy.

    A candidate without a vector takes redundancy penalty 0, and a selected candidate without a
    vector adds nothing to anyone's penalty: an unknown similarity is not a small one. Fabricating
    a distance instead would shuffle vectorless candidates out of their fused order. Equal
    marginal scores go to the candidate earlier in the input, so the result is deterministic.

    At ``lambda_ >= 1`` the input comes back unchanged (cut to ``limit``) without a single cosine:
    the pass would spend O(n²) comparisons reproducing the order it was handed.

    Args:
        candidates: Candidates in ranked order, best first; the order is the relevance.
        lambda_: The relevance weight, at least 0.
        limit: How many to pick; ``None`` picks them all (a full reordering).
        similarity: The similarity of ``candidates[i]`` and ``candidates[j]``, asked only when
            both carry vectors; ``None`` computes the cosine of their vectors
            (:func:`~memhtml.domain.vectors.cosine_lookup`). A caller that already holds the
            pool's pairwise table passes it here so the O(n²) comparisons are lookups.
        relevance: Each candidate's relevance in [0, 1] (e.g. its fused score over the best);
            ``None`` reads it from the order, ``1 − i/n``.
        compare_all: Ask ``similarity`` about every pair, vectors or not (a similarity that
            falls back to the candidates' text); otherwise a candidate without a vector is
            never penalised and never penalises.

    Returns:
        The picked candidates in pick order, each at most once.

    Raises:
        InvalidInput: When ``lambda_`` is negative or not finite, or ``limit`` is negative.
    """
    if not (math.isfinite(lambda_) and lambda_ >= 0):
        raise InvalidInput(f"MMR lambda must be a finite number >= 0, got {lambda_!r}")
    if limit is not None and limit < 0:
        raise InvalidInput(f"limit must be >= 0, got {limit!r}")
    wanted = len(candidates) if limit is None else min(limit, len(candidates))
    if lambda_ >= 1:
        return tuple(candidates[:wanted])

    if relevance is not None and len(relevance) != len(candidates):
        raise InvalidInput("relevance must give one value per candidate")
    similar = similarity or cosine_lookup([c.vector for c in candidates])
    has_vector = [compare_all or c.vector is not None for c in candidates]
    remaining = list(range(len(candidates)))
    # Highest similarity to anything picked so far, per candidate; None until a picked
    # candidate with a vector has been compared with it.
    max_sim: list[float | None] = [None] * len(candidates)
    picked: list[CandidateT] = []
    n = len(candidates)
    rel = list(relevance) if relevance is not None else [1.0 - i / n for i in range(n)]
    while len(picked) < wanted:
        best = max(
            remaining,
            key=lambda i: (
                lambda_ * rel[i] - (1 - lambda_) * (max_sim[i] or 0.0),
                -i,
            ),
        )
        remaining.remove(best)
        picked.append(candidates[best])
        if not has_vector[best]:
            continue
        for i in remaining:
            if not has_vector[i]:
                continue
            sim = similar(best, i)
            current = max_sim[i]
            # max(current, sim) spelled out: this line runs for every compared pair.
            if current is None or sim > current:
                max_sim[i] = sim
    return tuple(picked)
