"""The clock port: every instant the program stamps or compares comes from here.

Injected so that tests and evaluations are deterministic (docs/decisions.md §3).
"""

from __future__ import annotations

import datetime as dt
from typing import Protocol


class Clock(Protocol):
    """A source of the current instant."""

    def now(self) -> dt.datetime:
        """The current instant, timezone-aware, in UTC."""
        ...
