"""The query vector started ahead: only in a warm process, only for the same text, same answer."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.retrieval.query_prefetch import QueryPrefetch
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable


class CountingEmbedder:
    """Records which thread embedded which text; can be told to fail."""

    watermark = "counting@2"

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.fail = False

    def embed_query(self, text: str) -> Vector:
        self.calls.append((text, threading.current_thread().name))
        if self.fail:
            raise ModelUnavailable("the model went away")
        return (float(len(text)), 1.0)


def test_a_cold_process_starts_nothing_ahead() -> None:
    inner = CountingEmbedder()
    prefetch = QueryPrefetch(inner)
    prefetch.prefetch("ledger")
    assert ([], False) == (inner.calls, prefetch.warm)
    assert (6.0, 1.0) == prefetch.embed_query("ledger")
    assert [("ledger", threading.current_thread().name)] == inner.calls
    assert prefetch.warm


def test_a_warm_process_embeds_ahead_once_on_the_worker_thread() -> None:
    inner = CountingEmbedder()
    prefetch = QueryPrefetch(inner)
    prefetch.embed_query("warm up")
    prefetch.prefetch("ledger lock")
    assert (11.0, 1.0) == prefetch.embed_query("ledger lock")
    texts = [text for text, _ in inner.calls]
    worker = inner.calls[-1][1]
    assert ["warm up", "ledger lock"] == texts
    assert worker != threading.current_thread().name


def test_a_vector_started_for_another_text_is_never_returned() -> None:
    inner = CountingEmbedder()
    prefetch = QueryPrefetch(inner)
    prefetch.embed_query("warm up")
    prefetch.prefetch("first")
    assert (6.0, 1.0) == prefetch.embed_query("second")
    # The stale one is dropped, not handed to the next search either.
    assert (5.0, 1.0) == prefetch.embed_query("first")


def test_a_failure_ahead_is_raised_to_the_search_that_asks() -> None:
    inner = CountingEmbedder()
    prefetch = QueryPrefetch(inner)
    prefetch.embed_query("warm up")
    inner.fail = True
    prefetch.prefetch("ledger")
    with pytest.raises(ModelUnavailable):
        prefetch.embed_query("ledger")


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["a", "bb", "ccc"])), max_size=12))
def test_every_answer_is_the_plain_embedders(steps: list[tuple[bool, str]]) -> None:
    inner = CountingEmbedder()
    prefetch = QueryPrefetch(inner)
    for ahead, text in steps:
        if ahead:
            prefetch.prefetch(text)
        else:
            assert inner.embed_query(text) == prefetch.embed_query(text)
