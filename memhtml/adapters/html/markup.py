"""Document-wide markup rules: the closed vocabulary of elements and attributes (docs/format.md §4).

A memory is published as HTML and shown by other programs, so it may carry only the format's
own elements and attributes: nothing that runs, styles, embeds, submits, redirects or fetches.
The check is an allow-list (``elements.py``), applied wherever the markup sits, foreign (SVG,
MathML) content included: an element outside the vocabulary, a head element (``<title>``,
``<meta>``, ``<link>``) in the body, a ``<link>`` that is not a ``memhtml-`` relation, an
attribute the element does not take, and a link target whose scheme is not http, https or
mailto are each a violation. ``<script>``, ``<style>``, ``class``, ``style`` and ``on…``
handlers keep the codes docs/format.md §10 gives them.
"""

from __future__ import annotations

from typing import Final

from memhtml.adapters.html.constraints import Findings, quoted
from memhtml.adapters.html.elements import (
    ELEMENT_ATTRIBUTES,
    GLOBAL_ATTRIBUTES,
    HEAD_ELEMENTS,
    KNOWN_ELEMENTS,
    URL_ATTRIBUTES,
)
from memhtml.adapters.html.scan import Node, Scan
from memhtml.adapters.html.urls import url_refusal
from memhtml.domain.datetimes import is_valid_datetime
from memhtml.domain.meta_names import META_PREFIX
from memhtml.domain.model import ASCII_WHITESPACE

FORBIDDEN_ELEMENTS: Final = frozenset({"script", "style"})
FORBIDDEN_ATTRIBUTES: Final = frozenset({"class", "style"})
EVENT_HANDLER_PREFIX: Final = "on"
# Generic containers carry no meaning of their own; inside a figure they may group a diagram.
SCOPED_ELEMENTS: Final = frozenset({"div", "span"})
_NO_ATTRIBUTES: Final[frozenset[str]] = frozenset()


def check_markup(scan: Scan, findings: Findings) -> None:
    """Record markup outside the vocabulary, bad ``<time>`` values and misplaced containers."""
    scoped_warned: set[str] = set()
    for node in scan.nodes:
        name = node.name
        problem = _element_problem(node)
        if problem is not None:
            # The element goes whole, so its attributes need no findings of their own.
            findings.violation(*problem, node.index)
            continue
        if name in SCOPED_ELEMENTS and not node.in_figure and name not in scoped_warned:
            # One warning per name: a file of 10,000 <div>s needs telling once.
            scoped_warned.add(name)
            findings.warning("scoped-element", f"<{name}> is allowed only inside <figure>")
        if node.attrs:
            _check_attributes(node, findings)
        if name == "time" and not is_valid_datetime(node.attrs.get("datetime") or ""):
            findings.violation("time-datetime", "<time> needs a valid datetime", node.index)


def _element_problem(node: Node) -> tuple[str, str] | None:
    name = node.name
    if name.rpartition(":")[2] in FORBIDDEN_ELEMENTS:
        return "forbidden-element", f"<{name}> is forbidden"
    if name not in KNOWN_ELEMENTS:
        return "element-not-allowed", f"element {quoted(name)} is not in the format's vocabulary"
    if name in HEAD_ELEMENTS and not node.in_head:
        return "element-not-allowed", f"<{name}> is allowed only in <head>"
    if name == "link":
        rel = (node.attrs.get("rel") or "").strip(ASCII_WHITESPACE)
        if not rel.startswith(META_PREFIX):
            return "element-not-allowed", f"<link> is allowed only with a {META_PREFIX} rel"
    return None


# Per element, every attribute it may carry; a node whose attributes all fall in its set and
# include no URL needs no closer look (most metas, every plain <p>).
_ALLOWED: Final = {name: names | GLOBAL_ATTRIBUTES for name, names in ELEMENT_ATTRIBUTES.items()}


def _check_attributes(node: Node, findings: Findings) -> None:
    keys = node.attrs.keys()
    if keys <= _ALLOWED.get(node.name, GLOBAL_ATTRIBUTES) and keys.isdisjoint(URL_ATTRIBUTES):
        return
    allowed = ELEMENT_ATTRIBUTES.get(node.name, _NO_ATTRIBUTES)
    for position, (key, value) in enumerate(node.attrs.items()):
        attribute = key.lower()
        where = (node.index, position)
        if attribute in FORBIDDEN_ATTRIBUTES:
            detail = f"attribute {attribute} on <{node.name}> is forbidden"
            findings.violation("forbidden-attribute", detail, *where)
        elif attribute.startswith(EVENT_HANDLER_PREFIX):
            detail = f"event handler {quoted(attribute)} on <{node.name}> is forbidden"
            findings.violation("event-handler", detail, *where)
        elif attribute not in allowed and attribute not in GLOBAL_ATTRIBUTES:
            detail = f"attribute {quoted(attribute)} is not allowed on <{node.name}>"
            findings.violation("attribute-not-allowed", detail, *where)
        elif attribute in URL_ATTRIBUTES and (reason := url_refusal(value)) is not None:
            detail = f"{attribute} on <{node.name}> is refused: {reason}"
            findings.violation("url-scheme", detail, *where)
