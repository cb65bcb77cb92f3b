"""Documents handed to the parser pool: what it takes is a parse, and only of those bytes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.indexing.parse_pool import ParseSettings, SourceFile, parse_files
from memhtml.domain.model import MemoryDoc
from tests.integration.test_indexer_parsing import POOL, corpus, serial_outcomes


class _Refusing:
    """A parser that must not be reached: every document was handed over."""

    def __call__(self, data: bytes) -> MemoryDoc:
        raise AssertionError("parsed a file whose document was handed over")


class _Counting:
    """``parse_memory`` that records the bytes it really parses."""

    def __init__(self) -> None:
        self.parsed: list[bytes] = []

    def __call__(self, data: bytes) -> MemoryDoc:
        self.parsed.append(data)
        return parse_memory(data)


def test_a_known_document_is_taken_only_for_the_exact_bytes() -> None:
    """Handed-over bytes are not parsed; the same file one byte off is."""
    first = corpus()[0]
    parser = _Counting()
    changed = first.data + b"\n"
    files = [first, SourceFile(path="areas/x.html", blob_sha="0" * 40, data=changed)]
    parse_files(
        files, parser, ParseSettings(workers=1), known={first.data: parse_memory(first.data)}
    )
    assert [changed] == parser.parsed


@settings(max_examples=25, deadline=None)
@given(known=st.sets(st.integers(0, 6)), pooled=st.booleans())
def test_parsing_with_known_documents_equals_parsing_without(known: set[int], pooled: bool) -> None:
    """Handed-over documents and fresh parses come back together, in input order, unchanged."""
    files = corpus()
    held = {files[i].data: parse_memory(files[i].data) for i in known if i < 6}
    outcomes = parse_files(
        files, parse_memory, POOL if pooled else ParseSettings(workers=1), known=held
    )
    assert serial_outcomes() == outcomes


def test_a_fully_known_batch_never_reaches_the_parser() -> None:
    """When every file was handed over, nothing is parsed (nor a pool started)."""
    files = corpus()[:6]
    held = {file.data: parse_memory(file.data) for file in files}
    assert serial_outcomes()[:6] == parse_files(files, _Refusing(), POOL, known=held)
