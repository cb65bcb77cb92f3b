"""Bytes → extract in chunks: chunking does not matter, a torn last line waits, a tail from
any consumed offset merges back into the whole, oversized lines stream past."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.trace_extract import merge_extracts
from memhtml.domain.trace_scanner import ScanOutcome, TranscriptScanner
from tests.strategies import transcript_lines

PROMPT = (
    b'{"type":"user","sessionId":"s","uuid":"u1","timestamp":"2026-01-01T00:00:00Z",'
    b'"message":{"role":"user","content":"hello"}}\n'
)


def scan(
    data: bytes, *, start: int = 0, cuts: list[int] | None = None, cap: int = 1 << 20
) -> ScanOutcome:
    """Feed ``data`` (the file's bytes from ``start``) cut at ``cuts``."""
    scanner = TranscriptScanner(start, max_line_bytes=cap)
    edges = [0, *sorted(set(cuts or [])), len(data)]
    for a, b in itertools.pairwise(edges):
        scanner.feed(data[a:b])
    return scanner.finish()


@given(transcript_lines, st.lists(st.integers(min_value=0, max_value=4000), max_size=8))
def test_chunk_boundaries_do_not_change_the_outcome(lines: list[bytes], cuts: list[int]) -> None:
    """Any cutting of the same bytes gives the same outcome as feeding them whole."""
    data = b"".join(lines)
    assert scan(data) == scan(data, cuts=[c for c in cuts if c <= len(data)])


@given(transcript_lines, st.data())
def test_a_tail_from_the_consumed_end_merges_back_into_the_whole(
    lines: list[bytes], data: st.DataObject
) -> None:
    """Scan a prefix, then the rest from its ``end``: the merge is the whole file's extract."""
    whole = b"".join(lines)
    cut = data.draw(st.integers(min_value=0, max_value=len(whole)))
    head = scan(whole[:cut])
    tail = scan(whole[head.end :], start=head.end)
    full = scan(whole)
    assert (full.extract, full.end) == (merge_extracts(head.extract, tail.extract), tail.end)


def test_a_torn_last_line_is_left_pending() -> None:
    """Bytes after the last newline are not consumed: ``end`` stops before them."""
    torn = PROMPT + PROMPT[:30]
    outcome = scan(torn)
    assert (len(PROMPT), 30, 1) == (outcome.end, outcome.pending, len(outcome.extract.prompts))


def test_crlf_and_blank_lines_are_read_as_lines() -> None:
    """A CRLF line is read; a blank line is no record but is consumed."""
    data = PROMPT.replace(b"\n", b"\r\n") + b"\n\n"
    outcome = scan(data)
    assert (len(data), 1, 1) == (outcome.end, outcome.counts.lines, outcome.counts.prompts)


def test_an_oversized_line_streams_past_and_is_counted() -> None:
    """A line over the cap is dropped (even cut in pieces) and the next line still reads."""
    huge = b'{"type":"user","pad":"' + b"x" * 5000 + b'"}\n'
    data = huge + PROMPT
    outcome = scan(data, cap=1000, cuts=list(range(0, len(data), 700)))
    assert (1, 1, 2, len(data)) == (
        outcome.counts.oversized,
        outcome.counts.prompts,
        outcome.counts.lines,
        outcome.end,
    )


def test_binary_garbage_names_no_session() -> None:
    """Random bytes: every line malformed, no session, nothing raised."""
    garbage = bytes(range(256)) * 40 + b"\n"
    outcome = scan(garbage)
    assert (None, 0, outcome.counts.lines) == (
        outcome.extract.session_id,
        len(outcome.extract.prompts),
        outcome.counts.malformed,
    )
    assert outcome.counts.lines > 0
