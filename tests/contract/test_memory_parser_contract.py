"""The MemoryParser port over both parsers: lexbor's fast path and html5lib's reference.

For every fixture, every docs/format.md §12 example, every hostile file of the html tests and
generated files (renders, mutated renders, soup), ``parse_memory`` and ``parse_memory_reference``
return an equal ``MemoryDoc`` or refuse with equal findings. Separately, lexbor's own tree
(without the pre-scan that routes files to it) is held to html5lib's on soup made of the
element vocabulary, where nothing bounds how misnested the markup is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import render_memory
from memhtml.adapters.html.lexbor_tree import scan_lexbor
from memhtml.adapters.html.parser import memory_from_scan, parse_memory, parse_memory_reference
from memhtml.adapters.html.prescan import is_plain
from memhtml.adapters.html.tree import MAX_ELEMENTS, MAX_FILE_BYTES, decode_memory
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.model import MemoryDoc, RenderInputs
from tests.integration.test_html_examples import SEMANTIC_EXAMPLE, TASK_EXAMPLE
from tests.strategies import (
    format_html_ish,
    format_render_kwargs,
    parser_encodings,
    parser_hostile_snippets,
    parser_mutations,
    parser_nested_markup,
    parser_vocabulary_tokens,
)

Outcome = MemoryDoc | tuple[tuple[Finding, ...], tuple[Finding, ...]]
Parser = Callable[[bytes | str], MemoryDoc]

HEAD = (
    "<!doctype html>\n<html><head>\n<title>T</title>\n"
    '<meta name="memhtml-type" content="semantic">\n'
    '<meta name="memhtml-status" content="active">\n'
    '<meta name="memhtml-created" content="2026-01-01T00:00:00Z">\n'
    '<meta name="memhtml-updated" content="2026-01-02T00:00:00Z">\n'
    "</head><body><article><p><mark>Claim.</mark> Body.</p>"
)
TAIL = "</article></body></html>\n"


def outcome(parse: Parser, data: bytes | str) -> Outcome:
    """The document, or the findings of the refusal; any other exception escapes."""
    try:
        return parse(data)
    except InvalidMemory as refusal:
        return (refusal.violations, refusal.warnings)


def assert_same(data: bytes | str) -> Outcome:
    """Both parsers agree on ``data``; returns the common outcome."""
    expected = outcome(parse_memory_reference, data)
    assert expected == outcome(parse_memory, data)
    return expected


def with_article_tail(extra: str) -> str:
    return SEMANTIC_EXAMPLE.replace("</article>", extra + "</article>")


def _cut(data: bytes, fraction: float) -> bytes:
    return data[: int(len(data) * fraction)]


# docs/format.md §12 examples, valid and invalid, and the hostile files of the html tests.
CORPUS: dict[str, bytes | str] = {
    "12.1 semantic": SEMANTIC_EXAMPLE,
    "12.2 task": TASK_EXAMPLE,
    "12.3.1 mark position": SEMANTIC_EXAMPLE.replace(
        "<article>\n<p><mark>", "<article>\n<p>Background first.</p><p><mark>"
    ),
    "12.3.2 task status on a fact": SEMANTIC_EXAMPLE.replace(
        "</head>", '<meta name="memhtml-task-status" content="todo">\n</head>'
    ),
    "12.3.3 time and link": with_article_tail('<time datetime="2026-08">August</time>').replace(
        "</head>", '<link rel="memhtml-related-to" href="notes/x.html">\n</head>'
    ),
    "empty": b"",
    "latin-1": SEMANTIC_EXAMPLE.replace("honours", "honoürs").encode("latin-1"),
    "lone surrogate": SEMANTIC_EXAMPLE.replace("honours", "hon\ud800ours"),
    "bom": b"\xef\xbb\xbf" + SEMANTIC_EXAMPLE.encode("utf-8"),
    "garbage": bytes(range(256)).decode("latin-1").encode("utf-8") * 4,
    "five megabytes": with_article_tail("<p>" + "word " * 1_000_000 + "</p>"),
    "at the size cap": with_article_tail(
        "<p>" + "x" * (MAX_FILE_BYTES - len(with_article_tail("<p></p>").encode())) + "</p>"
    ),
    "ten thousand divs": with_article_tail("<div>" * 10_000),
    "deep sections": with_article_tail("<section>" * 56 + "deep" + "</section>" * 56),
    "reopened formatting": "".join(f"<p><b id={i}>x</p>" for i in range(2000)),
    "reopened links": with_article_tail("".join(f"<p><a href=/{i}>x</p>" for i in range(2000))),
    "many attributes": with_article_tail("<p " + " ".join(f"a{i}" for i in range(640)) + ">x</p>"),
    "too many elements": with_article_tail("<i>x</i>" * (MAX_ELEMENTS + 1)),
    "vocabulary tag soup": with_article_tail("<em>x</em>" * (MAX_ELEMENTS + 1)),
    "missing article": SEMANTIC_EXAMPLE.replace("article>", "section>"),
    "two marks": with_article_tail("<p><mark>Second claim.</mark></p>"),
    **{f"cut at {cut}": _cut(SEMANTIC_EXAMPLE.encode(), cut) for cut in (0.1, 0.3, 0.5, 0.9)},
    "cut in a character": (SEMANTIC_EXAMPLE + "é").encode("utf-8")[:-1],
    "plaintext": "<plaintext></article>",
    "frameset": "<frameset><article>",
    "foreign": "<svg><script>x</script></svg><math><mark>",
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus_parses_alike(name: str) -> None:
    """Each example and hostile file gives the same document or the same refusal."""
    assert_same(CORPUS[name])


def test_the_corpus_covers_both_outcomes_and_both_routes() -> None:
    """The corpus holds accepted and refused files, and files each parser reads."""
    outcomes = [outcome(parse_memory_reference, data) for data in CORPUS.values()]
    texts = [data for data in CORPUS.values() if isinstance(data, str) and len(data) < 200_000]
    assert any(isinstance(result, MemoryDoc) for result in outcomes)
    assert any(isinstance(result, tuple) for result in outcomes)
    assert any(is_plain(text) for text in texts)
    assert any(not is_plain(text) for text in texts)


def _render(kwargs: dict[str, Any]) -> str:
    specs = kwargs.pop("paragraphs")
    body = [
        spec[1] if spec[0] == "prose" else "```" + spec[1] + "\n" + "\n".join(spec[2]) + "\n```"
        for spec in specs
    ]
    return render_memory(RenderInputs(body=tuple(body), **kwargs))


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=150)
@given(format_render_kwargs())
def test_every_render_is_plain_and_parses_alike(kwargs: dict[str, Any]) -> None:
    """The writer's own files always take the fast path, and it reads them as html5lib does."""
    text = _render(kwargs)
    assert is_plain(text)
    assert scan_lexbor(text) is not None
    assert isinstance(assert_same(text), MemoryDoc)


