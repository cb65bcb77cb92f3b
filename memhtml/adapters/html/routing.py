"""Which tree builder reads a file: lexbor for a plain file, html5lib for everything else."""

from __future__ import annotations

from memhtml.adapters.html.lexbor_tree import scan_lexbor
from memhtml.adapters.html.prescan import is_plain
from memhtml.adapters.html.scan import Scan
from memhtml.adapters.html.tree import parse_tree, scan_tree


def scan_text(text: str) -> Scan:
    """The scan of decoded ``text``: lexbor's for a plain file, else html5lib's.

    Raises:
        InvalidMemory: html5lib crossed a nesting, element or attribute cap.
    """
    scan = scan_lexbor(text) if is_plain(text) else None
    return scan if scan is not None else scan_tree(parse_tree(text))


def scan_text_reference(text: str) -> Scan:
    """The scan of decoded ``text`` by html5lib, whatever the file.

    Raises:
        InvalidMemory: html5lib crossed a nesting, element or attribute cap.
    """
    return scan_tree(parse_tree(text))
