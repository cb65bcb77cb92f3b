"""Text measures shared by every length limit in the project.

Every limit (chunk ceiling, snippet, recall budgets, commit subject) counts UTF-16 code units,
as the original tool did (DECISIONS.md 1). Counting code points instead would let a chunk full
of emoji or CJK overflow a budget the other implementation respects.
"""

from __future__ import annotations


def utf16_len(text: str) -> int:
    """Length of ``text`` in UTF-16 code units (a non-BMP character counts 2)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)