def _mutate(text: str, draw: st.DrawFn) -> str:
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(parser_mutations)
        at = draw(st.integers(0, len(lines) - 1))
        if kind == "drop":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(at, lines[at])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "inject":
            lines.insert(at, draw(parser_hostile_snippets))
        elif kind == "unclose":
            lines[at] = re.sub(r"</[a-z]+>", "", lines[at], count=1)
        elif kind == "misnest":
            lines[at] = re.sub(r"</[a-z]+>", "</em>", lines[at], count=1)
        else:
            lines[at] = lines[at].upper()
        if not lines:
            lines = [""]
    return "\n".join(lines)


@st.composite
def mutated_files(draw: st.DrawFn) -> bytes | str:
    """A rendered file with a few lines dropped, repeated, swapped, broken or injected."""
    text = _mutate(_render(draw(format_render_kwargs())), draw)
    encoding = draw(parser_encodings)
    if encoding == "text":
        return text
    if encoding == "bom":
        return b"\xef\xbb\xbf" + text.encode("utf-8")
    if encoding == "latin-1":
        return text.encode("utf-8").replace(b"<p>", b"<p>\xe9", 1)
    if encoding == "cut":
        data = text.encode("utf-8")
        return data[: draw(st.integers(0, len(data)))]
    if encoding == "pad":
        size = draw(st.sampled_from([MAX_FILE_BYTES // 2, MAX_FILE_BYTES]))
        return text.replace("</article>", "<!--" + "x" * size + "--></article>")
    return text.encode("utf-8")


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(mutated_files())
@example(with_article_tail('<a href="jav&#x61;script:x">x</a>'))
@example(with_article_tail("<table><p>x</p><td>y</table>"))
@example(with_article_tail("<p><a href=/a>x<div>y</div>z</a></p>"))
# A plain file where an ignored tag stands between <pre> and its line feed: html5lib dropped
# the line feed, lexbor (and the standard) keep it; html5lib_guard now follows the standard.
@example(with_article_tail("<pre><head></head>\nx</pre>"))
@example(with_article_tail("<pre><td></td>\nx</pre>"))
# Plain too: html5lib let the inner <li> close the outer one across <figcaption>.
@example(with_article_tail("<ul><li><figcaption><li>x</li></figcaption></li></ul>"))
def test_mutated_renders_parse_alike(data: bytes | str) -> None:
    """Broken, reordered, injected, re-encoded or oversized renders: same result."""
    assert_same(data)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=200)
@given(format_html_ish)
def test_soup_parses_alike(soup: str) -> None:
    """HTML-ish soup alone: same result."""
    assert_same(soup)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=200)
@given(st.integers(0, len(SEMANTIC_EXAMPLE)), format_html_ish)
def test_soup_spliced_into_an_example_parses_alike(at: int, soup: str) -> None:
    """Junk spliced anywhere into the §12.1 example: same result."""
    assert_same(SEMANTIC_EXAMPLE[:at] + soup + SEMANTIC_EXAMPLE[at:])


def _lexbor_outcome(text: str) -> Outcome | None:
    scan = scan_lexbor(decode_memory(text))
    if scan is None:
        return None
    try:
        return memory_from_scan(scan)
    except InvalidMemory as refusal:
        return (refusal.violations, refusal.warnings)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(parser_vocabulary_tokens)
@example("<p><em>x<div>y</div>z</em></p>")
@example("<table>x<td>y</td>z</table>")
@example("<dl><dt>a<dd>b<dt>c</dl>")
@example("<pre>\n\nx</pre><p>a<p>b")
@example("<pre><head>\r\n")
@example("<li><figcaption><li>&")
def test_lexbor_builds_html5libs_tree_from_any_vocabulary_soup(soup: str) -> None:
    """Unrouted, lexbor reads misnested vocabulary markup exactly as html5lib does."""
    text = HEAD + soup + TAIL
    lexbor = _lexbor_outcome(text)
    if lexbor is not None:
        assert outcome(parse_memory_reference, text) == lexbor


# Content foster-parented out of a table: html5lib and lexbor each place it against the
# standard somewhere (html5lib kept an <li> inside <tbody>; lexbor put text after the table),
# so such a file never reaches lexbor and both entry points give html5lib's reading.
FOSTERED = [
    "<table><caption>c</caption><thead><tr><th>h</th></tr></thead><p><li>&</li></p></table>",
    "<table><tr><th>h</th></tr><p><li>&amp;</li></p></table>",
    "<table><p><code><p>\n</p></code></p></table>",
    "<table>x<tr><td>y</td></tr></table>",
]


@pytest.mark.parametrize("markup", FOSTERED)
def test_foster_parented_content_takes_the_reference_parser(markup: str) -> None:
    """Strictly nested, but fostered: not plain, and the fast path gives the reference's."""
    text = HEAD + markup + TAIL
    assert not is_plain(text)
    assert_same(text)


@pytest.mark.parametrize(
    "markup",
    [
        "<table><p><code><p>\n",
        "<pre><head></head>\nx</pre>",
        "<ul><li><figcaption><li>x</li></figcaption></li></ul>",
        "<dl><dd><summary><dt>x</dt></summary></dd></dl>",
    ],
)
def test_html5lib_follows_the_standard_where_it_was_patched(markup: str) -> None:
    """Where html5lib_guard corrects html5lib, it reads as lexbor and the standard do."""
    text = HEAD + markup + TAIL
    assert _lexbor_outcome(text) == outcome(parse_memory_reference, text)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(st.lists(parser_nested_markup, max_size=4).map("".join))
def test_strictly_nested_vocabulary_parses_alike(markup: str) -> None:
    """Well-formed markup in any arrangement: same result, and lexbor reads plain files so."""
    text = HEAD + markup + TAIL
    assert_same(text)
    if is_plain(text):
        assert outcome(parse_memory_reference, text) == _lexbor_outcome(text)


REOPENING = "".join(f"<p><a href=/{i}>x</p>" for i in range(3000))
SMUGGLED = {
    "markup hidden from a title by a comment": f"<title><!--</title>{REOPENING}--></title>",
    "a title holding a tag": f"<title>a<b>{REOPENING}</title>",
    "a comment closed by --!>": f"<!-- a --!>{REOPENING}-->",
    "an abrupt comment": f"<!-->{REOPENING}-->",
    "a bogus comment": f"<?x>{REOPENING}",
    "an unquoted value holding <": f"<p title=a<b>{REOPENING}</p>",
}


@pytest.mark.parametrize("case", sorted(SMUGGLED))
def test_markup_the_pre_scan_could_misread_never_reaches_lexbor(case: str) -> None:
    """Where a tag could hide from the pre-scan, the file is not plain, so lexbor never builds
    the re-opening soup behind it (which costs it seconds), and both entry points agree."""
    text = HEAD + SMUGGLED[case] + TAIL
    assert not is_plain(text)
    assert_same(text)
