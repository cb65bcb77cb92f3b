"""The MMR step of a search, configured by the query's ranking options."""

from __future__ import annotations

from collections.abc import Sequence

from memhtml.app.retrieval.polarity_pool import PolarityPool
from memhtml.domain.fusion import Fused
from memhtml.domain.mmr import mmr_select
from memhtml.domain.polarity import POLARITY_DEMOTION, PolarityScored
from memhtml.domain.text_similarity import with_text_fallback
from memhtml.domain.vectors import cosine_lookup
from memhtml.ports.retrieval import RankingOptions


def diversify(
    pool: PolarityPool, fused: Sequence[Fused], options: RankingOptions, limit: int
) -> tuple[PolarityScored, ...]:
    """Pick ``limit`` candidates from the post-polarity pool by MMR (or in order at λ = 1).

    Relevance is the order's ``1 − i/n`` or, with ``mmr_relevance="fused"``, each candidate's
    fused score over the best (halved for a demoted polarity twin). With ``mmr_text`` a
    candidate without a vector is compared with the others by its words.
    """
    scored = pool.scored
    relevance = None
    if options.mmr_relevance == "fused" and scored:
        by_path = {f.path: f.score for f in fused}
        best = max(by_path[s.path] for s in scored) or 1.0
        relevance = [
            by_path[s.path] / best * (POLARITY_DEMOTION if s.demoted else 1.0) for s in scored
        ]
    similarity = pool.mmr_similarity
    compare_all = False
    if options.mmr_text and options.mmr_lambda < 1:
        vectors = [s.vector for s in scored]
        similarity = with_text_fallback(
            similarity or cosine_lookup(vectors),
            [v is not None for v in vectors],
            [s.gist for s in scored],
        )
        compare_all = True
    return mmr_select(
        scored,
        lambda_=options.mmr_lambda,
        limit=limit,
        similarity=similarity,
        relevance=relevance,
        compare_all=compare_all,
    )
