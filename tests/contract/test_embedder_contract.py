"""The embedding contract: every embedder passes the same assertions.

Later embedders (local ONNX, Bedrock-stubbed) join by adding a factory to EMBEDDERS.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.hashing.embedder import HashingEmbedder

EMBEDDERS: dict[str, Callable[[], HashingEmbedder]] = {
    "hashing-256": HashingEmbedder,
    "hashing-16": lambda: HashingEmbedder(16),
}

TEXTS = (
    "",
    "The search API allows 300 requests per minute.",
    "déployé sur le serveur — 東京 😀",
    "word " * 5000,
)


@pytest.fixture(params=sorted(EMBEDDERS))
def embedder(request: pytest.FixtureRequest) -> HashingEmbedder:
    return EMBEDDERS[request.param]()


def _norm(v: tuple[float, ...]) -> float:
    return math.sqrt(sum(x * x for x in v))


def test_dimension_matches_watermark(embedder: HashingEmbedder) -> None:
    """Every vector has the dimension the watermark states."""
    dim = int(embedder.watermark.rsplit("@", 1)[1])
    assert [dim] * len(TEXTS) == [len(v) for v in embedder.embed(TEXTS)]


def test_vectors_have_unit_norm(embedder: HashingEmbedder) -> None:
    """Empty, long and non-ASCII texts all come back L2-normalised."""
    assert all(abs(_norm(v) - 1.0) < 1e-6 for v in embedder.embed(TEXTS))


def test_batch_equals_one_by_one(embedder: HashingEmbedder) -> None:
    """A batch result equals embedding each text alone, and queries share the space."""
    batch = embedder.embed(TEXTS)
    assert batch == tuple(embedder.embed([t])[0] for t in TEXTS)
    assert batch == tuple(embedder.embed_query(t) for t in TEXTS)


@settings(max_examples=50)
@given(st.text(max_size=300))
def test_deterministic_across_instances(text: str) -> None:
    """Two instances give identical vectors: no per-process hash salt leaks in."""
    assert HashingEmbedder().embed([text]) == HashingEmbedder().embed([text])


def test_shared_words_are_closer_than_unrelated_text() -> None:
    """The fake still ranks lexical neighbours first, so vector paths are testable."""
    e = HashingEmbedder()
    a, b, c = e.embed(
        ["rate limit per key", "the rate limit per api key", "purple elephants dance"]
    )
    assert _dot(a, b) > _dot(a, c)


def _dot(x: tuple[float, ...], y: tuple[float, ...]) -> float:
    return sum(p * q for p, q in zip(x, y, strict=True))
