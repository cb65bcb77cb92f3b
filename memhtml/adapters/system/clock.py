"""Clocks: the wall clock for real use and a settable one for tests and evaluations."""

from __future__ import annotations

import datetime as dt


class SystemClock:
    """The operating system's wall clock, in UTC."""

    def now(self) -> dt.datetime:
        """The current instant."""
        return dt.datetime.now(dt.UTC)


class FixedClock:
    """A clock that stays where it is set until advanced; deterministic runs use it."""

    def __init__(self, start: dt.datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FixedClock needs a timezone-aware instant")
        self._now = start.astimezone(dt.UTC)

    def now(self) -> dt.datetime:
        """The instant the clock is set to."""
        return self._now

    def advance(self, seconds: float) -> None:
        """Move the clock forward (or back, with a negative amount)."""
        self._now += dt.timedelta(seconds=seconds)
