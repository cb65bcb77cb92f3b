"""The clocks behind every stamped instant."""

from __future__ import annotations

import datetime as dt

import pytest

from memhtml.adapters.system.clock import FixedClock, SystemClock


def test_fixed_clock_advances_only_when_told() -> None:
    """A fixed clock returns its instant until advanced, then moves exactly that much."""
    start = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)
    clock = FixedClock(start)
    assert start == clock.now() == clock.now()
    clock.advance(900)
    assert start + dt.timedelta(seconds=900) == clock.now()


def test_fixed_clock_refuses_naive_instants() -> None:
    """A naive datetime would compare wrongly against stored UTC stamps."""
    with pytest.raises(ValueError, match="timezone-aware"):
        FixedClock(dt.datetime(2026, 11, 29))


def test_system_clock_is_utc() -> None:
    """The wall clock answers in UTC."""
    assert dt.timedelta(0) == SystemClock().now().utcoffset()
