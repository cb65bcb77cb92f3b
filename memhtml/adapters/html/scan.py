"""One pass over a parsed document: every element in order, plus the article's text.

A tree builder (html5lib's in ``tree.py``, lexbor's in ``lexbor_tree.py``) walks its own tree
without recursion and reports it to a ``ScanBuilder`` as start, text and end events; every
check and derived field then reads the resulting ``Scan``, never a parser's tree, so the two
parsers cannot disagree past this point. The scan records each element once, with the flags
its ancestors imply, and the article's text pieces with the span each element covers, so every
derived text is a slice of one list instead of a second walk per element.
"""

from __future__ import annotations

from typing import Final

# docs/format.md §7, step 2: every other element, unknown ones included, is a block.
INLINE_ELEMENTS: Final = frozenset(
    {"mark", "time", "data", "cite", "q", "dfn", "abbr", "code", "kbd", "samp", "var", "a"}
    | {"strong", "em", "span"}
)
BLOCK_SPACE: Final = " "
# The one element whose own text a check reads outside the article.
_TEXT_COLLECTING: Final = "title"


class Node:
    """One element of the document, in document order.

    Attributes:
        name: Its name (``p``; foreign elements prefixed, ``svg:svg``).
        attrs: Its attributes as written after parsing: names lowercased (foreign ones
            ``xlink:href``), values entity-decoded, the first of duplicate names kept.
        index: Position in document order.
        stop: One past the index of its last descendant, so ``nodes[index + 1 : stop]``
            are its descendants.
        parent: The parent node, None for ``<html>``.
        in_head, in_article, in_figure, in_pre: Whether the element or an ancestor is a
            ``<head>``, the (first) ``<article>``, a ``<figure>`` or a ``<pre>``.
        start, end: The span of article text pieces inside the element (empty outside it).
        text: The element's own text, collected for ``<title>`` only.
    """

    __slots__ = (
        "attrs",
        "end",
        "in_article",
        "in_figure",
        "in_head",
        "in_pre",
        "index",
        "name",
        "parent",
        "start",
        "stop",
        "text",
    )

    name: str
    attrs: dict[str, str]
    index: int
    stop: int
    parent: Node | None
    in_head: bool
    in_figure: bool
    in_pre: bool
    in_article: bool
    start: int
    end: int
    text: str

    def __init__(self, name: str, attrs: dict[str, str], index: int, parent: Node | None) -> None:
        self.name = name
        self.attrs = attrs
        self.index = index
        self.stop = index + 1
        self.parent = parent
        if parent is None:
            self.in_head = name == "head"
            self.in_figure = name == "figure"
            self.in_pre = name == "pre"
            self.in_article = False
        else:
            self.in_head = parent.in_head or name == "head"
            self.in_figure = parent.in_figure or name == "figure"
            self.in_pre = parent.in_pre or name == "pre"
            self.in_article = parent.in_article
        self.start = 0
        self.end = 0
        self.text = ""

    def ancestors(self) -> list[Node]:
        """Ancestors from the parent outwards."""
        found: list[Node] = []
        node = self.parent
        while node is not None:
            found.append(node)
            node = node.parent
        return found


class Scan:
    """The result of one pass: element nodes, article text pieces and the article node.

    Attributes:
        nodes: Every element in document order (comments left out).
        pieces: Article text in order: text nodes and the spaces blocks add around them.
        verbatim: For each piece, whether it is text inside a ``<pre>`` (kept as is).
        article: The first ``<article>`` node, or None.
        article_count: How many ``<article>`` elements the document holds.
        max_depth: The deepest element's depth, ``<html>`` being 1.
    """

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.pieces: list[str] = []
        self.verbatim: list[bool] = []
        self.article: Node | None = None
        self.article_count = 0
        self.max_depth = 0


class ScanBuilder:
    """Turns a tree walk's start, text and end events into a ``Scan``.

    Events must nest: every ``start`` is matched by one ``end``, text arrives between them.
    """

    def __init__(self) -> None:
        self.scan = Scan()
        self._open: list[Node] = []

    def start(self, name: str, attrs: dict[str, str]) -> None:
        """An element opens."""
        scan = self.scan
        opened = self._open
        node = Node(name, attrs, len(scan.nodes), opened[-1] if opened else None)
        scan.nodes.append(node)
        opened.append(node)
        if len(opened) > scan.max_depth:
            scan.max_depth = len(opened)
        if name == "article":
            scan.article_count += 1
            if scan.article is None:
                scan.article = node
                node.in_article = True
        node.start = len(scan.pieces)
        if node.in_article and name not in INLINE_ELEMENTS:
            scan.pieces.append(BLOCK_SPACE)
            scan.verbatim.append(False)

    def text(self, data: str) -> None:
        """A text node inside the innermost open element."""
        if not self._open:
            return
        node = self._open[-1]
        if node.in_article:
            self.scan.pieces.append(data)
            self.scan.verbatim.append(node.in_pre)
        if node.name == _TEXT_COLLECTING:
            node.text += data

    def end(self) -> None:
        """The innermost open element closes."""
        scan = self.scan
        node = self._open.pop()
        if node.in_article and node.name not in INLINE_ELEMENTS:
            scan.pieces.append(BLOCK_SPACE)
            scan.verbatim.append(False)
        node.end = len(scan.pieces)
        node.stop = len(scan.nodes)

    def finish(self) -> Scan:
        """The scan, once every element has closed."""
        while self._open:
            self.end()
        return self.scan
