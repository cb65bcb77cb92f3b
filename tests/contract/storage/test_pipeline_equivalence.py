"""The whole search and recall pipeline over each backend: the same hits, order and ranks.

The pipeline is one piece of application code; only storage differs. Generated stores and
queries must give identical results, which is the proof that nothing SQLite-shaped leaked
into a port.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memhtml.adapters.numpy import NumpyPairwiseCosine
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.bootstrap import retrieval_over
from memhtml.domain.scope import SearchScope
from memhtml.ports.retrieval import (
    RankingOptions,
    RecallRequest,
    RecallResult,
    SearchRequest,
    SearchResult,
)
from tests.contract.storage.corpora import (
    EMBEDDER,
    Reinforcement,
    memories,
    populate,
    queries,
    reinforcements,
)
from tests.contract.storage.harness import BACKENDS, Memory, open_backend

CLOCK = FixedClock(dt.datetime(2026, 9, 20, tzinfo=dt.UTC))
options = st.builds(
    RankingOptions,
    arms=st.sampled_from(
        (
            None,
            ("fts", "vector"),
            ("fts", "recency"),
            ("vector", "salience"),
            ("context", "vector"),
            ("fts", "context"),
        )
    ),
    gate_priors=st.booleans(),
    fts_stopwords=st.booleans(),
    evidence_first=st.booleans(),
    vector_floor=st.sampled_from((None, 0.2)),
    mmr_lambda=st.sampled_from((0.5, 1.0)),
    mmr_relevance=st.sampled_from(("rank", "fused")),
    mmr_text=st.booleans(),
    prior_bound=st.sampled_from((None, 0.04)),
    prf_depth=st.sampled_from((0, 0, 3)),
    prf_weight=st.sampled_from((0.5, 1.0)),
    prf_pick=st.sampled_from(("nearest", "mean")),
    prf_source=st.sampled_from(("words", "fused")),
)
scopes = st.builds(
    SearchScope,
    tags=st.sampled_from(((), (), (), ("billing",))),
    entity=st.sampled_from((None, None, None, "person:sasha")),
    include_archived=st.booleans(),
)


def run(
    kind: str,
    corpus: Sequence[Memory],
    replays: Sequence[Reinforcement],
    search: SearchRequest,
    recall: RecallRequest,
) -> tuple[SearchResult, RecallResult]:
    """The pipeline's answers over one backend."""
    with open_backend(kind) as storage:
        populate(storage, corpus, replays)
        pipeline = retrieval_over(
            storage, clock=CLOCK, embedder=EMBEDDER, similarity=NumpyPairwiseCosine()
        )
        return pipeline.search(search), pipeline.recall(recall)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=memories(),
    replays=reinforcements,
    query=queries,
    ranking=options,
    scope=scopes,
    limit=st.integers(1, 12),
)
def test_search_and_recall_agree_over_every_backend(
    corpus: tuple[Memory, ...],
    replays: list[Reinforcement],
    query: str,
    ranking: RankingOptions,
    scope: SearchScope,
    limit: int,
) -> None:
    """Hits, their order, ranks, scores, snippets and entities; the recall pack, whole."""
    search = SearchRequest(query=query, scope=scope, limit=limit, options=ranking)
    recall = RecallRequest(query=query, scope=scope, options=ranking)
    (sqlite_search, sqlite_recall), (memory_search, memory_recall) = (
        run(kind, corpus, replays, search, recall) for kind in BACKENDS
    )
    event(f"hits: {min(len(sqlite_search.hits), 3)}+")
    assert sqlite_search == memory_search
    assert sqlite_recall == memory_recall
