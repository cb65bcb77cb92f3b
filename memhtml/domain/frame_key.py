"""The frame key of a gist: its statement with the values lifted out (the conflict assist).

"The checkout pool holds 50 connections per pod" and "The checkout pool holds 80 connections
per pod" state one relation with two values. Replacing each value by a typed slot gives both the
key ``the checkout pool holds {number} connections per pod``; the values (``50``, ``80``) are
what disagree. Two gists share a key exactly when their words, case-folded and stripped of
punctuation, are the same apart from the values, so "is not {number}" (a negation) and "is
{number} on the canary" (a qualifier) are other relations, never conflicts.

Values are numbers (with a unit, a multiplier or an ordinal), percentages, durations, sizes,
money, dates, clock times, versions and quoted literals; ``frame_values`` spells each one
canonically. A gist without a value has no key: it cannot disagree about one.

The key is stored in ``files.frame_key``; ``FRAME_KEY_RULE`` names this derivation, so an index
keyed by an older rule is re-keyed by the next update (docs/index-schema.md §3.7).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from typing import Final

import attrs

from memhtml.domain import frame_values as fv

FRAME_KEY_RULE: Final = "frame-1"
"""The derivation's name; change it whenever a key for some gist would change."""

_MONTH_WORD: Final = "(?:" + "|".join(sorted(fv.MONTHS, key=len, reverse=True)) + r")\.?"
# Alone, "may" and "march" are verbs more often than months; they need a day or a year.
_BARE_MONTH: Final = "(?:" + "|".join(m for m in fv.FULL_MONTHS if m not in ("may", "march")) + ")"
_NUM: Final = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_DAY: Final = r"\d{1,2}(?:st|nd|rd|th)?"
# A value never starts inside a word ("ec2", "x86_64").
_START: Final = r"(?<!\w)"
_END: Final = r"(?!\w)"
_ALTERNATIVES: Final[tuple[tuple[str, str], ...]] = (
    ("slot", r"\{(?:" + "|".join(fv.SLOT_TYPES) + r")\}"),
    ("dquote", r'"[^"]*"'),
    ("squote", r"(?<![\w'])'[^'\n]+'(?!\w)"),
    ("btick", r"`[^`]*`"),
    (
        "isodate",
        _START + r"\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
        r"(?:z|[+-]\d{2}:?\d{2})?)?" + _END,
    ),
    ("isomonth", _START + r"\d{4}-\d{2}(?![\w-])"),
    ("slashdate", _START + r"\d{1,4}/\d{1,2}/\d{1,4}" + _END),
    ("daymonth", _START + _DAY + r"\s+(?:of\s+)?" + _MONTH_WORD + r"(?:,?\s+\d{4})?" + _END),
    # Not "March 1" out of "March 1.5x" or "March 1,000x": the day must end the number.
    ("monthday", r"(?<!\w)" + _MONTH_WORD + r"\s+" + _DAY + r"(?:,?\s+\d{4})?(?![\w:]|[.,]\d)"),
    ("monthyear", r"(?<!\w)" + _MONTH_WORD + r",?\s+\d{4}" + _END),
    ("month", r"(?<!\w)" + _BARE_MONTH + _END),
    ("weekday", r"(?<!\w)(?:mon|tues|wednes|thurs|fri|satur|sun)days?" + _END),
    (
        "time",
        _START + r"\d{1,2}(?::\d{2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?|\s*[ap]\.?m\b\.?)" + _END,
    ),
    (
        "version",
        _START
        + r"(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+(?:\.\d+)*)(?:-[0-9a-z]+(?:\.[0-9a-z]+)*)?"
        + _END,
    ),
    ("money", _START + r"[$€£¥]\s?" + _NUM + r"(?:k|m|bn)?" + _END),
    ("compound", _START + r"(?:\d+(?:\.\d+)?(?:ms|us|µs|μs|ns|[smhdw])){2,}" + _END),
    ("number", _START + r"[-+]?" + _NUM + r"(?:%|[^\W\d_]+)?" + _END),
    ("word", r"\w+(?:['-]\w+)*"),
    ("symbol", r"<=|>=|!=|[<>≤≥=≠%]"),
)


@functools.cache
def _scanner() -> re.Pattern[str]:
    """The one scanner over every alternative, compiled on first use: compiling it took a
    cold search (which imports this module with the index's port but never keys a gist)
    ~10 ms."""
    return re.compile(
        "|".join(f"(?P<{name}>{pattern})" for name, pattern in _ALTERNATIVES), re.IGNORECASE
    )


