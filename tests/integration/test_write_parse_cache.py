"""The write path's parse cache: what it hands the indexer is a parse, and only of those bytes."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.adapters.sqlite.parsing import ParseSettings, RecallingParser, parse_files
from memhtml.app.bootstrap import parse_memory_lazily
from memhtml.app.use_cases.collaborators import ParseCache
from memhtml.domain.model import MemoryDoc
from tests.integration.test_indexer_parsing import POOL, corpus, serial_outcomes


class _Refusing:
    """A parser that must not be reached: every document was handed over."""

    def __call__(self, data: bytes) -> MemoryDoc:
        raise AssertionError("parsed a file the cache knew")


def test_a_cache_answers_only_for_the_exact_bytes_it_was_given() -> None:
    """Remembered bytes come back without parsing; any other bytes, even one byte off, parse."""
    first, second = corpus()[:2]
    cache = ParseCache(parse_memory)
    doc = parse_memory(first.data)
    cache.remember({first.data: doc})
    assert (doc, None) == (cache.recall(first.data), cache.recall(first.data + b"\n"))
    assert parse_memory(second.data) == cache(second.data)
    cache.forget()
    assert cache.recall(first.data) is None


def test_a_cache_pickles_as_its_bare_parser() -> None:
    """A process pool receives the module-level parser and none of the documents."""
    cache = ParseCache(parse_memory_lazily)
    cache.remember({corpus()[0].data: parse_memory(corpus()[0].data)})
    assert parse_memory_lazily is pickle.loads(pickle.dumps(cache))
    assert isinstance(cache, RecallingParser)
    assert not isinstance(parse_memory, RecallingParser)


@settings(max_examples=25, deadline=None)
@given(known=st.sets(st.integers(0, 6)), pooled=st.booleans())
def test_parsing_with_a_cache_equals_parsing_without(known: set[int], pooled: bool) -> None:
    """Recalled documents and fresh parses come back together, in input order, unchanged."""
    files = corpus()
    cache = ParseCache(parse_memory)
    cache.remember({files[i].data: parse_memory(files[i].data) for i in known if i < 6})
    outcomes = parse_files(files, cache, POOL if pooled else ParseSettings(workers=1))
    assert serial_outcomes() == outcomes


def test_a_fully_known_batch_never_reaches_the_parser() -> None:
    """When every file was handed over, nothing is parsed (nor a pool started)."""
    files = corpus()[:6]
    cache = ParseCache(_Refusing())
    cache.remember({file.data: parse_memory(file.data) for file in files})
    assert serial_outcomes()[:6] == parse_files(files, cache, POOL)
