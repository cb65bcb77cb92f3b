"""The header every benchmark prints, so a number is never separated from where it was taken."""

from __future__ import annotations

import datetime as dt
import os
import platform
import statistics
import sys
from collections.abc import Sequence


def machine_line() -> str:
    """Date, CPU count, platform and Python version in one line."""
    today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    return (
        f"{today} · {os.cpu_count()} cores · {platform.machine()} {platform.system()} · "
        f"Python {sys.version.split()[0]}"
    )


def median_ms(samples_s: Sequence[float]) -> float:
    """Median of samples taken in seconds, in milliseconds."""
    return statistics.median(samples_s) * 1000.0


def percentile_ms(samples_s: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile of samples taken in seconds, in milliseconds."""
    ordered = sorted(samples_s)
    index = max(0, min(len(ordered) - 1, round(pct / 100.0 * len(ordered)) - 1))
    return ordered[index] * 1000.0
