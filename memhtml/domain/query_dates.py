"""The calendar dates a query names: the ``time`` arm's windows (docs/ranking.md §2.8).

"What did Joanna plan in May 2023?" asks about memories of one month. The words carry no
trace of that: the month is in the memory's event time, not in its text. This module reads
the dates a query names into inclusive day windows; the ``time`` arm then ranks the memories
whose event time falls inside one of them by meaning (``adapters/sqlite/arm_sql.py``,
twin in ``adapters/memory/rank_store.py``).

Read, in English, case-insensitively:

- a day: ``2023-05-08``, ``8 May 2023``, ``8th of May, 2023``, ``May 8, 2023``;
- a month: ``May 2023``, ``May, 2023``; and a month without a year after a preposition
  (``in May``, ``during May``): its most recent occurrence not after today;
- a year after a preposition: ``in 2022``, ``during 2022``.

A bare month name without a year or a preposition is not read ("may" is also a verb), nor
are relative phrases ("last week"): their meaning moves with the clock. A day the month
does not have still names its month (``30 February 2023`` and ``2023-02-30`` read as February
2023); a month that does not exist (``2023-13-01``) names nothing. Every window widens by
:data:`WINDOW_SLACK_DAYS` on each side, because a memory records an event when it is told,
often days after it happened.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from typing import Final

import attrs

WINDOW_SLACK_DAYS: Final = 7
"""Days added before and after each named date, month or year (see the module docstring)."""

MAX_WINDOWS: Final = 8
"""Windows read from one query at most; a query listing more dates keeps its first ones."""

_MONTHS: Final[dict[str, int]] = {
    **{name.lower(): number for number, name in enumerate(calendar.month_name) if name},
    **{name.lower(): number for number, name in enumerate(calendar.month_abbr) if name},
    "sept": 9,
}
_MONTH: Final = "(?P<{}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY: Final = r"(?P<{}>\d{{1,2}})(?:st|nd|rd|th)?"
_YEAR: Final = r"(?P<{}>\d{{4}})"
_PREPOSITION: Final = r"(?:in|during|since|until|before|after|of|by|early|late|mid)"

_PATTERNS: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"\b" + _YEAR.format("y") + r"-(?P<m>\d{2})-(?P<d>\d{2})\b",
        r"\b"
        + _DAY.format("d")
        + r"\s+(?:of\s+)?"
        + _MONTH.format("mn")
        + r",?\s+"
        + _YEAR.format("y")
        + r"\b",
        r"\b"
        + _MONTH.format("mn")
        + r"\s+"
        + _DAY.format("d")
        + r",?\s+"
        + _YEAR.format("y")
        + r"\b",
        r"\b" + _MONTH.format("mn") + r",?\s+" + _YEAR.format("y") + r"\b",
        r"\b" + _PREPOSITION + r"\s+(?:the\s+month\s+of\s+)?" + _MONTH.format("mn") + r"\b",
        r"\b" + _PREPOSITION + r"\s+" + _YEAR.format("y") + r"\b",
    )
)


@attrs.frozen(kw_only=True)
class DateWindow:
    """Days ``start`` to ``end``, both included."""

    start: date
    end: date

    def widened(self, days: int) -> DateWindow:
        """The window with ``days`` more on each side, clamped to the calendar's range."""
        return DateWindow(start=_shift(self.start, -days), end=_shift(self.end, days))

    def holds(self, day: str) -> bool:
        """Whether an ISO stamp's first ten characters fall inside, compared as text.

        The SQL arm compares ``substr(stamp, 1, 10)`` the same way, so a stamp that is not a
        date compares as whatever text it is, in both backends alike.
        """
        return self.start.isoformat() <= day[:10] <= self.end.isoformat()

    def as_text(self) -> str:
        """``start|end`` in ISO form: how the SQL arm receives a window."""
        return f"{self.start.isoformat()}|{self.end.isoformat()}"


def query_windows(
    query: str, *, today: date, slack_days: int = WINDOW_SLACK_DAYS
) -> tuple[DateWindow, ...]:
    """The windows of every date, month or year ``query`` names, widened, in reading order.

    A span of text counts once (``8 May 2023`` is a day, not also a month); equal windows are
    kept once; at most :data:`MAX_WINDOWS`.
    """
    found: list[tuple[int, DateWindow]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(query):
            start, end = match.span()
            if any(start < right and left < end for left, right in taken):
                continue
            window = _window(match.groupdict(), today)
            if window is None:
                continue
            taken.append((start, end))
            found.append((start, window.widened(slack_days)))
    ordered: list[DateWindow] = []
    for _, window in sorted(found, key=lambda pair: pair[0]):
        if window not in ordered:
            ordered.append(window)
    return tuple(ordered[:MAX_WINDOWS])


def _window(groups: dict[str, str | None], today: date) -> DateWindow | None:
    """The window one match names, or ``None`` when it names no real month or year."""
    year = _number(groups.get("y"))
    month = _MONTHS.get((groups.get("mn") or "").lower()) or _number(groups.get("m"))
    day = _number(groups.get("d"))
    if year is not None and not (date.min.year <= year <= date.max.year):
        return None
    if month is None:
        if year is None:  # pragma: no cover - every pattern names a month or a year
            return None
        return DateWindow(start=date(year, 1, 1), end=date(year, 12, 31))
    if not 1 <= month <= 12:
        return None
    if year is None:
        year = today.year if month <= today.month else today.year - 1
        if year < date.min.year:
            return None
    last = calendar.monthrange(year, month)[1]
    if day is None:
        return DateWindow(start=date(year, month, 1), end=date(year, month, last))
    if not 1 <= day <= last:
        return DateWindow(start=date(year, month, 1), end=date(year, month, last))
    return DateWindow(start=date(year, month, day), end=date(year, month, day))


def _number(text: str | None) -> int | None:
    return None if text is None else int(text)


def _shift(day: date, days: int) -> date:
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.min if days < 0 else date.max
