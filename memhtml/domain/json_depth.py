"""How deeply a JSON text nests, measured before a decoder recurses into it.

Python's decoder recurses once per ``[`` or ``{``: 100,000 of them raise ``RecursionError``
from deep inside it (issue 14), which no caller can tell from a bug. One linear pass over the
text answers first, so an over-deep line is refused as bad input with the limit named.
"""

from __future__ import annotations

import re
from typing import Final

# A whole string (escapes included, or running to the end when unterminated) or one bracket.
# Strings are matched only to be skipped: a bracket inside one is text, not structure.
_TOKENS: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\Z)|[\[\]{}]', re.DOTALL)


def nesting_depth(text: str) -> int:
    """The deepest run of open ``[``/``{`` in ``text``, brackets inside strings not counted.

    Malformed text gets a number too (an unclosed ``[`` still counts, a stray ``]`` does not
    go below zero): whether the text is JSON at all is the decoder's question, asked after.
    """
    depth = deepest = 0
    for token in _TOKENS.finditer(text):
        mark = token[0]
        if mark in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif mark in "]}":
            depth = max(depth - 1, 0)
    return deepest


def nests_deeper_than(text: str, limit: int) -> bool:
    """Whether ``text`` nests more than ``limit`` levels (see :func:`nesting_depth`).

    Counting the brackets first answers the common case without the scan: a line holding at
    most ``limit`` openers cannot nest deeper than that.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    return nesting_depth(text) > limit
