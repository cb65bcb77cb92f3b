"""The allow-list (issue 14): only the format's elements and attributes, safe link targets, and
no control characters in the fields that are printed and committed. Both parsers, every case."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.adapters.html.parser import parse_memory, parse_memory_reference
from memhtml.adapters.html.urls import url_refusal
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.model import MemoryDoc
from tests.integration.test_html_constraints import ARTICLE, HEAD, page

PARSERS = pytest.mark.parametrize(
    "parse", [parse_memory, parse_memory_reference], ids=["fast", "reference"]
)
Parse = Callable[[bytes | str], MemoryDoc]


def refusal(parse: Parse, html: str) -> list[Finding]:
    with pytest.raises(InvalidMemory) as caught:
        parse(html)
    return list(caught.value.violations)


def in_article(markup: str) -> str:
    return page(body=ARTICLE.replace("</article>", markup + "</article>"))


NOT_ALLOWED = "element-not-allowed"
# Each case: the file, and the violations as findings (details matter) or as codes.
HOSTILE: dict[str, tuple[str, list[Finding] | list[str]]] = {
    "iframe": (
        in_article('<iframe src="https://e.x/"></iframe>'),
        [Finding(code=NOT_ALLOWED, detail="element 'iframe' is not in the format's vocabulary")],
    ),
    "object": (in_article("<object data=x></object>"), [NOT_ALLOWED]),
    "embed": (in_article("<embed src=x>"), [NOT_ALLOWED]),
    "form": (in_article('<form action="https://e.x/"><input name=q></form>'), [NOT_ALLOWED] * 2),
    "meta refresh in the body": (
        in_article('<meta http-equiv="refresh" content="0;url=https://e.x/">'),
        [Finding(code=NOT_ALLOWED, detail="<meta> is allowed only in <head>")],
    ),
    "meta refresh in the head": (
        page(extra_head='<meta http-equiv="refresh" content="0;url=https://e.x/">'),
        [
            Finding(
                code="attribute-not-allowed",
                detail="attribute 'http-equiv' is not allowed on <meta>",
            )
        ],
    ),
    "base": (page(extra_head='<base href="https://e.x/">'), [NOT_ALLOWED]),
    "stylesheet link": (
        page(extra_head='<link rel="stylesheet" href="s.css">'),
        [Finding(code=NOT_ALLOWED, detail="<link> is allowed only with a memhtml- rel")],
    ),
    "img with onerror": (in_article('<img src="x" onerror="y()">'), [NOT_ALLOWED]),
    "svg": (in_article('<svg><a href="javascript:x">y</a></svg>'), [NOT_ALLOWED] * 2),
    "template": (in_article("<template><p>x</p></template>"), [NOT_ALLOWED]),
    "b and br": (in_article("<p><b>x</b><br></p>"), [NOT_ALLOWED] * 2),
    "title in the body": (in_article("<p><title>x</title></p>"), ["title-count", NOT_ALLOWED]),
    "data attribute": (in_article("<p data-x=1>x</p>"), ["attribute-not-allowed"]),
    "src on a link": (in_article('<p><a src="x">y</a></p>'), ["attribute-not-allowed"]),
    "script": (in_article("<script>x()</script>"), ["forbidden-element"]),
    "style attribute": (in_article('<p style="color:red">x</p>'), ["forbidden-attribute"]),
    "handler": (in_article('<p onmouseover="x()">x</p>'), ["event-handler"]),
}


@PARSERS
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_markup_outside_the_vocabulary_is_refused(parse: Parse, case: str) -> None:
    """Each hostile construct is refused with its own codes (details where they matter)."""
    html, expected = HOSTILE[case]
    found = refusal(parse, html)
    codes_only = all(isinstance(item, str) for item in expected)
    assert expected == ([finding.code for finding in found] if codes_only else found)


LINKS = [
    "javascript:alert(1)",
    "JAVASCRIPT:alert(1)",
    "jav&#x61;script:alert(1)",
    "jav&#97;script&colon;alert(1)",
    "java\tscript:alert(1)",
    "java&#x0A;script:alert(1)",
    " \x01javascript:alert(1)",
    "vbscript:x",
    "data:text/html,<script>x</script>",
    "file:///etc/passwd",
    "https://e.x/\x1b[2J",
]


@PARSERS
@pytest.mark.parametrize("href", LINKS)
def test_unsafe_link_targets_are_refused_however_they_are_spelled(parse: Parse, href: str) -> None:
    """href and q cite: after entity decoding and whitespace stripping, only three schemes."""
    for markup in (f'<p><a href="{href}">x</a></p>', f'<p><q cite="{href}">x</q></p>'):
        assert ["url-scheme"] == [f.code for f in refusal(parse, in_article(markup))]


@PARSERS
def test_the_allowed_vocabulary_is_accepted(parse: Parse) -> None:
    """Safe links, global and structural attributes, and the format's elements parse clean."""
    markup = (
        '<p id="x" lang="en" dir="ltr" title="t"><a href="https://e.x/a?b#c">w</a> '
        '<a href="http://e.x/">h</a> <a href="mailto:a@e.x">m</a> <a href="/r/x.html">r</a> '
        '<a href="../x.html#top">u</a> <a href="#top">f</a> <a href="a/b:c">p</a> '
        '<q cite="https://e.x/">q</q></p><details open><summary>s</summary>d</details>'
        '<table><tr><th scope="col" colspan="2">h</th></tr><tr><td rowspan="1">d</td></tr>'
        '</table><ol start="3" reversed type="a"><li value="4">i</li></ol>'
    )
    doc = parse(in_article(markup))
    assert () == doc.warnings


