"""Document-wide markup rules: the closed element vocabulary and forbidden markup (FORMAT.md §4).

Forbidden markup (``<script>``, ``<style>``, ``class``, ``style``, ``on…`` handlers) is a
violation wherever it appears, foreign (SVG, MathML) content included, because a memory is
published as HTML and must never carry behaviour or presentation. Unknown elements only warn.
"""

from __future__ import annotations

from typing import Final

from memhtml.adapters.html.constraints import Findings, quoted
from memhtml.adapters.html.scan import Node, Scan
from memhtml.domain.datetimes import is_valid_datetime

DOCUMENT_ELEMENTS: Final = frozenset({"html", "head", "body", "title", "meta", "link"})
BODY_ELEMENTS: Final = frozenset(
    {"article", "mark", "time", "dl", "dt", "dd", "data", "cite", "q", "dfn", "code"}
    | {"details", "summary", "aside", "figure", "figcaption", "abbr", "div", "span"}
    | {"section", "table", "caption", "thead", "tbody", "tr", "th", "td", "p", "ul", "ol"}
    | {"li", "a", "strong", "em", "pre", "kbd", "samp", "var", "address"}
)
KNOWN_ELEMENTS: Final = DOCUMENT_ELEMENTS | BODY_ELEMENTS
FORBIDDEN_ELEMENTS: Final = frozenset({"script", "style"})
FORBIDDEN_ATTRIBUTES: Final = frozenset({"class", "style"})
EVENT_HANDLER_PREFIX: Final = "on"
# Generic containers carry no meaning of their own; inside a figure they may group a diagram.
SCOPED_ELEMENTS: Final = frozenset({"div", "span"})


def check_markup(scan: Scan, findings: Findings) -> None:
    """Record forbidden markup, bad ``<time>`` values and unknown or misplaced elements."""
    warned: set[str] = set()
    for node in scan.nodes:
        local = node.name.rpartition(":")[2]
        if local in FORBIDDEN_ELEMENTS:
            findings.violation("forbidden-element", f"<{node.name}> is forbidden", node.index)
        elif node.name not in warned and (warning := _vocabulary_warning(node)) is not None:
            # One warning per element name: a file of 10,000 <foo>s needs telling once.
            warned.add(node.name)
            findings.warning(*warning)
        for position, key in enumerate(node.attrs):
            attribute = key.rpartition("}")[2].lower()
            where = (node.index, position)
            if attribute in FORBIDDEN_ATTRIBUTES:
                detail = f"attribute {attribute} on <{node.name}> is forbidden"
                findings.violation("forbidden-attribute", detail, *where)
            elif attribute.startswith(EVENT_HANDLER_PREFIX):
                detail = f"event handler {quoted(attribute)} on <{node.name}> is forbidden"
                findings.violation("event-handler", detail, *where)
        if node.name == "time" and not is_valid_datetime(node.attrs.get("datetime") or ""):
            findings.violation("time-datetime", "<time> needs a valid datetime", node.index)


def _vocabulary_warning(node: Node) -> tuple[str, str] | None:
    if node.name not in KNOWN_ELEMENTS:
        return "unknown-element", f"element {quoted(node.name)} is not in the vocabulary"
    if node.name in SCOPED_ELEMENTS and not node.in_figure:
        return "scoped-element", f"<{node.name}> is allowed only inside <figure>"
    return None
