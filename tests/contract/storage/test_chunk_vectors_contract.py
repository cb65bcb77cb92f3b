"""``RankStore.chunk_vectors`` over every backend: each path's vectors in one space, in order.

Dense pseudo-relevance feedback reads the first round's memories through it
(``app/retrieval/feedback_step.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memhtml.domain.vectors import pack_f32
from memhtml.ports.storage import Storage
from tests.contract.storage.corpora import EMBEDDER, populate
from tests.contract.storage.harness import BACKENDS, Memory, open_backend

SHORT = Memory(path="resources/billing/invoice.html", claim="The invoice export runs nightly.")
LONG = Memory(
    path="areas/ops/runbook.html",
    claim="The runbook covers the nightly export.",
    body=tuple(f"Step {n}: " + " ".join(f"word{n}x{i}" for i in range(120)) for n in range(6)),
)
BARE = "areas/none.html"


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """A fresh store of each backend."""
    with open_backend(request.param) as opened:
        yield opened


def expected_blobs(memory: Memory) -> tuple[bytes, ...]:
    """What the hashing embedder stored for each of the memory's chunks, in chunk order."""
    chunks = sorted(memory.projection().chunks, key=lambda chunk: chunk.ordinal)
    return tuple(pack_f32(EMBEDDER.embed([chunk.text])[0]) for chunk in chunks)


def test_every_chunk_vector_of_each_path_comes_back_in_chunk_order(storage: Storage) -> None:
    """A several-chunk memory gives all its vectors by ordinal; unknown paths are absent."""
    populate(storage, [SHORT, LONG])
    found = storage.ranks.chunk_vectors([LONG.path, SHORT.path, BARE], EMBEDDER.watermark)
    assert {LONG.path: expected_blobs(LONG), SHORT.path: expected_blobs(SHORT)} == dict(found)
    assert len(found[LONG.path]) > 1


def test_only_the_asked_space_and_the_listed_paths_answer(storage: Storage) -> None:
    """Another space has no vectors; a path left out of the list is left out of the answer."""
    populate(storage, [SHORT, LONG])
    assert {} == dict(storage.ranks.chunk_vectors([SHORT.path, LONG.path], "another@4"))
    assert [SHORT.path] == list(storage.ranks.chunk_vectors([SHORT.path], EMBEDDER.watermark))
    assert {} == dict(storage.ranks.chunk_vectors([], EMBEDDER.watermark))
