"""html5lib with its hostile-input guards: the reference parser, and the fallback parser.

html5lib builds the tree in Python, so each cap of ``tree.py`` is checked while it builds:
the tokenizer refuses a tag once it holds too many attributes, and the tree builder refuses a
tree that grows too deep or too large, long before the cost becomes noticeable. Kept apart so
a parse that never needs html5lib never imports it.
"""

from __future__ import annotations

import threading
from typing import Any

import html5lib
from html5lib._tokenizer import HTMLTokenizer

from memhtml.adapters.html.tree import (
    MAX_ATTRIBUTES_PER_ELEMENT,
    MAX_ELEMENTS,
    MAX_NESTING_DEPTH,
    TOO_DEEP,
    TOO_MANY_ATTRIBUTES,
    TOO_MANY_ELEMENTS,
    LimitExceeded,
)


class _GuardedTokenizer(HTMLTokenizer):
    """html5lib's tokenizer, refusing a tag once it holds too many attributes."""

    def attributeNameState(self) -> bool:  # noqa: N802 - html5lib's own state name
        token = self.currentToken
        if token is not None and len(token["data"]) > MAX_ATTRIBUTES_PER_ELEMENT:
            raise LimitExceeded(TOO_MANY_ATTRIBUTES)
        return super().attributeNameState()


_EtreeBuilder: Any = html5lib.getTreeBuilder("etree")


class _GuardedTreeBuilder(_EtreeBuilder):  # type: ignore[misc]  # html5lib builds it at runtime
    """The etree tree builder, refusing a tree that grows too deep or too large."""

    def reset(self) -> None:
        super().reset()
        self.inserted = 0

    def insertElementNormal(self, token: Any) -> Any:  # noqa: N802 - overrides html5lib
        element = super().insertElementNormal(token)
        self._check()
        return element

    def insertElementTable(self, token: Any) -> Any:  # noqa: N802 - overrides html5lib
        element = super().insertElementTable(token)
        self._check()
        return element

    def _check(self) -> None:
        self.inserted += 1
        if len(self.openElements) > MAX_NESTING_DEPTH:
            raise LimitExceeded(TOO_DEEP)
        if self.inserted > MAX_ELEMENTS:
            raise LimitExceeded(TOO_MANY_ELEMENTS)


class _GuardedParser(html5lib.HTMLParser):
    """An HTMLParser whose tokenizer for each document is the guarded one.

    html5lib creates a fresh tokenizer per document and calls ``reset`` right after, which is
    the one public moment to swap in the subclass without copying the parser's own code.
    """

    def reset(self) -> None:
        self.tokenizer.__class__ = _GuardedTokenizer
        super().reset()


# A parser instance carries per-document state, so each thread keeps its own; building one
# costs about a tenth of a small file's parse.
_local = threading.local()


def guarded_parser() -> _GuardedParser:
    """This thread's guarded html5lib parser (etree, HTML names unprefixed)."""
    parser: _GuardedParser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _GuardedParser(tree=_GuardedTreeBuilder, namespaceHTMLElements=False)
        _local.parser = parser
    return parser
