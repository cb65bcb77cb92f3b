"""Bytes to text under the size cap, and text to a scan through html5lib's guarded tree.

Every parser, html5lib included, is slow out of all proportion to a memory's size on some
input: sheer length, tag soup, deep nesting (scope checks walk the whole stack of open
elements for every start tag), re-opened formatting elements and many attributes on one tag.
Each gets a named cap here. The size cap is checked before either parser runs; the others are
checked by html5lib while it builds (``html5lib_guard.py``), and lexbor only ever sees files
the pre-scan proves far below them (``prescan.py``). Crossing a cap yields an ``InvalidMemory``
with its own finding instead of a hang. Caps count elements and bytes, never seconds, so
results are deterministic.
"""

from __future__ import annotations

from typing import Final
from xml.etree.ElementTree import Element

from memhtml.adapters.html.scan import Scan, ScanBuilder
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.findings import Finding

# One fact per file: real memories are a few KB. 128 KiB leaves room for long code listings
# while bounding the worst parse (nothing but tags) to about a second on a busy core.
MAX_FILE_BYTES: Final = 128 * 1024
# Memories nest perhaps ten deep. html5lib's cost per start tag grows with the open-element
# stack, so 10,000 nested <div>s would take seconds; past this depth the file is refused.
MAX_NESTING_DEPTH: Final = 64
# A 100 KB memory of prose holds a few hundred elements. Tag soup at the size cap would hold
# tens of thousands, each costing html5lib and the scan tens of microseconds.
MAX_ELEMENTS: Final = 10_000
# Every element in the vocabulary needs at most three attributes. html5lib compares each new
# attribute name with all earlier ones on the same tag, quadratic in this count.
MAX_ATTRIBUTES_PER_ELEMENT: Final = 64

_NAMESPACE_PREFIXES: Final = {
    "http://www.w3.org/1999/xhtml": "",
    "http://www.w3.org/2000/svg": "svg:",
    "http://www.w3.org/1998/Math/MathML": "math:",
}
# Foreign attributes keep the prefix they are written with (``xlink:href``), as lexbor reports
# them, so a finding's detail does not depend on which parser built the tree.
_ATTRIBUTE_PREFIXES: Final = {
    "http://www.w3.org/1999/xlink": "xlink:",
    "http://www.w3.org/XML/1998/namespace": "xml:",
    "http://www.w3.org/2000/xmlns/": "xmlns:",
}


class LimitExceeded(Exception):
    """Raised inside the parse when a cap is crossed; turned into a finding at the edge."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.code)
        self.finding = finding


TOO_DEEP: Final = Finding(
    code="nesting-too-deep",
    detail=f"elements nest deeper than {MAX_NESTING_DEPTH} levels",
)
TOO_MANY_ELEMENTS: Final = Finding(
    code="elements-too-many",
    detail=f"the document holds more than {MAX_ELEMENTS} elements",
)
TOO_MANY_ATTRIBUTES: Final = Finding(
    code="attributes-too-many",
    detail=f"an element carries more than {MAX_ATTRIBUTES_PER_ELEMENT} attributes",
)


def decode_memory(data: bytes | str) -> str:
    """The text of a memory file: strict UTF-8 (an optional BOM dropped), under the size cap.

    Raises:
        InvalidMemory: the bytes are not UTF-8, the text holds lone surrogates, or the file is
            larger than ``MAX_FILE_BYTES``.
    """
    if isinstance(data, str):
        try:
            size = len(data.encode("utf-8"))
        except UnicodeEncodeError:
            raise InvalidMemory(
                (Finding(code="encoding-invalid", detail="text holds lone surrogates"),)
            ) from None
        text = data.removeprefix("\ufeff")
    else:
        size = len(data)
        text = ""
    if size > MAX_FILE_BYTES:
        detail = f"file is {size} bytes; the limit is {MAX_FILE_BYTES}"
        raise InvalidMemory((Finding(code="file-too-large", detail=detail),))
    if isinstance(data, bytes):
        try:
            # A BOM would otherwise become text before the doctype and push the head into body.
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            detail = f"not UTF-8: undecodable byte at offset {e.start}"
            raise InvalidMemory((Finding(code="encoding-invalid", detail=detail),)) from None
    return text


def parse_tree(text: str) -> Element:
    """Parse ``text`` with html5lib into its ``<html>`` element (HTML names unprefixed).

    Raises:
        InvalidMemory: nesting, element or attribute count crosses its cap, or html5lib
            itself fails.
    """
    # html5lib costs ~80 ms to import; a parse that lexbor handles never loads it.
    from memhtml.adapters.html.html5lib_guard import guarded_parser

    parser = guarded_parser()
    try:
        root: Element = parser.parse(text)
    except LimitExceeded as e:
        raise InvalidMemory((e.finding,)) from None
    except Exception as e:
        # html5lib accepts any text by design; should it still fail, the caller gets the one
        # error the parser promises instead of a library internal.
        detail = f"the HTML parser failed ({type(e).__name__})"
        raise InvalidMemory((Finding(code="parse-failed", detail=detail),)) from e
    finally:
        # Drop the finished document so a cached parser does not pin a large tree in memory.
        parser.tree.reset()
    return root


def element_name(element: Element) -> str | None:
    """The element's name (``p``, ``svg:svg``), or None for comments and processing nodes."""
    tag = element.tag
    if not isinstance(tag, str):
        return None
    if not tag.startswith("{"):
        return tag
    namespace, _, local = tag[1:].partition("}")
    return _NAMESPACE_PREFIXES.get(namespace, "") + local


def scan_tree(root: Element) -> Scan:
    """Report html5lib's tree to a ``ScanBuilder``, iteratively (no depth reaches recursion)."""
    builder = ScanBuilder()
    # What is still to do, last first: an element to open, a text run, or None to close one.
    stack: list[Element | str | None] = [root]
    while stack:
        item = stack.pop()
        if item is None:
            builder.end()
        elif isinstance(item, str):
            builder.text(item)
        else:
            name = element_name(item)
            if name is None:
                continue
            builder.start(name, _attributes(item))
            stack.append(None)
            for child in reversed(item):
                if child.tail:
                    stack.append(child.tail)
                stack.append(child)
            if item.text:
                stack.append(item.text)
    return builder.finish()


def _attributes(element: Element) -> dict[str, str]:
    attrib = element.attrib
    if not any(key.startswith("{") for key in attrib):
        return attrib
    named: dict[str, str] = {}
    for key, value in attrib.items():
        if key.startswith("{"):
            namespace, _, local = key[1:].partition("}")
            prefix = _ATTRIBUTE_PREFIXES.get(namespace, "")
            key = local if prefix + local == "xmlns:xmlns" else prefix + local
        named.setdefault(key, value)
    return named
