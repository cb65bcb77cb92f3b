"""Reading the article: the claim's placement rules and every field derived from the body.

docs/format.md §4 names what each element feeds and §6 defines the fields; §10 rows 4–8 are the
article and ``<mark>`` checks. Every text here is a slice of the one scan (``text_of``), so a
field and the content hash can never disagree about what the article says.
"""

from __future__ import annotations

import re
from typing import Any, Final

from memhtml.adapters.html.constraints import Findings, quoted
from memhtml.adapters.html.content_hash import (
    canonical_text,
    hash_of_canonical,
    text_of,
    text_without,
)
from memhtml.adapters.html.head import parse_decimal
from memhtml.adapters.html.scan import Node, Scan
from memhtml.domain.model import ASCII_WHITESPACE, Citation, Facet, collapse_whitespace

LANG_TOKEN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+#.-]*")
# The claim must be prose a reader can quote, so code inside <mark> does not count towards it.
GIST_EXCLUDED: Final = frozenset({"pre", "code"})
# A claim hidden in a caveat or a collapsed block would be disclosed as if it were the point.
MARK_FORBIDDEN_ANCESTORS: Final = {"aside": "mark-in-aside", "details": "mark-in-details"}
CLAIM_CONTAINERS: Final = frozenset({"p", "li"})
_TEXT_FIELDS: Final = {
    "dfn": "defined_terms",
    "summary": "summary_texts",
    "aside": "aside_texts",
    "figcaption": "captions",
}


def read_article(scan: Scan, findings: Findings) -> dict[str, Any]:
    """The ``MemoryDoc`` fields the article determines; problems go to ``findings``."""
    if scan.article_count != 1:
        detail = f"{scan.article_count} <article> elements; exactly one needed"
        findings.violation("article-count", detail)
    article = scan.article
    if article is None:
        return {"content_hash": hash_of_canonical("")}
    inside = [node for node in scan.nodes[article.index + 1 :] if node.in_article]
    lists: dict[str, list[str]] = {field: [] for field in _TEXT_FIELDS.values()}
    citations: list[Citation] = []
    abbreviations: list[str] = []
    code_langs: list[str] = []
    for node in inside:
        if node.name in _TEXT_FIELDS:
            text = text_of(scan, node)
            if text:
                lists[_TEXT_FIELDS[node.name]].append(text)
        elif node.name in ("cite", "q"):
            text = text_of(scan, node)
            href = node.attrs.get("cite") if node.name == "q" else None
            if text:
                citations.append(Citation(text, href or None))
        elif node.name == "abbr":
            title = collapse_whitespace(node.attrs.get("title") or "")
            if title:
                abbreviations.append(title)
        elif node.name == "code" and "data-lang" in node.attrs:
            lang = node.attrs["data-lang"]
            if LANG_TOKEN.fullmatch(lang):
                code_langs.append(lang.lower())
            else:
                findings.warning("lang-token", f"data-lang {quoted(lang)} is not a language token")
    times = [node for node in inside if node.name == "time"]
    return {
        **{field: tuple(texts) for field, texts in lists.items()},
        "gist": _claim(scan, article, inside, findings),
        "body_text": text_of(scan, article),
        "event_at": times[0].attrs.get("datetime") if times else None,
        "facets": _facets(scan, inside),
        "citations": tuple(citations),
        "abbreviations": tuple(abbreviations),
        "code_langs": tuple(code_langs),
        "content_hash": hash_of_canonical(canonical_text(scan, article)),
    }


def _claim(scan: Scan, article: Node, inside: list[Node], findings: Findings) -> str:
    """The gist, after checking docs/format.md §10 rows 5–8 on the first ``<mark>``."""
    marks = [node for node in inside if node.name == "mark"]
    if len(marks) != 1:
        findings.violation("mark-count", f"{len(marks)} <mark> elements in the article; one needed")
    if not marks:
        return ""
    mark = marks[0]
    gist = text_without(scan, mark, GIST_EXCLUDED)
    if not gist:
        findings.violation("mark-empty", "<mark> holds no text outside code", mark.index)
    ancestors = mark.ancestors()
    misplaced = [node for node in reversed(ancestors) if node.name in MARK_FORBIDDEN_ANCESTORS]
    for node in misplaced:
        code = MARK_FORBIDDEN_ANCESTORS[node.name]
        findings.violation(code, f"<mark> sits inside <{node.name}>", node.index)
    container = next((node for node in inside if node.name in CLAIM_CONTAINERS), None)
    if not misplaced and (container is None or container not in ancestors):
        detail = "<mark> is not inside the article's first <p> or <li>"
        findings.violation("mark-position", detail, mark.index)
    return gist


def _facets(scan: Scan, inside: list[Node]) -> tuple[Facet, ...]:
    """(name, value, numeric value) rows from each ``<dl>``'s direct children, in order."""
    children: dict[int, list[Node]] = {}
    for node in inside:
        if node.parent is not None and node.parent.name == "dl":
            children.setdefault(node.parent.index, []).append(node)
    facets: list[Facet] = []
    for node in inside:
        if node.name != "dl":
            continue
        name = ""
        for child in children.get(node.index, []):
            if child.name == "dt":
                name = text_of(scan, child)
            elif child.name == "dd":
                value = text_of(scan, child)
                if name and value:
                    facets.append(Facet(name, value, _numeric_value(scan, child)))
    return tuple(facets)


def _numeric_value(scan: Scan, dd: Node) -> float | None:
    """The first ``<data value>`` inside ``dd`` that is a finite decimal number."""
    for data in scan.nodes[dd.index + 1 : dd.stop]:
        if data.name == "data":
            number = parse_decimal((data.attrs.get("value") or "").strip(ASCII_WHITESPACE))
            if number is not None:
                return number
    return None
