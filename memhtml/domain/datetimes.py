"""The datetime rule of the memory format (docs/format.md §5) and the stamp the program writes.

Values that pass the rule are stored verbatim and compared as strings, so the writer
normalises every instant it produces to one UTC shape (docs/decisions.md §2): two stamps written by
memhtml then sort in time order without being parsed.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Final

from memhtml.domain.errors import InvalidInput

# ASCII digits only: `\d` would also accept Arabic-Indic and other Unicode digits, which no
# SQLite comparison or `julianday()` call downstream understands.
_DATETIME: Final = re.compile(
    r"(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})"
    r"(?:[T ](?P<h>[0-9]{2}):(?P<mi>[0-9]{2})"
    r"(?::(?P<s>[0-9]{2})(?:\.[0-9]+)?)?"
    r"(?:Z|[+-](?P<zh>[0-9]{2}):?(?P<zm>[0-9]{2}))?)?"
)

MAX_HOUR: Final = 23
MAX_MINUTE: Final = 59
# 60 admits a leap second (`23:59:60Z`), which ISO 8601 allows and a clock may report.
MAX_SECOND: Final = 60
_DAYS_IN_MONTH: Final = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_leap_year(year: int) -> bool:
    """Whether ``year`` has a 29 February in the proleptic Gregorian calendar."""
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year: int, month: int) -> int:
    """Number of days in ``month`` (1–12) of ``year``."""
    if month == 2 and is_leap_year(year):
        return 29
    return _DAYS_IN_MONTH[month - 1]


def is_valid_datetime(value: str) -> bool:
    """Whether ``value`` satisfies the docs/format.md §5 datetime rule.

    ``YYYY-MM-DD``, optionally followed by ``T`` or a space and ``hh:mm``, an optional ``:ss``
    (up to 60) with an optional ``.fraction``, and an optional zone ``Z``, ``±hh:mm`` or
    ``±hhmm`` that is only allowed after a time. The date must exist on the calendar.

    Args:
        value: The candidate string, taken as written (no trimming).

    Returns:
        True when the whole string matches the rule.
    """
    match = _DATETIME.fullmatch(value)
    if match is None:
        return False
    year, month, day = int(match["y"]), int(match["mo"]), int(match["d"])
    if not 1 <= month <= 12 or not 1 <= day <= days_in_month(year, month):
        return False
    if match["h"] is not None and (int(match["h"]) > MAX_HOUR or int(match["mi"]) > MAX_MINUTE):
        return False
    if match["s"] is not None and int(match["s"]) > MAX_SECOND:
        return False
    return match["zh"] is None or (int(match["zh"]) <= MAX_HOUR and int(match["zm"]) <= MAX_MINUTE)


def utc_stamp(instant: datetime) -> str:
    """The instant as the UTC stamp memhtml writes: ``YYYY-MM-DDTHH:MM:SSZ``.

    Sub-second precision is dropped (truncated, never rounded up into the next second).

    Args:
        instant: An aware datetime in any zone.

    Returns:
        The stamp, which always satisfies :func:`is_valid_datetime`.

    Raises:
        InvalidInput: ``instant`` is naive, so it names no single moment, or it falls outside
            the years 1–9999 once moved to UTC.
    """
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise InvalidInput("a naive datetime names no instant; attach a time zone")
    try:
        utc = instant.astimezone(UTC)
    except OverflowError as e:
        raise InvalidInput("the instant falls outside years 1–9999 in UTC") from e
    # Formatted by hand: strftime("%Y") does not zero-pad years below 1000 on every platform.
    return (
        f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}"
        f"T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"
    )


_UTC_STAMP: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T([0-9]{2}:[0-9]{2}:[0-9]{2})Z")
_MIDNIGHT: Final = "00:00:00"


def event_label(event_at: str) -> str:
    """The visible text of an event's ``<time>``: as precise as the event (docs/format.md §1).

    The content hash reads visible text only (§7), so a label that showed the day alone made
    two episodes with the same words on the same day one memory (issue 14). A date, or a UTC
    stamp at midnight (what a date-only event written as a stamp looks like), keeps the day
    alone, so the hash of every such memory is what it was; a stamp with a time of day shows
    it to the second: ``2023-05-08 13:56:07 UTC``. Any other §5 shape (the writer normalises
    to these two, so only a hand-built value) is shown as written, ``T`` read as a space.

    Args:
        event_at: A docs/format.md §5 datetime.
    """
    stamp = _UTC_STAMP.fullmatch(event_at)
    if stamp is not None:
        clock = stamp[1]
        return event_at[:10] if clock == _MIDNIGHT else f"{event_at[:10]} {clock} UTC"
    return event_at.replace("T", " ", 1)