_SYMBOLS: Final = {"<=": "≤", ">=": "≥", "!=": "≠"}
_TYPOGRAPHY: Final = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2212": "-", "\u2013": "-"}
)
_NUMBER_PARTS: Final = re.compile(r"([-+]?" + _NUM + r")(.*)", re.DOTALL)
_COMPOUND_PART: Final = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|μs|ns|[smhdw])", re.IGNORECASE)
_CLOCK: Final = re.compile(r"(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*(?:([ap])\.?m\.?)?", re.I)
_DIGITS: Final = re.compile(r"\d+")


@attrs.frozen(kw_only=True)
class Frame:
    """A gist's frame: its key and the values its slots hold, in reading order.

    Attributes:
        key: The statement with each value replaced by ``{type}``; words case-folded,
            punctuation dropped, single spaces.
        values: One canonical value per slot (``frame_values``).
    """

    key: str
    values: tuple[str, ...]


FRAME_CACHE_SIZE: Final = 4096


@attrs.frozen
class _Token:
    text: str  # what the key shows: a word, a symbol or a `{slot}`
    start: int
    end: int
    slot: str | None = None
    value: str = ""


@functools.lru_cache(maxsize=FRAME_CACHE_SIZE)
def frame_of(gist: str) -> Frame | None:
    """The frame of ``gist``, or ``None`` when it holds no value.

    Remembered for the last ``FRAME_CACHE_SIZE`` gists: a write asks twice for each memory
    it writes (the conflict assist, then the projection), at ~0.1 ms a derivation. The
    result is immutable, so sharing it is safe.
    """
    text = unicodedata.normalize("NFKC", gist).translate(_TYPOGRAPHY)
    tokens = _merge_durations(_absorb_units(list(_scan(text)), text), text)
    values = tuple(t.value for t in tokens if t.slot is not None)
    if not values:
        return None
    return Frame(key=" ".join(t.text for t in tokens), values=values)


def frame_key(gist: str) -> str | None:
    """The key of ``gist``'s frame, or ``None`` when it holds no value (``files.frame_key``)."""
    frame = frame_of(gist)
    return None if frame is None else frame.key


def in_conflict(a: Frame, b: Frame) -> bool:
    """Same relation, other values."""
    return a.key == b.key and a.values != b.values


def _slot(kind: str, value: str, start: int, end: int) -> _Token:
    return _Token("{" + kind + "}", start, end, kind, value)


def _word(text: str, start: int, end: int) -> _Token:
    return _Token(unicodedata.normalize("NFKC", text.casefold()), start, end)


def _scan(text: str) -> Iterator[_Token]:
    for match in _scanner().finditer(text):
        kind, raw, start, end = match.lastgroup or "", match[0], match.start(), match.end()
        if kind == "slot":
            yield _Token(raw.casefold(), start, end, raw[1:-1].casefold(), raw.casefold())
        elif kind in ("dquote", "squote", "btick"):
            yield _slot(fv.SLOT_QUOTE, " ".join(raw[1:-1].casefold().split()), start, end)
        elif kind == "month":
            yield _slot(fv.SLOT_DATE, _month_only(raw), start, end)
        elif kind == "weekday":
            yield _slot(fv.SLOT_DATE, raw.casefold().removesuffix("s"), start, end)
        elif kind in ("isodate", "isomonth", "slashdate"):
            yield _slot(fv.SLOT_DATE, raw.casefold().replace(" ", "t"), start, end)
        elif kind in ("daymonth", "monthday", "monthyear"):
            yield _slot(fv.SLOT_DATE, _named_date(raw), start, end)
        elif kind == "time":
            yield _slot(fv.SLOT_TIME, _clock(raw), start, end)
        elif kind == "version":
            yield _slot(fv.SLOT_VERSION, raw.casefold().removeprefix("v"), start, end)
        elif kind == "money":
            yield _slot(fv.SLOT_MONEY, _money(raw), start, end)
        elif kind == "compound":
            total = sum(
                (
                    fv.duration_seconds(_unit_slot(n, u.casefold())[1])
                    for n, u in _COMPOUND_PART.findall(raw)
                ),
                Decimal(0),
            )
            yield _slot(fv.SLOT_DURATION, fv.plain_decimal(total) + "s", start, end)
        elif kind == "number":
            yield _number(raw, start, end)
        elif kind == "symbol":
            yield _Token(_SYMBOLS.get(raw, raw), start, end)
        else:
            yield _word(raw, start, end)


