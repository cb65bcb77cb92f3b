"""The format's closed element vocabulary (docs/format.md §4), shared by the checks and the router.

Document elements frame the file; body elements are what an article may hold. The pre-scan
that routes a file to the fast parser and the markup check that refuses a file read the same
sets, so the two can never disagree about what the format admits.
"""

from __future__ import annotations

from typing import Final

DOCUMENT_ELEMENTS: Final = frozenset({"html", "head", "body", "title", "meta", "link"})
# Elements that belong in the head only: a <meta http-equiv> or <link> in the body would act
# on the page that displays the memory.
HEAD_ELEMENTS: Final = frozenset({"title", "meta", "link"})
BODY_ELEMENTS: Final = frozenset(
    {"article", "mark", "time", "dl", "dt", "dd", "data", "cite", "q", "dfn", "code"}
    | {"details", "summary", "aside", "figure", "figcaption", "abbr", "div", "span"}
    | {"section", "table", "caption", "thead", "tbody", "tr", "th", "td", "p", "ul", "ol"}
    | {"li", "a", "strong", "em", "pre", "kbd", "samp", "var", "address"}
)
KNOWN_ELEMENTS: Final = DOCUMENT_ELEMENTS | BODY_ELEMENTS
# Void elements of the vocabulary: a start tag with no content and no end tag.
VOID_ELEMENTS: Final = frozenset({"meta", "link"})
# The HTML parser's "formatting elements" within the vocabulary: the parser re-opens them
# after misnested markup, which is where tree building can cost more than the input's length.
FORMATTING_ELEMENTS: Final = frozenset({"a", "code", "em", "strong"})

# Attributes any element may carry: none of them fetches, runs or styles anything.
GLOBAL_ATTRIBUTES: Final = frozenset({"id", "lang", "dir", "title"})
# The attributes docs/format.md names for each element, plus the inert structural ones of tables,
# lists and disclosure widgets. Anything else on an element is refused.
ELEMENT_ATTRIBUTES: Final[dict[str, frozenset[str]]] = {
    "meta": frozenset({"name", "content", "charset"}),
    "link": frozenset({"rel", "href"}),
    "time": frozenset({"datetime"}),
    "data": frozenset({"value"}),
    "q": frozenset({"cite"}),
    "code": frozenset({"data-lang"}),
    "a": frozenset({"href"}),
    "details": frozenset({"open"}),
    "td": frozenset({"colspan", "rowspan", "headers"}),
    "th": frozenset({"colspan", "rowspan", "headers", "scope", "abbr"}),
    "ol": frozenset({"start", "reversed", "type"}),
    "li": frozenset({"value"}),
}
# Attributes holding a URL a reader's client may follow: their scheme is checked.
URL_ATTRIBUTES: Final = frozenset({"href", "cite"})
