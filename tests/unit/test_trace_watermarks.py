"""The stat watermark's decision (skip / tail / rescan) and the trace plane's instants."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.trace_instants import (
    TRACE_INSTANT_LENGTH,
    instant_millis,
    instant_text,
    query_instant,
    trace_instant,
)
from memhtml.domain.trace_watermarks import Watermark, plan_scan, tail_confirmed

STORED = Watermark(size=100, mtime_ms=5_000, byte_off=90)


@pytest.mark.parametrize(
    ("stored", "size", "mtime_ms", "expected"),
    [
        (None, 100, 5_000, "rescan"),
        (STORED, 100, 5_000, "skip"),
        (STORED, 150, 6_000, "tail"),
        (STORED, 150, 5_000, "tail"),
        (STORED, 99, 6_000, "rescan"),
        (STORED, 100, 6_000, "rescan"),
        (Watermark(size=10, mtime_ms=5_000, byte_off=0), 20, 6_000, "rescan"),
    ],
    ids=["never", "unchanged", "grown", "grown-same-mtime", "shrunk", "rewritten", "nothing-read"],
)
def test_plan_scan_decides_from_the_stat(
    stored: Watermark | None, size: int, mtime_ms: int, expected: str
) -> None:
    """Unchanged → skip; grown → tail; shrunk, rewritten or never read → rescan."""
    assert expected == plan_scan(stored, size=size, mtime_ms=mtime_ms)


@given(st.integers(min_value=0, max_value=10**9), st.integers(), st.integers(0, 10**9))
def test_an_unchanged_stat_is_always_a_skip(size: int, mtime_ms: int, byte_off: int) -> None:
    """Whatever was consumed, the same size and mtime never reopen the file."""
    stored = Watermark(size=size, mtime_ms=mtime_ms, byte_off=min(byte_off, size))
    assert "skip" == plan_scan(stored, size=size, mtime_ms=mtime_ms)


def test_a_tail_needs_the_newline_it_consumed() -> None:
    """Only a newline before the tail's start confirms it."""
    assert (True, False, False) == (
        tail_confirmed(b"\n"),
        tail_confirmed(b"}"),
        tail_confirmed(b""),
    )


@given(st.integers(min_value=-62_135_596_800_000, max_value=253_402_300_799_999))
def test_instant_text_round_trips_every_millisecond(ms: int) -> None:
    """ms → text → ms is exact for years 1–9999, and the text is fixed-width."""
    text = instant_text(ms)
    assert text is not None
    assert (ms, TRACE_INSTANT_LENGTH) == (instant_millis(text), len(text))


@given(st.integers(min_value=0, max_value=2**40), st.integers(min_value=0, max_value=2**40))
def test_instant_text_sorts_like_the_instants(a: int, b: int) -> None:
    """String order is time order, so range filters compare text."""
    ta, tb = instant_text(a), instant_text(b)
    assert ta is not None
    assert tb is not None
    assert (a < b) == (ta < tb)


def test_transcript_timestamps_normalise_to_utc_milliseconds() -> None:
    """Zones convert, missing fractions become .000, junk is None."""
    assert [
        "2025-08-30T09:12:01.482Z",
        "2025-08-30T07:12:01.000Z",
        None,
        None,
    ] == [
        trace_instant("2025-08-30T09:12:01.482Z"),
        trace_instant("2025-08-30T09:12:01+02:00"),
        trace_instant("yesterday"),
        trace_instant(1_700_000_000),
    ]


def test_query_instants_take_dates_and_refuse_junk() -> None:
    """A bare date is its UTC midnight; an unreadable value is the caller's error."""
    assert "2026-09-01T00:00:00.000Z" == query_instant("2026-09-01", "--since")
    with pytest.raises(InvalidInput, match="--until"):
        query_instant("next week", "--until")


@given(
    st.integers(min_value=0, max_value=9999),
    st.integers(min_value=1, max_value=12),
    st.integers(min_value=1, max_value=31),
    st.integers(min_value=0, max_value=23),
    st.integers(min_value=0, max_value=59),
    st.integers(min_value=0, max_value=59),
    st.integers(min_value=0, max_value=999),
)
def test_the_canonical_shortcut_agrees_with_the_general_parse(
    year: int, month: int, day: int, hour: int, minute: int, second: int, ms: int
) -> None:
    """A stamp already in the stored shape comes back as the full parse would give it (days past
    the month's end roll over, year 0 is refused)."""
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{ms:03d}Z"
    parsed = instant_millis(text)
    assert (None if parsed is None else instant_text(parsed)) == trace_instant(text)
