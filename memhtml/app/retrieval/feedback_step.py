"""Dense pseudo-relevance feedback as a pipeline step: fuse, move the query vector, fuse again.

With ``--prf-depth n`` the planner's fused ranking is asked twice: once with the query vector,
then with that vector moved toward the top ``n`` memories' vectors (``domain.feedback``). Off
(depth 0, the default), or without a query vector, it is one ``fused_ranks`` call as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from memhtml.domain.feedback import document_direction, rocchio
from memhtml.domain.fusion import Fused
from memhtml.domain.vectors import unpack_f32
from memhtml.ports.embedder import Vector
from memhtml.ports.rank_store import FusionQuery, RankStore
from memhtml.ports.retrieval import RankingOptions


def fused_with_feedback(
    ranks: RankStore, options: RankingOptions, query: FusionQuery
) -> tuple[Fused, ...]:
    """``ranks.fused_ranks(query)``, or, with feedback on and a vector moved, the second
    fusion's ranks (same arms and constants, the moved vector)."""
    fused = ranks.fused_ranks(query)
    if options.prf_depth <= 0 or query.vector is None or not query.embed_model:
        return fused
    moved = feedback_vector(ranks, fused, query.vector, query.embed_model, options)
    if moved is None:
        return fused
    return ranks.fused_ranks(attrs.evolve(query, vector=moved))


def feedback_vector(
    ranks: RankStore,
    fused: Sequence[Fused],
    query_vector: Vector,
    model: str,
    options: RankingOptions,
) -> Vector | None:
    """The query vector moved toward the top ``options.prf_depth`` fused memories.

    ``None`` when none of them has a vector in ``model`` (or the move cancels out).
    """
    paths = [f.path for f in fused[: options.prf_depth]]
    if not paths:
        return None
    blobs = ranks.chunk_vectors(paths, model)
    directions = []
    for path in paths:
        chunks = [unpack_f32(blob) for blob in blobs.get(path, ())]
        direction = document_direction(query_vector, chunks, options.prf_pick)
        if direction is not None:
            directions.append(direction)
    if not directions:
        return None
    return rocchio(query_vector, directions, options.prf_weight)
