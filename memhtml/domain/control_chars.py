"""Control characters: which ones memory text may not hold, and how to show or drop them.

A title, claim, tag or entity is printed to terminals, written into commit subjects and
handed to other programs. An ESC there is a terminal escape sequence waiting to run, so those
fields refuse C0 controls other than the whitespace the format collapses anyway (tab, line
feed, form feed, carriage return), DEL and the C1 range. Where text is shown rather than
stored, every control but tab and line feed is escaped visibly instead.
"""

from __future__ import annotations

import re
from typing import Final

# Refused in stored fields: C0 except tab, line feed, form feed and carriage return (ASCII
# whitespace, which every field collapses to a space), DEL, and C1 (U+0080-U+009F).
REFUSED_CONTROL: Final = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
# Escaped on a terminal: every C0 control except tab and line feed, DEL and C1.
DISPLAY_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def first_refused_control(text: str) -> str | None:
    """The first refused control character in ``text`` as ``U+001B``, or None."""
    found = REFUSED_CONTROL.search(text)
    return None if found is None else f"U+{ord(found[0]):04X}"


def escape_controls(text: str) -> str:
    """``text`` with each control but tab and line feed written as ``\\x1b``, visibly."""
    return DISPLAY_CONTROL.sub(lambda found: f"\\x{ord(found[0]):02x}", text)


def strip_controls(text: str) -> str:
    """``text`` without its refused controls; ASCII whitespace is left for the caller to
    collapse, so ``a\rb`` does not become ``ab``."""
    return REFUSED_CONTROL.sub("", text)
