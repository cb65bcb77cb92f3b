"""Instants of the trace plane: one fixed-width UTC shape with milliseconds.

Agent transcripts stamp every line to the millisecond, and a file's modification time is kept to
the millisecond so a watermark round-trips exactly. Everything the trace plane stores is
``YYYY-MM-DDTHH:MM:SS.mmmZ``, so ordering and range filters are plain string comparisons (the
memory plane's second-precision stamps would sort ``…00Z`` after ``…00.500Z``).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from memhtml.domain.datetimes import days_in_month
from memhtml.domain.errors import InvalidInput
from memhtml.domain.instants import instant_ms
from memhtml.domain.user_instants import BARE_DATE_LENGTH, normalize_user_instant

TRACE_INSTANT_LENGTH: Final = len("2026-01-01T00:00:00.000Z")
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
# Both agents already write this shape; recognising it skips the general parse (a third of a
# scan's time went to re-deriving stamps that were already canonical).
_CANONICAL: Final = re.compile(
    r"(\d{4})-(0[1-9]|1[0-2])-(\d\d)T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z", re.ASCII
)
_MIN_MS: Final = int((dt.datetime(1, 1, 1, tzinfo=dt.UTC) - _EPOCH).total_seconds()) * 1000
_MAX_MS: Final = (
    int((dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC) - _EPOCH).total_seconds()) * 1000
    + 999
)


def instant_text(ms: int) -> str | None:
    """Milliseconds since the epoch as ``YYYY-MM-DDTHH:MM:SS.mmmZ``; None outside years 1–9999."""
    if not _MIN_MS <= ms <= _MAX_MS:
        return None
    moment = _EPOCH + dt.timedelta(milliseconds=ms)
    # Spelled out: strftime's %Y drops the leading zeros of years before 1000 on some libcs.
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}."
        f"{moment.microsecond // 1000:03d}Z"
    )


def instant_millis(text: str) -> int | None:
    """The milliseconds of a stored trace instant (or any ISO stamp); None when unreadable."""
    return instant_ms(text)


def trace_instant(value: object) -> str | None:
    """A transcript's timestamp in the trace plane's shape; None when absent or unreadable."""
    if not isinstance(value, str):
        return None
    canonical = _CANONICAL.fullmatch(value)
    if canonical is not None:
        year, month, day = int(canonical[1]), int(canonical[2]), int(canonical[3])
        if year >= 1 and 1 <= day <= days_in_month(year, month):
            return value
    ms = instant_ms(value.strip())
    return None if ms is None else instant_text(ms)


def query_instant(value: str, label: str) -> str:
    """A caller's ``--since``/``--until`` as a trace instant; a bare date is its midnight UTC.

    Raises:
        InvalidInput: ``value`` is not an ISO date or date-time.
    """
    stamp = normalize_user_instant(value, label)
    if len(stamp) == BARE_DATE_LENGTH:
        stamp += "T00:00:00Z"
    text = trace_instant(stamp)
    if text is None:  # normalize_user_instant only returns readable stamps; kept for mypy
        raise InvalidInput(f"{label} is not an ISO date-time")
    return text
