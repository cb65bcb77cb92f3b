"""The canonical text of an ``<article>`` and its content hash (docs/format.md §7).

The hash covers what a reader sees, not how it was typed: re-indenting, re-wrapping or
pretty-printing the article keeps it, while any change to words (a U+00A0 included) or to the
inside of a ``<pre>`` changes it. The head is out of scope, so head-only edits keep it too.
"""

from __future__ import annotations

import hashlib
from itertools import groupby
from typing import Final

from memhtml.adapters.html.routing import scan_text
from memhtml.adapters.html.scan import Node, Scan
from memhtml.adapters.html.tree import decode_memory
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.model import collapse_whitespace

HASH_PREFIX: Final = "sha256:"
_ASCII_WS_TO_SPACE: Final = str.maketrans("\t\n\f\r", "    ")


def _collapse_runs(text: str) -> str:
    """Each ASCII whitespace run becomes one space; unlike ``collapse_whitespace``, no trim."""
    spaced = text.translate(_ASCII_WS_TO_SPACE)
    core = " ".join(filter(None, spaced.split(" ")))
    if not core:
        return " " if spaced else ""
    return (" " if spaced[0] == " " else "") + core + (" " if spaced[-1] == " " else "")


def canonical_text(scan: Scan, node: Node) -> str:
    """The §7 canonical text of ``node``: blocks spaced, whitespace collapsed, ``<pre>`` kept.

    Adjacent pieces of the same kind merge; each ASCII whitespace run in collapsible text
    becomes one space; one leading space of the first and one trailing space of the last
    segment go, when those segments are collapsible.
    """
    runs = groupby(range(node.start, node.end), key=scan.verbatim.__getitem__)
    segments = [(keep, "".join(scan.pieces[i] for i in run)) for keep, run in runs]
    texts = [text if keep else _collapse_runs(text) for keep, text in segments]
    if not texts:
        return ""
    if not segments[0][0] and texts[0].startswith(" "):
        texts[0] = texts[0][1:]
    if not segments[-1][0] and texts[-1].endswith(" "):
        texts[-1] = texts[-1][:-1]
    return "".join(texts)


def hash_of_canonical(text: str) -> str:
    """``sha256:`` plus the lowercase hex SHA-256 of ``text`` in UTF-8."""
    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def text_of(scan: Scan, node: Node) -> str:
    """docs/format.md §6 "text": the canonical walk with every whitespace run collapsed, trimmed."""
    return collapse_whitespace("".join(scan.pieces[node.start : node.end]))


def text_without(scan: Scan, node: Node, skipped: frozenset[str]) -> str:
    """Like :func:`text_of`, leaving out the subtrees of descendants named in ``skipped``."""
    kept: list[str] = []
    cursor = node.start
    for other in scan.nodes[node.index + 1 : node.stop]:
        if other.name in skipped and other.start >= cursor:
            kept += scan.pieces[cursor : other.start]
            cursor = other.end
    kept += scan.pieces[cursor : node.end]
    return collapse_whitespace("".join(kept))


def content_hash_of(html: str | bytes) -> str:
    """The content hash of the first ``<article>`` in ``html`` (a whole file or a fragment).

    Args:
        html: Markup holding an ``<article>``, e.g. ``<article><p>…</p></article>``.

    Returns:
        ``sha256:`` followed by 64 lowercase hex digits.

    Raises:
        InvalidMemory: the markup has no ``<article>`` or crosses a parsing cap.
    """
    scan = scan_text(decode_memory(html))
    if scan.article is None:
        raise InvalidMemory((Finding(code="article-count", detail="no <article> to hash"),))
    return hash_of_canonical(canonical_text(scan, scan.article))
