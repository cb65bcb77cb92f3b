"""Whether a link target in an article is safe to follow: http, https, mailto or relative.

A browser reads a URL after decoding entities (the parser already did), stripping leading and
trailing C0 controls and spaces, and deleting every tab and newline, so ``jav&#x61;script:``,
`` java\\tscript:`` and ``JAVASCRIPT:`` all run script. The check reads the URL the same way,
then refuses any scheme outside the allowed three and any control character left inside.
"""

from __future__ import annotations

import re
from typing import Final

ALLOWED_SCHEMES: Final = frozenset({"http", "https", "mailto"})
# What the URL parser strips from both ends, and what it deletes anywhere.
_C0_OR_SPACE: Final = "".join(map(chr, range(0x21)))
_TAB_OR_NEWLINE: Final = str.maketrans("", "", "\t\n\r")
# A scheme is a letter, then letters, digits, `+`, `-` or `.`, up to the first colon; a URL
# whose colon comes after any other character is relative (`/a:b`, `a/b:c`).
_SCHEME: Final = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_CONTROL: Final = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def url_refusal(value: str) -> str | None:
    """Why ``value`` may not be a link target, or None when it may.

    Args:
        value: The attribute value as parsed (entities decoded).

    Returns:
        A short reason naming the scheme (cut to 20 characters), or None.
    """
    url = value.strip(_C0_OR_SPACE).translate(_TAB_OR_NEWLINE)
    if _CONTROL.search(url):
        return "it holds a control character"
    scheme = _SCHEME.match(url)
    if scheme is not None and scheme[1].lower() not in ALLOWED_SCHEMES:
        return f"scheme {scheme[1].lower()[:20]!r} is not http, https or mailto"
    return None