def _unit_slot(number: str, unit: str) -> tuple[str, str]:
    found = fv.unit_value(number, unit, glued=True)
    return found if found is not None else (fv.SLOT_NUMBER, fv.number_text(number))


def _number(raw: str, start: int, end: int) -> _Token:
    parts = _NUMBER_PARTS.fullmatch(raw)
    digits, suffix = (parts[1], parts[2]) if parts else (raw, "")
    if not suffix:
        return _slot(fv.SLOT_NUMBER, fv.number_text(digits), start, end)
    found = fv.unit_value(digits, suffix, glued=True)
    if found is None:  # an identifier that starts with digits: "5xx", "2fa"
        return _word(raw, start, end)
    return _slot(found[0], found[1], start, end)


def _absorb_units(tokens: list[_Token], text: str) -> list[_Token]:
    """A bare number takes the unit word after it: ``30 seconds``, ``50 %``, ``2 per cent``."""
    out: list[_Token] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        nxt = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.slot == fv.SLOT_NUMBER and nxt is not None and _spaced(token, nxt, text):
            after = tokens[index + 2] if index + 2 < len(tokens) else None
            if nxt.text == "per" and after is not None and after.text == "cent":
                out.append(_slot(fv.SLOT_PERCENT, token.value + "%", token.start, after.end))
                index += 3
                continue
            found = (
                None
                if nxt.slot
                else fv.unit_value(token.value, text[nxt.start : nxt.end], glued=False)
            )
            if found is not None:
                out.append(_slot(found[0], found[1], token.start, nxt.end))
                index += 2
                continue
        out.append(token)
        index += 1
    return out


def _merge_durations(tokens: list[_Token], text: str) -> list[_Token]:
    """``1 hour 30 minutes`` is one duration, as ``1h30m`` is."""
    out: list[_Token] = []
    for token in tokens:
        last = out[-1] if out else None
        if (
            last is not None
            and last.slot == fv.SLOT_DURATION == token.slot
            and not (_literal(last) or _literal(token))
            and _spaced(last, token, text)
        ):
            total = fv.duration_seconds(last.value) + fv.duration_seconds(token.value)
            out[-1] = _slot(fv.SLOT_DURATION, fv.plain_decimal(total) + "s", last.start, token.end)
        else:
            out.append(token)
    return out


def _literal(token: _Token) -> bool:
    """A slot written as ``{type}`` in the gist (a key read again): it has no value to add."""
    return token.value.startswith("{")


def _spaced(a: _Token, b: _Token, text: str) -> bool:
    """Nothing but whitespace lies between the two tokens."""
    return not text[a.end : b.start].strip()


def _month_only(raw: str) -> str:
    return fv.calendar_date(None, fv.MONTHS[raw.casefold().rstrip(".")], None)


def _named_date(raw: str) -> str:
    """``12 March 2026``, ``March 12, 2026``, ``1st of May``, ``Mar 2026`` → ISO-like."""
    words = re.findall(r"[^\W\d_]+", raw)
    month = next(fv.MONTHS[w.casefold()] for w in words if w.casefold() in fv.MONTHS)
    numbers = [int(n) for n in _DIGITS.findall(raw)]
    year = next((n for n in numbers if n > 31), None)
    day = next((n for n in numbers if n <= 31), None)
    return fv.calendar_date(year, month, day)


def _clock(raw: str) -> str:
    match = _CLOCK.fullmatch(raw.strip())
    if match is None:  # pragma: no cover - the scanner's pattern is narrower
        return raw.casefold()
    hour, minute, second, meridiem = match.groups()
    return fv.clock_time(
        int(hour),
        int(minute or 0),
        None if second is None else int(second),
        None if meridiem is None else meridiem.casefold(),
    )


def _money(raw: str) -> str:
    currency = fv.MONEY_SIGNS[raw[0]]
    rest = raw[1:].strip()
    parts = _NUMBER_PARTS.fullmatch(rest)
    digits, suffix = (parts[1], parts[2].casefold()) if parts else (rest, "")
    if suffix:
        multiplier = {"k": "K", "m": "M", "bn": "bn"}[suffix]
        found = fv.unit_value(digits, multiplier, glued=True)
        amount = digits if found is None else found[1]
    else:
        amount = fv.number_text(digits)
    return f"{currency} {amount}"
