"""The values a frame key lifts out of a gist, and the one canonical spelling each gets.

A frame key (``domain/frame_key``) replaces each value of a statement by a typed slot; the values
themselves are compared to tell a restatement (same values) from a conflict (other values). Two
spellings of one value must compare equal, or "30 minutes" and "half an hour"'s cousin "0.5 h"
would be reported as disagreeing: durations become seconds, sizes bytes, percentages and counts
plain decimals, dates ISO where the text says enough.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Final

SLOT_NUMBER: Final = "number"
SLOT_PERCENT: Final = "percent"
SLOT_DURATION: Final = "duration"
SLOT_SIZE: Final = "size"
SLOT_MONEY: Final = "money"
SLOT_DATE: Final = "date"
SLOT_TIME: Final = "time"
SLOT_VERSION: Final = "version"
SLOT_QUOTE: Final = "quote"
SLOT_TYPES: Final[tuple[str, ...]] = (
    SLOT_NUMBER,
    SLOT_PERCENT,
    SLOT_DURATION,
    SLOT_SIZE,
    SLOT_MONEY,
    SLOT_DATE,
    SLOT_TIME,
    SLOT_VERSION,
    SLOT_QUOTE,
)
"""Every slot a key can hold, written ``{number}``, ``{date}``… inside the key."""

_MINUTE: Final = Decimal(60)
_HOUR: Final = 60 * _MINUTE
_DAY: Final = 24 * _HOUR
_YEAR: Final = Decimal("365.25") * _DAY

# Unit words after a number (or glued to it), case-folded, to (slot, factor to the base unit).
# A month is a twelfth of a year, so "12 months" and "1 year" are one value. Spaced "m" is left
# out: "5 m" is as often metres as minutes; glued "5m" is the duration everyone writes.
_DURATION_UNITS: Final[dict[str, Decimal]] = {
    **dict.fromkeys(("ns", "nanosecond", "nanoseconds"), Decimal("1e-9")),
    # NFKC turns the micro sign into the Greek mu; both spellings are listed.
    **dict.fromkeys(("us", "µs", "μs", "microsecond", "microseconds"), Decimal("1e-6")),
    **dict.fromkeys(("ms", "msec", "msecs", "millisecond", "milliseconds"), Decimal("1e-3")),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), Decimal(1)),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), _MINUTE),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), _HOUR),
    **dict.fromkeys(("d", "day", "days"), _DAY),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), 7 * _DAY),
    **dict.fromkeys(("mo", "month", "months"), _YEAR / 12),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), _YEAR),
}
_GLUED_ONLY_DURATIONS: Final = frozenset({"m"})
_SIZE_UNITS: Final[dict[str, Decimal]] = {
    **dict.fromkeys(("byte", "bytes"), Decimal(1)),
    **dict.fromkeys(("kb", "kilobyte", "kilobytes"), Decimal(10) ** 3),
    **dict.fromkeys(("mb", "megabyte", "megabytes"), Decimal(10) ** 6),
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), Decimal(10) ** 9),
    **dict.fromkeys(("tb", "terabyte", "terabytes"), Decimal(10) ** 12),
    **dict.fromkeys(("pb", "petabyte", "petabytes"), Decimal(10) ** 15),
    "kib": Decimal(2) ** 10,
    "mib": Decimal(2) ** 20,
    "gib": Decimal(2) ** 30,
    "tib": Decimal(2) ** 40,
}
_PERCENT_UNITS: Final = frozenset({"%", "percent", "pct"})
_MONEY_UNITS: Final[dict[str, str]] = {
    **dict.fromkeys(("usd", "dollar", "dollars"), "USD"),
    **dict.fromkeys(("eur", "euro", "euros"), "EUR"),
    **dict.fromkeys(("gbp",), "GBP"),
}
MONEY_SIGNS: Final[dict[str, str]] = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
# Multipliers: glued `k`/`K`, `M`, `bn`, or a spaced word. Glued lowercase `m` is minutes.
_GLUED_MULTIPLIERS: Final[dict[str, Decimal]] = {
    "k": Decimal(10) ** 3,
    "K": Decimal(10) ** 3,
    "M": Decimal(10) ** 6,
    "bn": Decimal(10) ** 9,
}
_WORD_MULTIPLIERS: Final[dict[str, Decimal]] = {
    "thousand": Decimal(10) ** 3,
    "million": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
}
_ORDINAL_SUFFIXES: Final = frozenset({"st", "nd", "rd", "th"})

FULL_MONTHS: Final[tuple[str, ...]] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
MONTHS: Final[dict[str, int]] = {
    **{name: number for number, name in enumerate(FULL_MONTHS, start=1)},
    **{
        name: number
        for number, name in enumerate(
            ("jan", "feb", "mar", "apr", "", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
            start=1,
        )
        if name
    },
    "sept": 9,
}


def plain_decimal(value: Decimal) -> str:
    """``value`` without an exponent or trailing zeros: ``1.50E+3`` → ``1500``."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "+0") else text


