"""Instants a caller types (``--event-at``, ``--valid-from``), normalised before they are written.

Values the program writes are compared as strings, so they must share one shape
(docs/decisions.md §2): a time becomes the UTC stamp ``YYYY-MM-DDTHH:MM:SSZ``, a bare date stays
``YYYY-MM-DD`` (a day is not an instant, and moving it to UTC would invent a time).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from memhtml.domain.datetimes import MAX_MINUTE, is_valid_datetime, utc_stamp
from memhtml.domain.errors import InvalidInput

_PARTS: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})"
    r"(?::([0-9]{2})(?:\.[0-9]+)?)?"
    r"(Z|([+-])([0-9]{2}):?([0-9]{2}))?"
)
BARE_DATE_LENGTH: Final = len("YYYY-MM-DD")


def normalize_user_instant(value: str, label: str) -> str:
    """A caller's docs/format.md §5 instant in the shape the program writes.

    A value without a zone is read as UTC: the agent calling memhtml has no local zone anyone
    could rely on. A leap second (``:60``) becomes ``:59``, and fractions are dropped.

    Args:
        value: The caller's text, surrounding whitespace ignored.
        label: The flag or field to name in the error (``--event-at``).

    Raises:
        InvalidInput: ``value`` fails docs/format.md §5, or lands outside years 1–9999 in UTC.
    """
    text = value.strip()
    if not is_valid_datetime(text):
        raise InvalidInput(
            f"{label} must be an ISO date or date-time such as 2026-08-30 or 2026-08-30T14:05:00Z"
        )
    if len(text) == BARE_DATE_LENGTH:
        return text
    match = _PARTS.fullmatch(text)
    if match is None:  # is_valid_datetime accepted it, so the shapes agree; kept for mypy
        raise InvalidInput(f"{label} is not an ISO date-time")
    year, month, day, hour, minute = (int(match[i]) for i in range(1, 6))
    second = min(int(match[6] or 0), MAX_MINUTE)
    zone = dt.UTC
    if match[8] is not None:
        offset = dt.timedelta(hours=int(match[9]), minutes=int(match[10]))
        zone = dt.timezone(-offset if match[8] == "-" else offset)
    try:
        instant = dt.datetime(year, month, day, hour, minute, second, tzinfo=zone)
    except ValueError as e:  # year 0000, which the §5 pattern admits and no calendar has
        raise InvalidInput(f"{label} names a year outside 1–9999") from e
    return utc_stamp(instant)
