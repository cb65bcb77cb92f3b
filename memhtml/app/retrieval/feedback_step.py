"""Dense pseudo-relevance feedback as a pipeline step: find the feedback memories, move the
query vector toward them, fuse.

With ``--prf-depth n`` the query vector is moved toward the vectors of ``n`` memories taken as
relevant (``domain.feedback``). Which ones ``--prf-source`` says: ``words``, the own-text arm's
best matches, ranked by a statement of that arm alone before the fusion (the planner runs it
before it waits for the query's vector) whose list the fusion then reads as its fts arm, so
nothing is matched twice; or ``fused``, the top of a first fusion, so the whole statement runs
twice. Off (depth 0), or without a query vector, it is one
``fused_ranks`` call as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from memhtml.domain.feedback import FEEDBACK_WORD_ARMS, document_direction, rocchio
from memhtml.domain.fts_query import LexicalQuery
from memhtml.domain.fusion import ArmNeed, Fused, active_arms
from memhtml.domain.scope import SearchScope
from memhtml.domain.vectors import unpack_f32
from memhtml.ports.embedder import Vector
from memhtml.ports.rank_store import FusionQuery, RankStore
from memhtml.ports.retrieval import RankingOptions


def word_pass(
    ranks: RankStore,
    options: RankingOptions,
    *,
    lexical: LexicalQuery | None,
    scope: SearchScope,
    now: str,
    arm_limit: int,
) -> tuple[str, ...] | None:
    """The own-text arm's list, ranked by a fusion of that arm alone, when ``words`` feedback
    reads it: its first ``options.prf_depth`` are the feedback memories, and the whole list is
    the fts arm of the fusion that follows (``FusionQuery.fts_ranked``), so the arm is not
    matched twice.

    The arm is fused alone at its registry weight and k, whose order is its rank order
    whatever weight or k the query's fusion uses. ``None`` when feedback is off or reads the
    first fusion, the query has no terms, or the arm is not selected.
    """
    if options.prf_depth <= 0 or options.prf_source != "words" or lexical is None:
        return None
    arms = tuple(
        arm
        for arm in active_arms({ArmNeed.QUERY_TERMS}, selection=options.arms)
        if arm.name in FEEDBACK_WORD_ARMS
    )
    if not arms:
        return None
    query = FusionQuery(
        arms=arms,
        scope=scope,
        lexical=lexical,
        now=now,
        limit=arm_limit,
        arm_limit=arm_limit,
    )
    return tuple(f.path for f in ranks.fused_ranks(query))


def fused_with_feedback(
    ranks: RankStore,
    options: RankingOptions,
    query: FusionQuery,
    *,
    word_paths: Sequence[str] = (),
) -> tuple[Fused, ...]:
    """``ranks.fused_ranks(query)``, with the query vector moved when feedback is on.

    Args:
        ranks: The rank store.
        options: The feedback switches.
        query: The planned fusion.
        word_paths: With the ``words`` source, the word pass's list (:func:`word_pass`),
            whose first ``options.prf_depth`` the vector moves toward.

    Returns:
        The fused ranks with the moved vector (``words``: the only fusion; ``fused``: the
        second one), or with the query's own when nothing moves.
    """
    if options.prf_depth <= 0 or query.vector is None or not query.embed_model:
        return ranks.fused_ranks(query)
    if options.prf_source == "words":
        moved = feedback_vector(ranks, word_paths, query.vector, query.embed_model, options)
        return ranks.fused_ranks(query if moved is None else attrs.evolve(query, vector=moved))
    fused = ranks.fused_ranks(query)
    moved = feedback_vector(
        ranks, [f.path for f in fused], query.vector, query.embed_model, options
    )
    if moved is None:
        return fused
    return ranks.fused_ranks(attrs.evolve(query, vector=moved))


def feedback_vector(
    ranks: RankStore,
    ranked: Sequence[str],
    query_vector: Vector,
    model: str,
    options: RankingOptions,
) -> Vector | None:
    """The query vector moved toward the first ``options.prf_depth`` paths of ``ranked``.

    ``None`` when none of them has a vector in ``model`` (or the move cancels out).
    """
    paths = list(ranked[: options.prf_depth])
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
