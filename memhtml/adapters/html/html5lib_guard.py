"""html5lib with its hostile-input guards: the reference parser, and the fallback parser.

html5lib builds the tree in Python, so each cap of ``tree.py`` is checked while it builds:
the tokenizer refuses a tag once it holds too many attributes, and the tree builder refuses a
tree that grows too deep or too large, long before the cost becomes noticeable. Kept apart so
a parse that never needs html5lib never imports it.
"""

from __future__ import annotations

import threading
from typing import Any, Final

import html5lib
from html5lib import html5parser
from html5lib._tokenizer import HTMLTokenizer
from html5lib.constants import namespaces

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


def _conformant_in_body(phase: Any) -> None:
    """Make html5lib drop a newline after ``<pre>`` only when it is the very next token.

    The HTML standard ignores a line feed that is the token right after a ``<pre>`` start tag.
    html5lib instead drops the first line feed while the ``<pre>`` is still empty, so in
    ``<pre><head></head>\nx`` (an ignored tag first) it loses a line feed that lexbor,
    browsers and docs/format.md §1 ("directly after") keep, and the two parsers hashed such an
    article differently. Resetting html5lib's drop-newline state at every tag restores the
    standard's rule; the contract suite pins the case. Done by swapping the phase's class, as
    the tokenizer's is, so no html5lib code is copied.
    """
    base = type(phase)

    class ConformantInBody(base):  # type: ignore[misc, valid-type]  # built by html5lib at runtime
        __slots__ = ()

        def processStartTag(self, token: Any) -> Any:  # noqa: N802 - overrides html5lib
            self._keep_newlines()
            return super().processStartTag(token)

        def processEndTag(self, token: Any) -> Any:  # noqa: N802 - overrides html5lib
            self._keep_newlines()
            return super().processEndTag(token)

        def _keep_newlines(self) -> None:
            # html5lib's own slot, declared on its phase class.
            self.processSpaceCharacters = self.processSpaceCharactersNonPre  # type: ignore[misc]

    phase.__class__ = ConformantInBody


# html5lib's "special" elements predate <figcaption> and <summary> joining the standard's
# list, so it let a nested <li>, <dt> or <dd> close an outer one across them
# (``<li><figcaption><li>``), where lexbor and browsers keep it inside. Its parser reads the
# set as a module global, so the standard's membership is restored there, once, at import.
_LATER_SPECIAL: Final = frozenset({"figcaption", "summary"})
_SPECIAL: Final = {(namespaces["html"], name) for name in _LATER_SPECIAL}
html5parser.specialElements = html5parser.specialElements | _SPECIAL  # type: ignore[attr-defined]

_TABLE_CONTEXT = frozenset({"table", "tbody", "tfoot", "thead", "tr", "template"})


def _conformant_in_table(phase: Any) -> None:
    """Make html5lib treat whitespace in a table as the HTML standard does.

    The standard sends character tokens to its "in table text" mode only while the current
    node is a table element; after foster-parented content (``<table><p>…``) the current node
    is that content, and whitespace there is inserted by the in-body rules, re-opening any
    formatting element left open. html5lib always buffers it as table text, so it lost such a
    re-opened element that lexbor builds. Outside a table context the whitespace now takes
    html5lib's own "anything else" path (foster parenting, in-body rules).
    """
    base = type(phase)

    class ConformantInTable(base):  # type: ignore[misc, valid-type]  # built by html5lib at runtime
        __slots__ = ()

        def processSpaceCharacters(self, token: Any) -> Any:  # noqa: N802 - overrides html5lib
            if self.tree.openElements[-1].name in _TABLE_CONTEXT:
                return super().processSpaceCharacters(token)
            self.insertText(token)
            return None

    phase.__class__ = ConformantInTable


# A parser instance carries per-document state, so each thread keeps its own; building one
# costs about a tenth of a small file's parse.
_local = threading.local()


def guarded_parser() -> _GuardedParser:
    """This thread's guarded html5lib parser (etree, HTML names unprefixed)."""
    parser: _GuardedParser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _GuardedParser(tree=_GuardedTreeBuilder, namespaceHTMLElements=False)
        _conformant_in_body(parser.phases["inBody"])
        _conformant_in_table(parser.phases["inTable"])
        _local.parser = parser
    return parser
