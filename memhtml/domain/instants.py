"""Reading stored timestamps the way SQLite's ``julianday()`` reads them.

The state plane's arithmetic runs both here and as SQL; an instant this module reads must be
the instant SQLite reads from the same text, or the pure twin and the query would disagree.
"""

from __future__ import annotations

import re
from typing import Final

_INSTANT = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d\d)-(?P<d>\d\d)[\sT]*"
    r"(?:(?P<h>\d\d):(?P<mi>\d\d)(?::(?P<s>\d\d)(?:\.(?P<f>\d+))?)?"
    r"\s*(?:(?P<z>[Zz])|(?P<sign>[+-])(?P<zh>\d\d):(?P<zm>\d\d))?)?\s*",
    re.ASCII,
)
# Julian day 2440587.5 (1970-01-01T00:00Z) in milliseconds.
_UNIX_EPOCH_JD_MS: Final = 210_866_760_000_000


def instant_ms(text: str) -> int | None:
    """Milliseconds since the Unix epoch of ``text``, read as SQLite's ``julianday()`` reads it.

    Mirrors SQLite's rules rather than docs/format.md §5's, because this is the twin of SQL
    arithmetic: a date ``YYYY-MM-DD`` (month 1–12, day 1–31, not checked against the calendar, so
    ``02-30`` is 2 March), optionally ``T``/spaces and ``hh:mm`` (hour up to 24), ``:ss``
    (up to 59) and ``.fraction`` (rounded to the millisecond), and after a time an optional
    ``Z`` or ``±hh:mm`` (hour up to 14). Leap second ``:60`` and ``±hhmm`` are unreadable there
    too. SQLite's other inputs (a bare time, a Julian day number, ``now``) are not timestamps
    this program stores and read as None here.

    Returns:
        The instant, or None when SQLite would return NULL.
    """
    m = _INSTANT.fullmatch(text)
    if m is None:
        return None
    year, month, day = int(m["y"]), int(m["mo"]), int(m["d"])
    hour, minute, second = int(m["h"] or 0), int(m["mi"] or 0), int(m["s"] or 0)
    zone_hour, zone_minute = int(m["zh"] or 0), int(m["zm"] or 0)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 24 and minute <= 59):
        return None
    if second > 59 or zone_hour > 14 or zone_minute > 59:
        return None
    # SQLite's own day arithmetic (Meeus), so an out-of-month day rolls over exactly as there.
    y, mo = (year - 1, month + 12) if month <= 2 else (year, month)
    century = max(y, 0) // 100  # C division truncates; y is -1 only for Jan/Feb of year 0
    b = 2 - century + century // 4
    jd_ms = (36525 * (y + 4716) // 100 + 306001 * (mo + 1) // 10000 + day + b) * 86_400_000
    jd_ms -= 131_716_800_000  # the 1524.5 days of Meeus's offset
    jd_ms += (hour * 60 + minute) * 60_000 + int((second + _fraction(m["f"] or "")) * 1000 + 0.5)
    zone = (zone_hour * 60 + zone_minute) * (-1 if m["sign"] == "-" else 1)
    return jd_ms - zone * 60_000 - _UNIX_EPOCH_JD_MS


def _fraction(digits: str) -> float:
    """The seconds fraction in SQLite's own double arithmetic, capped below the next second.

    Replayed operation by operation because the rounding to a millisecond happens in doubles
    there; exact decimal rounding would disagree by 1 ms on inputs like ``.4815``.
    """
    value, scale = 0.0, 1.0
    for ch in digits:
        value = value * 10.0 + (ord(ch) - ord("0"))
        scale *= 10.0
    return min(value / scale, 0.999)
