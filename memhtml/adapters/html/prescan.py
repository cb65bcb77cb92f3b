"""Whether a document is plain enough for the fast parser: one linear pass over its tags.

lexbor builds trees in C at a fraction of html5lib's cost, but it has no hook to stop a build
part way, and like every conformant parser some markup makes it build far more than the input
holds: misnested formatting elements are re-opened in every later block (``<p><b id=1>x</p>``
repeated 7,000 times took lexbor 48 s and 8.8 GB), and deep nesting costs quadratic time. So a
file reaches lexbor only when this pass proves it plain, and everything else takes html5lib,
whose guards stop such a build early. Plain means: every tag reads unambiguously (well-formed
attributes, comments closed, no bogus markup), every start tag names an element of the
vocabulary, every end tag closes the innermost open element, and nesting stays shallow. Under
those conditions each token can make the parser insert at most a handful of elements, and the
two parsers build the same tree (the contract suite checks that claim on generated files).

Being plain decides only which parser runs, never the outcome: a file that is not plain is
parsed, checked and accepted or refused exactly as before, only slower.
"""

from __future__ import annotations

import re
from typing import Final

from memhtml.adapters.html.elements import FORMATTING_ELEMENTS, KNOWN_ELEMENTS, VOID_ELEMENTS

# Real memories nest six or seven deep. With at most 20 open elements, html5lib's stack stays
# under its own cap (each open table adds two implied levels), so the caps never need lexbor.
PLAIN_MAX_DEPTH: Final = 20
# Open formatting elements bound what the parser re-opens per token.
PLAIN_MAX_FORMATTING: Final = 6
# Half of the attribute cap, so html5lib's attribute guard can never be the one that decides.
PLAIN_MAX_ATTRIBUTES: Final = 32

_WS: Final = "\t\n\f\r "
# Every markup token the pass looks at, as the HTML tokenizer reads it in the data state:
# 1-4: a tag in its unambiguous forms only (attribute names without quotes, `<` or `=`,
#      unquoted values without quotes, `<`, `=` or a backtick, whitespace between attributes);
# a comment that ends at its first `-->` (not `<!-->`, `<!--->` or one closed by `--!>`);
# `<!doctype html>`; and 5: any other `<` that starts markup (a bogus comment, a tag this
# pattern does not read). A `<` before anything else is text and matches nothing. Possessive
# quantifiers keep every failed attempt linear.
_TOKEN: Final = re.compile(
    rf"<(?:(/?)([A-Za-z][^{_WS}/>]*+)"
    rf"((?:[{_WS}]++[^{_WS}/>=\"'<]++"
    rf"(?:[{_WS}]*+=[{_WS}]*+(?:\"[^\"]*+\"|'[^']*+'|[^{_WS}>\"'=<`]++))?+)*+)"
    rf"[{_WS}]*+(/?)>"
    r"|!--(?!-?>)(?:[^-]++|-(?!-!?>))*+-->"
    rf"|(?i:!doctype[{_WS}]++html[{_WS}]*+>)"
    r"|([/!?A-Za-z]))"
)
_ATTRIBUTE_NAME: Final = re.compile(rf"[{_WS}]++[^{_WS}/>=\"'<]")
# What may stand directly inside each table element without being foster-parented out of it.
# Fostered content is where the two parsers' table modes have differed, and no memory needs it.
_TABLE_CHILDREN: Final = {
    "table": frozenset({"caption", "thead", "tbody", "tr", "td", "th"}),
    "thead": frozenset({"tr", "td", "th"}),
    "tbody": frozenset({"tr", "td", "th"}),
    "tr": frozenset({"td", "th"}),
}


def is_plain(text: str) -> bool:
    """Whether ``text`` is plain (see the module docstring) and may go to the fast parser."""
    # The parsers replace or drop NUL by context; leave those contexts to the reference.
    if "\x00" in text:
        return False
    open_elements: list[str] = []
    formatting = 0
    # <title> holds text, not markup: the token after its start tag must be its end tag, so a
    # title holding anything that reads as markup (a tag, `<!--`) goes to the reference parser.
    in_title = False
    end = 0
    for token in _TOKEN.finditer(text):
        closing, name, attributes, self_closing, odd = token.groups()
        start, end, previous_end = token.start(), token.end(), end
        if in_title and not (closing and name is not None and name.lower() == "title"):
            return False
        if open_elements and open_elements[-1] in _TABLE_CHILDREN:
            # Text or a stray element directly in a table would be foster-parented.
            if text[previous_end:start].strip(_WS):
                return False
            allowed = _TABLE_CHILDREN[open_elements[-1]]
            if name is not None and not closing and name.lower() not in allowed:
                return False
        if name is None:
            if odd is not None:
                return False
            continue
        name = name.lower()
        if closing:
            if attributes or self_closing or not open_elements or open_elements[-1] != name:
                return False
            open_elements.pop()
            formatting -= name in FORMATTING_ELEMENTS
            in_title = False
        elif name not in KNOWN_ELEMENTS:
            return False
        else:
            if attributes and _attribute_count(attributes) > PLAIN_MAX_ATTRIBUTES:
                return False
            if name not in VOID_ELEMENTS:
                open_elements.append(name)
                formatting += name in FORMATTING_ELEMENTS
                if len(open_elements) > PLAIN_MAX_DEPTH or formatting > PLAIN_MAX_FORMATTING:
                    return False
                in_title = name == "title"
    return not open_elements


def _attribute_count(attributes: str) -> int:
    return len(_ATTRIBUTE_NAME.findall(attributes))