@PARSERS
@pytest.mark.parametrize(
    ("html", "field"),
    [
        (page(head=HEAD.replace("<title>T</title>", "<title>T\x1b[31m</title>")), "title"),
        (page(body=ARTICLE.replace("Claim.", "Cl\x1b]0;x\x07aim.")), "claim"),
        (page(body=ARTICLE.replace("Claim.", "Cl\u009baim.")), "claim"),
        (page(extra_head='<meta name="memhtml-tag" content="a\x7fb">'), "tag"),
        (page(extra_head='<meta name="memhtml-entity" content="person:&#x1b;x">'), "entity"),
        (page(body=ARTICLE.replace("Body.", "<dfn>te\x01rm</dfn>")), "entity"),
        (page(extra_head='<meta name="memhtml-alias" content="a\x0bb">'), "alias"),
    ],
)
def test_control_characters_in_printed_fields_are_refused(
    parse: Parse, html: str, field: str
) -> None:
    """ESC, BEL, DEL, VT, C1 (raw or as a character reference) in a printed field: refused."""
    found = refusal(parse, html)
    assert ["control-character"] == [f.code for f in found]
    assert found[0].detail.startswith(f"{field} holds control character U+")


@PARSERS
def test_whitespace_controls_are_collapsed_not_refused(parse: Parse) -> None:
    """Tab, newline, form feed and carriage return in a title are whitespace, as always."""
    html = page(head=HEAD.replace("<title>T</title>", "<title>T\t\f\r\nU</title>"))
    assert "T U" == parse(html).title


@given(st.text(alphabet=st.sampled_from(["\t", "\n", "\r", " ", "\x00", "\x1f", "\x7f"])))
def test_browser_ignored_characters_never_hide_a_scheme(noise: str) -> None:
    """Whatever whitespace or controls surround or split it, javascript: is refused."""
    assert url_refusal(noise + "java" + noise.replace(" ", "") + "script:x") is not None


@given(
    st.sampled_from(["http", "HTTPS", "mailto", ""]), st.text(alphabet="abc/:?#.%-_", max_size=20)
)
def test_allowed_schemes_and_relative_targets_pass(scheme: str, rest: str) -> None:
    """http, https and mailto in any case pass, as does any relative reference."""
    target = f"{scheme}:{rest}" if scheme else "/" + rest
    assert url_refusal(target) is None
