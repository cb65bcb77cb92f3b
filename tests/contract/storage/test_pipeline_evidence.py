"""Query evidence first, through the whole pipeline under the default ranking options: a
memory that every query arm that ran ranked first is hit 1, whatever recency, salience and
MMR say (issue 13; polarity aside, so the corpus holds no negation)."""

from __future__ import annotations

import attrs
from hypothesis import HealthCheck, event, given, settings

from memhtml.adapters.numpy import NumpyPairwiseCosine
from memhtml.app.bootstrap import retrieval_over
from memhtml.domain.fusion import RANK_ARMS, ArmKind
from memhtml.ports.retrieval import SearchRequest
from tests.contract.storage.corpora import (
    EMBEDDER,
    Reinforcement,
    memories,
    populate,
    queries,
    reinforcements,
)
from tests.contract.storage.harness import Memory, open_backend
from tests.contract.storage.test_pipeline_equivalence import CLOCK

QUERY_ARMS = frozenset(arm.name for arm in RANK_ARMS if arm.kind is ArmKind.QUERY)


def without_negation(memory: Memory) -> Memory:
    """The memory with "not" taken out of every text polarity reads."""

    def plain(text: str) -> str:
        return " ".join(word for word in text.split(" ") if word.lower() not in ("not", "not."))

    return attrs.evolve(
        memory,
        claim=plain(memory.claim) or "Cache.",
        title=plain(memory.title) or "Cache",
        body=tuple(plain(b) for b in memory.body if plain(b)),
    )


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=memories(), replays=reinforcements, query=queries)
def test_first_in_every_query_arm_is_hit_one(
    corpus: tuple[Memory, ...], replays: list[Reinforcement], query: str
) -> None:
    """Defaults only: no option is set, so this pins what a user gets."""
    plain = tuple(without_negation(memory) for memory in corpus)
    claims = [memory.claim for memory in plain]
    if len(set(claims)) != len(claims):  # taking words out can make two claims equal
        return
    with open_backend("memory") as storage:
        populate(storage, plain, replays)
        pipeline = retrieval_over(
            storage, clock=CLOCK, embedder=EMBEDDER, similarity=NumpyPairwiseCosine()
        )
        result = pipeline.search(SearchRequest(query=query.replace("not", "cache")))
    ran = QUERY_ARMS & set(result.arms)
    leaders = [hit for hit in result.hits if ran and all((arm, 1) in hit.ranks for arm in ran)]
    event(f"leader: {bool(leaders)}")
    if leaders:
        assert leaders[0].path == result.hits[0].path