def number_text(text: str) -> str:
    """A written number as compared: thousands separators and a leading ``+`` dropped, the
    digits otherwise as written (``3.10`` stays apart from ``3.1``: a version, say)."""
    return text.replace(",", "").removeprefix("+")


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(number_text(text))
    except InvalidOperation:  # a slot written literally, `{number}`
        return None


def unit_value(number: str, unit: str, *, glued: bool) -> tuple[str, str] | None:
    """The slot and value of ``number`` followed by ``unit``, or ``None`` when ``unit`` is not a
    unit this module knows (it then stays a word of the relation).

    Args:
        number: The digits as written (``1,024``, ``2.5``).
        unit: The unit as written, case kept (``M`` is a million, ``m`` a minute).
        glued: ``unit`` touches the digits (``30s``) rather than following a space (``30 s``).
    """
    amount = _decimal(number)
    if amount is None:
        return None
    folded = unit.casefold()
    if glued and unit in _GLUED_MULTIPLIERS:
        return SLOT_NUMBER, plain_decimal(amount * _GLUED_MULTIPLIERS[unit])
    if not glued and folded in _WORD_MULTIPLIERS:
        return SLOT_NUMBER, plain_decimal(amount * _WORD_MULTIPLIERS[folded])
    if glued and folded in _ORDINAL_SUFFIXES:
        return SLOT_NUMBER, number_text(number)
    if glued and folded == "x":
        return SLOT_NUMBER, number_text(number) + "x"
    if folded in _PERCENT_UNITS:
        return SLOT_PERCENT, number_text(number) + "%"
    if folded in _DURATION_UNITS and (glued or len(folded) > 1 or folded in "shdw"):
        return SLOT_DURATION, plain_decimal(amount * _DURATION_UNITS[folded]) + "s"
    if glued and unit in _GLUED_ONLY_DURATIONS:
        return SLOT_DURATION, plain_decimal(amount * _MINUTE) + "s"
    if folded in _SIZE_UNITS:
        return SLOT_SIZE, plain_decimal(amount * _SIZE_UNITS[folded]) + "B"
    if folded in _MONEY_UNITS:
        return SLOT_MONEY, f"{_MONEY_UNITS[folded]} {number_text(number)}"
    return None


def duration_seconds(value: str) -> Decimal:
    """The seconds of a duration value (``90s`` → 90), for summing ``1h 30m``."""
    return Decimal(value.removesuffix("s"))


def clock_time(hour: int, minute: int, second: int | None, meridiem: str | None) -> str:
    """``HH:MM`` (``:SS`` when given) on a 24-hour clock; ``12 am`` is midnight."""
    if meridiem is not None:
        hour = hour % 12 + (12 if meridiem == "p" else 0)
    text = f"{hour:02d}:{minute:02d}"
    return text if second is None else f"{text}:{second:02d}"


def calendar_date(year: int | None, month: int, day: int | None) -> str:
    """ISO-like spelling of a date written with a month name: ``2026-03-12``, ``--03-12`` with
    no year, ``2026-03`` with no day, ``--03`` with neither."""
    head = f"{year:04d}" if year is not None else "-"
    return f"{head}-{month:02d}" + ("" if day is None else f"-{day:02d}")
