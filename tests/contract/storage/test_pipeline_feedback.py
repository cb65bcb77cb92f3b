"""Dense pseudo-relevance feedback through the whole pipeline, over every backend.

The top memory's vector pulls in a memory that shares its words but none of the query's: the
lever's reason to exist (issue 13 item 6, docs/ranking.md §3.2), whether the top memory is the
first fusion's or the own-text arm's.
"""

from __future__ import annotations

import pytest

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.numpy import NumpyPairwiseCosine
from memhtml.app.bootstrap import retrieval_over
from memhtml.domain.vectors import pack_f32
from memhtml.ports.retrieval import RankingOptions, SearchRequest
from memhtml.ports.storage import Storage
from memhtml.ports.vector_store import StoredVector
from tests.contract.storage.harness import BACKENDS, NOW, Memory, open_backend, write
from tests.contract.storage.test_pipeline_equivalence import CLOCK

# Wide enough that these few words do not collide (the shared corpora's 16 dimensions do);
# the bystanders' paths sort first, so on a tie at similarity 0 they rank above the sibling.
EMBEDDER = HashingEmbedder(256)

FOUND = Memory(path="areas/birds/kestrel.html", claim="Kestrel falcon harrier osprey hawk.")
SIBLING = Memory(path="areas/birds/raptors.html", claim="Falcon harrier osprey hawk buzzard.")
OTHERS = tuple(
    Memory(path=f"areas/aa/other-{n}.html", claim=claim)
    for n, claim in enumerate(
        (
            "The ledger pool drains at noon.",
            "Invoice export runs nightly.",
            "Deploy the cache warmer weekly.",
            "Sasha reviews the budget.",
            "Backups rotate every Sunday.",
            "The printer jams on thick paper.",
        )
    )
)
QUERY = "kestrel"


def populate(storage: Storage) -> None:
    """Write the memories and embed every chunk."""
    write(storage, (FOUND, SIBLING, *OTHERS))
    pending = storage.vectors.pending_chunks(EMBEDDER.watermark)
    storage.vectors.put_vectors(
        [
            StoredVector(chunk_id=chunk.chunk_id, blob=pack_f32(vector))
            for chunk, vector in zip(
                pending, EMBEDDER.embed([chunk.text for chunk in pending]), strict=True
            )
        ],
        model=EMBEDDER.watermark,
        dim=EMBEDDER.dim,
        created_at=NOW,
    )


def vector_ranks(kind: str, options: RankingOptions) -> dict[str, int]:
    """Each hit's vector-arm rank for ``QUERY`` on one backend."""
    with open_backend(kind) as storage:
        populate(storage)
        pipeline = retrieval_over(
            storage, clock=CLOCK, embedder=EMBEDDER, similarity=NumpyPairwiseCosine()
        )
        hits = pipeline.search(SearchRequest(query=QUERY, limit=8, options=options)).hits
    return {hit.path: dict(hit.ranks)["vector"] for hit in hits if "vector" in dict(hit.ranks)}


@pytest.mark.parametrize(("source", "arms"), [("fused", ("vector",)), ("words", ("fts", "vector"))])
@pytest.mark.parametrize("kind", BACKENDS)
def test_feedback_lifts_the_first_hits_sibling_in_the_vector_arm(
    kind: str, source: str, arms: tuple[str, ...]
) -> None:
    """With feedback from the top memory (of a first fusion, or of the words), its sibling
    climbs in the vector arm; the top memory stays first."""
    plain = vector_ranks(kind, RankingOptions(arms=arms, prf_depth=0))
    fed = vector_ranks(
        kind, RankingOptions(arms=arms, prf_depth=1, prf_weight=1.0, prf_source=source)
    )
    assert (1, 1) == (plain[FOUND.path], fed[FOUND.path])
    assert (2, True) == (fed[SIBLING.path], plain[SIBLING.path] > 2)


@pytest.mark.parametrize("kind", BACKENDS)
def test_words_feedback_needs_the_own_text_arm(kind: str) -> None:
    """Without the fts arm selected there are no words to read: the vector stays put."""
    plain = vector_ranks(kind, RankingOptions(arms=("vector",), prf_depth=0))
    fed = vector_ranks(kind, RankingOptions(arms=("vector",), prf_depth=1, prf_weight=1.0))
    assert plain == fed
