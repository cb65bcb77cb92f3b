"""Text measures and cuts shared by every length limit in the project.

Every limit (chunk ceiling, snippet, recall budgets, commit subject) counts UTF-16 code units,
as the original tool did (docs/decisions.md §1). Counting code points instead would let a chunk full
of emoji or CJK overflow a budget the other implementation respects.
"""

from __future__ import annotations


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (a non-BMP character counts 2)."""
    # The encoder runs in C: ~150x faster than counting astral characters in Python, which cost
    # ~6 s of CPU in a 10k-file rebuild. surrogatepass keeps a lone surrogate countable.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_prefix(text: str, max_units: int) -> str:
    """The longest prefix of ``text`` that fits in ``max_units`` UTF-16 code units.

    A character outside the BMP that would straddle the ceiling is left out whole, so the
    prefix may be one unit short of ``max_units``.
    """
    if max_units <= 0:
        return ""
    if len(text) <= max_units // 2:
        # Even all-astral text this short fits; skips the walk for the common case.
        return text
    units = 0
    for index, ch in enumerate(text):
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > max_units:
            return text[:index]
    return text
