"""Text to a ``Scan`` through lexbor (selectolax), the fast parser for plain files.

lexbor is an HTML5-conformant parser written in C: a 2 KB memory parses in about 0.04 ms where
html5lib takes about 1.5 ms. Only files the pre-scan proves plain come here (``prescan.py``),
so no input can make lexbor build far more than it holds. The walk is iterative and reports the
tree to the same ``ScanBuilder`` as html5lib's walk, so every check downstream is shared.

The walk gives up (returns None) on anything outside what a plain file can produce: an element
outside the vocabulary, or a tree past the nesting or element caps. The caller then parses
with html5lib, whose guards decide; a cap is therefore never decided by this module.
"""

from __future__ import annotations

from typing import Final

from selectolax.lexbor import LexborHTMLParser, LexborNode

from memhtml.adapters.html.elements import KNOWN_ELEMENTS
from memhtml.adapters.html.scan import Scan, ScanBuilder
from memhtml.adapters.html.tree import MAX_ELEMENTS, MAX_NESTING_DEPTH

_TEXT: Final = "-text"
# Comments are "-comment"; lexbor names every non-element node with a leading hyphen.
_NON_ELEMENT_MARK: Final = "-"


def scan_lexbor(text: str) -> Scan | None:
    """The scan of ``text`` parsed by lexbor, or None when html5lib must decide instead."""
    builder = ScanBuilder()
    start, add_text, end = builder.start, builder.text, builder.end
    opened: list[LexborNode] = []
    count = 0
    node = LexborHTMLParser(text).root
    if node is None:
        return None
    while True:
        if node is None:
            end()
            closed = opened.pop()
            if not opened:
                break
            node = closed.next
            continue
        tag = node.tag
        if tag == _TEXT:
            add_text(node.text_content or "")
            node = node.next
        elif tag is None or tag.startswith(_NON_ELEMENT_MARK):
            node = node.next
        else:
            count += 1
            if tag not in KNOWN_ELEMENTS or count > MAX_ELEMENTS:
                return None
            attributes = node.attributes
            # lexbor reports an attribute written without a value as None; html5lib as "".
            if attributes and None in attributes.values():
                attributes = {name: value or "" for name, value in attributes.items()}
            start(tag, attributes)  # type: ignore[arg-type]  # no None value is left
            opened.append(node)
            if len(opened) > MAX_NESTING_DEPTH:
                return None
            node = node.first_child
    return builder.finish()
