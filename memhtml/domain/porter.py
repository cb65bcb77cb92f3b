"""The Porter stemmer as SQLite's FTS5 ``porter`` tokenizer applies it, for the pure full-text twin.

FTS5 stems each token its base tokenizer emits, byte by byte on the UTF-8 form: a token shorter
than 3 bytes or longer than 64 passes through unchanged, and only ``a e i o u`` (and ``y``
after a consonant) count as vowels, so a non-ASCII byte is a consonant. Each step looks at the
token's suffixes in a fixed order and takes the first that matches, whether or not its
condition then holds (the first match ends the step). Matching FTS5 here is what lets the
in-memory backend rank exactly like SQLite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

MIN_BYTES: Final = 3
MAX_BYTES: Final = 64
_VOWELS: Final = frozenset(b"aeiou")

Condition = Callable[[bytes], bool]


def _is_vowel(byte: int, previous_was_consonant: bool) -> bool:
    return byte in _VOWELS or (byte == ord("y") and previous_was_consonant)


def _consonant_flags(stem: bytes, first_previous: bool = False) -> list[bool]:
    flags: list[bool] = []
    previous = first_previous
    for byte in stem:
        previous = not _is_vowel(byte, previous)
        flags.append(previous)
    return flags


def _after_vc(stem: bytes, previous_was_consonant: bool) -> int:
    """Bytes up to and including the first consonant after the first vowel; 0 if none."""
    flags = _consonant_flags(stem, previous_was_consonant)
    try:
        vowel = flags.index(False)
    except ValueError:
        return 0
    for i in range(vowel + 1, len(flags)):
        if flags[i]:
            return i + 1
    return 0


def measure_above_0(stem: bytes) -> bool:
    """At least one vowel-consonant sequence (Porter's m > 0)."""
    return _after_vc(stem, False) > 0


def measure_above_1(stem: bytes) -> bool:
    """At least two vowel-consonant sequences (m > 1)."""
    n = _after_vc(stem, False)
    return n > 0 and _after_vc(stem[n:], True) > 0


def measure_is_1(stem: bytes) -> bool:
    """Exactly one vowel-consonant sequence (m = 1)."""
    n = _after_vc(stem, False)
    return n > 0 and _after_vc(stem[n:], True) == 0


def ends_cvc(stem: bytes) -> bool:
    """Consonant, vowel, consonant at the end, the last not ``w``, ``x`` or ``y`` (*o)."""
    if stem[-1:] in (b"w", b"x", b"y"):
        return False
    flags = _consonant_flags(stem)
    return len(flags) >= 3 and flags[-3:] == [True, False, True]


def has_vowel(stem: bytes) -> bool:
    """Some byte is a vowel, ``y`` counting as one anywhere but first (*v*)."""
    return any(_is_vowel(byte, i > 0) for i, byte in enumerate(stem))


def _m1_and_s_or_t(stem: bytes) -> bool:
    return stem[-1:] in (b"s", b"t") and measure_above_1(stem)


Rule = tuple[bytes, Condition | None, bytes]

_STEP_1B: Final[tuple[Rule, ...]] = (
    (b"eed", measure_above_0, b"ee"),
    (b"ed", has_vowel, b""),
    (b"ing", has_vowel, b""),
)
# Only stripping ``ed`` or ``ing`` sends a word on to the clean-up after step 1b.
_STEP_1B_STRIPS: Final = frozenset({b"ed", b"ing"})
_STEP_1B_FIX: Final[tuple[Rule, ...]] = (
    (b"at", None, b"ate"),
    (b"bl", None, b"ble"),
    (b"iz", None, b"ize"),
)
_STEP_2: Final[tuple[Rule, ...]] = tuple(
    (suffix.encode(), measure_above_0, out.encode())
    for suffix, out in (
        ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
        ("izer", "ize"), ("logi", "log"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"),
        ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
        ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
        ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
    )
)  # fmt: skip
_STEP_3: Final[tuple[Rule, ...]] = tuple(
    (suffix.encode(), measure_above_0, out.encode())
    for suffix, out in (
        ("ical", "ic"), ("ness", ""), ("icate", "ic"), ("iciti", "ic"), ("ful", ""),
        ("ative", ""), ("alize", "al"),
    )
)  # fmt: skip
_STEP_4: Final[tuple[Rule, ...]] = tuple(
    (suffix.encode(), _m1_and_s_or_t if suffix == "ion" else measure_above_1, b"")
    for suffix in (
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
        "ou", "ism", "ate", "iti", "ous", "ive", "ize",
    )
)  # fmt: skip


def _apply(word: bytes, rules: tuple[Rule, ...]) -> tuple[bytes, bytes | None]:
    """The first rule whose suffix ends ``word`` with a non-empty stem left decides: applied
    when its condition holds, otherwise nothing happens. Returns the word and the suffix of the
    rule that was applied (``None`` when none was)."""
    if len(word) < 2:
        return word, None
    for suffix, condition, output in rules:
        if len(word) <= len(suffix) or not word.endswith(suffix):
            continue
        stem = word[: -len(suffix)]
        if condition is None or condition(stem):
            return stem + output, suffix
        return word, None
    return word, None


def _step_1a(word: bytes) -> bytes:
    if not word.endswith(b"s"):
        return word
    if word[-2:-1] == b"e":
        sses = len(word) > 4 and word[-4:-2] == b"ss"
        ies = len(word) > 3 and word[-3:-2] == b"i"
        return word[:-2] if sses or ies else word[:-1]
    return word if word[-2:-1] == b"s" else word[:-1]


def _after_step_1b(word: bytes) -> bytes:
    fixed, applied = _apply(word, _STEP_1B_FIX)
    if applied is not None:
        return fixed
    last = word[-1:]
    if last and last[0] not in _VOWELS and last not in (b"l", b"s", b"z") and last == word[-2:-1]:
        return word[:-1]
    if measure_is_1(word) and ends_cvc(word):
        return word + b"e"
    return word


def porter_stem(token: str) -> str:
    """``token`` (already folded to lower case by the base tokenizer) as FTS5's porter stems it."""
    word = token.encode("utf-8")
    if not MIN_BYTES <= len(word) <= MAX_BYTES:
        return token
    word = _step_1a(word)
    word, applied = _apply(word, _STEP_1B)
    if applied in _STEP_1B_STRIPS:
        word = _after_step_1b(word)
    if word.endswith(b"y") and has_vowel(word[:-1]):
        word = word[:-1] + b"i"
    word, _ = _apply(word, _STEP_2)
    word, _ = _apply(word, _STEP_3)
    word, _ = _apply(word, _STEP_4)
    if word.endswith(b"e") and (
        measure_above_1(word[:-1]) or (measure_is_1(word[:-1]) and not ends_cvc(word[:-1]))
    ):
        word = word[:-1]
    if len(word) > 1 and word.endswith(b"ll") and measure_above_1(word[:-1]):
        word = word[:-1]
    return word.decode("utf-8", errors="surrogateescape")
