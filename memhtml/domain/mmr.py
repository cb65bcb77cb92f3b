"""Maximal marginal relevance: the diversification pass after fusion and polarity.

Greedy selection: each step picks the candidate maximising
``λ·relevance − (1−λ)·max_sim_to_selected``. Relevance is the candidate's ``score``, which the
polarity step sets to its reciprocal fused position (``1/position``, lowered for a demoted twin).
Fused sums are not comparable across queries, so a monotone stand-in for rank is the honest
input; diversification only needs the order to be right.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, Protocol, TypeVar

from memhtml.domain.errors import InvalidInput
from memhtml.domain.vectors import cosine_similarity

MMR_LAMBDA: Final = 0.5
"""Weight of relevance against redundancy; 1 means pure relevance (no diversification)."""


class MmrCandidate(Protocol):
    """What MMR reads from a candidate: its relevance and, when known, its vector."""

    @property
    def score(self) -> float:
        """Relevance, higher first (the polarity step's reciprocal-rank score)."""
        ...

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
) -> tuple[CandidateT, ...]:
    """Pick up to ``limit`` candidates greedily, trading relevance against redundancy.

    A candidate without a vector takes redundancy penalty 0, and a selected candidate without a
    vector adds nothing to anyone's penalty: an unknown similarity is not a small one. Fabricating
    a distance instead would shuffle vectorless candidates out of their fused order. Equal
    marginal scores go to the candidate earlier in the input, so the result is deterministic.

    At ``lambda_ >= 1`` the input comes back unchanged (cut to ``limit``) without a single cosine:
    the pass would spend O(n²) comparisons reproducing the order it was handed.

    Args:
        candidates: Candidates in ranked order (score non-increasing).
        lambda_: The relevance weight, at least 0.
        limit: How many to pick; ``None`` picks them all (a full reordering).

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

    remaining = list(range(len(candidates)))
    # Highest similarity to anything picked so far, per candidate; None until a picked
    # candidate with a vector has been compared with it.
    max_sim: list[float | None] = [None] * len(candidates)
    picked: list[CandidateT] = []
    while len(picked) < wanted:
        best = max(
            remaining,
            key=lambda i: (
                lambda_ * candidates[i].score - (1 - lambda_) * (max_sim[i] or 0.0),
                -i,
            ),
        )
        remaining.remove(best)
        chosen = candidates[best]
        picked.append(chosen)
        chosen_vector = chosen.vector
        if chosen_vector is None:
            continue
        for i in remaining:
            other = candidates[i].vector
            if other is None:
                continue
            sim = cosine_similarity(chosen_vector, other)
            current = max_sim[i]
            max_sim[i] = sim if current is None else max(current, sim)
    return tuple(picked)
