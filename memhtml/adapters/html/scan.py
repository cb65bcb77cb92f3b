"""One iterative pass over a parsed document: every element in order, plus the article's text.

The scan never recurses, so no depth of markup can reach Python's recursion limit. It records
each element once, with the flags its ancestors imply, and the article's text pieces with the
span each element covers, so every derived text is a slice of one list instead of a second
walk per element.
"""

from __future__ import annotations

from typing import Final, NamedTuple
from xml.etree.ElementTree import Element

from memhtml.adapters.html.tree import element_name

# FORMAT.md §7.2: every other element, unknown ones included, is a block.
INLINE_ELEMENTS: Final = frozenset(
    {"mark", "time", "data", "cite", "q", "dfn", "abbr", "code", "kbd", "samp", "var", "a"}
    | {"strong", "em", "span"}
)
BLOCK_SPACE: Final = " "


class _Open(NamedTuple):
    element: Element
    parent: Node | None


class _Text(NamedTuple):
    text: str
    in_article: bool
    verbatim: bool


class Node:
    """One element of the document, in document order.

    Attributes:
        element: The html5lib element.
        name: Its name (``p``, ``svg:svg``).
        index: Position in document order.
        parent: The parent node, None for ``<html>``.
        in_head, in_article, in_figure, in_pre: Whether the element or an ancestor is a
            ``<head>``, the (first) ``<article>``, a ``<figure>`` or a ``<pre>``.
        start, end: The span of article text pieces inside the element (empty outside it).
    """

    __slots__ = (
        "element",
        "end",
        "in_article",
        "in_figure",
        "in_head",
        "in_pre",
        "index",
        "name",
        "parent",
        "start",
    )

    element: Element
    name: str
    index: int
    parent: Node | None
    in_head: bool
    in_figure: bool
    in_pre: bool
    in_article: bool
    start: int
    end: int

    def __init__(self, element: Element, name: str, index: int, parent: Node | None) -> None:
        self.element = element
        self.name = name
        self.index = index
        self.parent = parent
        self.in_head = name == "head" or (parent is not None and parent.in_head)
        self.in_figure = name == "figure" or (parent is not None and parent.in_figure)
        self.in_pre = name == "pre" or (parent is not None and parent.in_pre)
        self.in_article = parent is not None and parent.in_article
        self.start = 0
        self.end = 0

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
    """

    def __init__(self, root: Element) -> None:
        self.nodes: list[Node] = []
        self.pieces: list[str] = []
        self.verbatim: list[bool] = []
        self.article: Node | None = None
        self.article_count = 0
        self._walk(root)

    def _walk(self, root: Element) -> None:
        # What is still to do, last first: an element to open, a text run, a node to close.
        stack: list[_Open | _Text | Node] = [_Open(root, None)]
        while stack:
            item = stack.pop()
            if isinstance(item, Node):
                self._close(item)
            elif isinstance(item, _Text):
                if item.in_article:
                    self.pieces.append(item.text)
                    self.verbatim.append(item.verbatim)
            else:
                self._open(item.element, item.parent, stack)

    def _open(
        self, element: Element, parent: Node | None, stack: list[_Open | _Text | Node]
    ) -> None:
        name = element_name(element)
        if name is None:
            return
        node = Node(element, name, len(self.nodes), parent)
        self.nodes.append(node)
        if name == "article":
            self.article_count += 1
            if self.article is None:
                self.article = node
                node.in_article = True
        node.start = len(self.pieces)
        if node.in_article and name not in INLINE_ELEMENTS:
            self.pieces.append(BLOCK_SPACE)
            self.verbatim.append(False)
        stack.append(node)
        for child in reversed(element):
            if child.tail:
                stack.append(_Text(child.tail, node.in_article, node.in_pre))
            stack.append(_Open(child, node))
        if element.text:
            stack.append(_Text(element.text, node.in_article, node.in_pre))

    def _close(self, node: Node) -> None:
        if node.in_article and node.name not in INLINE_ELEMENTS:
            self.pieces.append(BLOCK_SPACE)
            self.verbatim.append(False)
        node.end = len(self.pieces)
