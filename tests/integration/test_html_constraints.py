"""docs/format.md §10 constraints: each code, their order, and warnings kept apart from
violations."""

from __future__ import annotations

import pytest

from memhtml.adapters.html.parser import parse_memory
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.model import EntityRef, Link

HEAD = (
    "<title>T</title>\n"
    '<meta name="memhtml-type" content="semantic">\n'
    '<meta name="memhtml-status" content="active">\n'
    '<meta name="memhtml-created" content="2026-01-01T00:00:00Z">\n'
    '<meta name="memhtml-updated" content="2026-01-02T00:00:00Z">\n'
)
ARTICLE = "<article><p><mark>Claim.</mark> Body.</p></article>"


def page(head: str = HEAD, body: str = ARTICLE, extra_head: str = "") -> str:
    """A minimal memory file; defaults make it valid."""
    return f"<!doctype html>\n<html><head>\n{head}{extra_head}</head><body>{body}</body></html>"


def violations(html: str) -> list[str]:
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(html)
    return [finding.code for finding in caught.value.violations]


def warnings(html: str) -> list[str]:
    return [finding.code for finding in parse_memory(html).warnings]


def test_minimal_page_is_valid() -> None:
    """The template itself parses with defaults for every optional meta."""
    doc = parse_memory(page())
    assert ("Claim.", "Claim. Body.", 1.0, 5, "agent") == (
        doc.gist,
        doc.body_text,
        doc.confidence,
        doc.importance,
        doc.author,
    )


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        (page(head=HEAD.replace("<title>T</title>", "")), ["title-count"]),
        (page(extra_head="<title>U</title>"), ["title-count"]),
        (page(head=HEAD.replace("<title>T</title>", "<title> \n</title>")), ["title-empty"]),
        (page(head=HEAD.replace('content="semantic"', 'content=""')), ["meta-missing"]),
        (page(extra_head='<meta name="memhtml-colour" content="red">'), ["meta-unknown"]),
        (page(extra_head='<meta name="memhtml-status" content="active">'), ["meta-repeated"]),
        (page(body="<p><mark>x</mark></p>"), ["article-count"]),
        (page(body=ARTICLE + ARTICLE), ["article-count"]),
        (page(body="<article><p>No claim.</p></article>"), ["mark-count"]),
        (page(body="<article><p><mark>a</mark><mark>b</mark></p></article>"), ["mark-count"]),
        (page(body="<article><p><mark><code>x</code></mark></p></article>"), ["mark-empty"]),
        (
            page(body="<article><aside><p><mark>x</mark></p></aside></article>"),
            ["mark-in-aside"],
        ),
        (
            page(body="<article><details><p><mark>x</mark></p></details></article>"),
            ["mark-in-details"],
        ),
        (page(body="<article><section><mark>x</mark></section></article>"), ["mark-position"]),
        (
            page(body="<article><p>a</p><ul><li><mark>x</mark></li></ul></article>"),
            ["mark-position"],
        ),
        (page(body=ARTICLE.replace("Body.", "<time>then</time>")), ["time-datetime"]),
        (page(body=ARTICLE.replace("Body.", "<script>x()</script>")), ["forbidden-element"]),
        (page(body=ARTICLE.replace("<p>", '<p class="lead">')), ["forbidden-attribute"]),
        (page(body=ARTICLE.replace("<p>", '<p STYLE="x">')), ["forbidden-attribute"]),
        (page(body=ARTICLE.replace("<p>", '<p OnClick="x">')), ["event-handler"]),
        (page(extra_head='<link rel="memhtml-related-to" href="/a.html">'), ["link-rel"]),
        (page(extra_head='<link rel="memhtml-supports" href="//evil/a.html">'), ["link-href"]),
        (page(extra_head='<link rel="memhtml-supports">'), ["link-href"]),
        (page(head=HEAD.replace('content="semantic"', 'content="fact"')), ["type-invalid"]),
        (page(head=HEAD.replace('content="active"', 'content="gone"')), ["status-invalid"]),
        (page(head=HEAD.replace('content="semantic"', 'content="task"')), ["task-status-missing"]),
        (
            page(extra_head='<meta name="memhtml-task-status" content="todo">'),
            ["task-status-forbidden"],
        ),
        (
            page(
                head=HEAD.replace('content="semantic"', 'content="task"'),
                extra_head='<meta name="memhtml-task-status" content="later">',
            ),
            ["task-status-invalid"],
        ),
        (page(extra_head='<meta name="memhtml-due" content="soon">'), ["due-invalid"]),
        (page(head=HEAD.replace("2026-01-01T00:00:00Z", "2026-02-30")), ["date-invalid"]),
    ],
)
def test_each_violation_code(html: str, expected: list[str]) -> None:
    """Each §10 condition alone yields exactly its own code."""
    assert expected == violations(html)


def test_all_violations_are_collected_in_table_order() -> None:
    """Every broken rule is reported at once, ordered by §10 row whatever the document order."""
    html = page(
        head=HEAD.replace("<title>T</title>", "").replace('content="semantic"', 'content="x"'),
        extra_head='<link rel="memhtml-nope" href="a.html">',
        body=(
            '<article class="c"><p>Lead.</p><p><mark>Claim</mark><time>t</time></p>'
            "<script></script></article>"
        ),
    )
    expected = [
        "title-count",
        "mark-position",
        "time-datetime",
        "forbidden-attribute",
        "forbidden-element",
        "link-rel",
        "link-href",
        "type-invalid",
    ]
    assert expected == violations(html)


def test_required_metas_are_each_reported_once() -> None:
    """All four required metas missing give four meta-missing findings, in §2 order."""
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(page(head="<title>T</title>"))
    details = [f.detail for f in caught.value.violations if f.code == "meta-missing"]
    assert ["type", "status", "created", "updated"] == [d.split()[2][8:] for d in details]


def test_error_message_gives_each_code_with_its_detail() -> None:
    """The exception text is each violation's `code: detail`, joined by " | " (details may
    hold semicolons of their own)."""
    with pytest.raises(InvalidMemory, match=r"^mark-count: [^|]+ \| link-href: [^|]+$"):
        parse_memory(
            page(
                extra_head='<link rel="memhtml-supports" href="x">',
                body="<article><p>x</p></article>",
            )
        )


def test_warnings_travel_with_violations() -> None:
    """An InvalidMemory still carries the warnings found in the same pass."""
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(page(body="<article><p>x</p><div>y</div></article>"))
    assert ["scoped-element"] == [f.code for f in caught.value.warnings]


def test_warnings_in_table_order_deduplicated() -> None:
    """Malformed metas first, then scoped elements per name, then lang tokens per value."""
    body = (
        "<article><p><mark>x</mark></p><span>1</span><div>d</div><div>e</div>"
        '<figure><div>ok</div></figure><code data-lang="no way">c</code>'
        '<code data-lang="no way">c</code><code data-lang="-x">c</code></article>'
    )
    html = page(body=body, extra_head='<meta name="memhtml-confidence" content="1.5">')
    expected = ["meta-malformed", "scoped-element", "scoped-element", "lang-token", "lang-token"]
    assert expected == warnings(html)


@pytest.mark.parametrize(
    ("meta", "value", "field", "default"),
    [
        ("confidence", "1.5", "confidence", 1.0),
        ("confidence", "nan", "confidence", 1.0),
        ("confidence", "high", "confidence", 1.0),
        ("importance", "11", "importance", 5),
        ("importance", "7.5", "importance", 5),
        ("importance", "9" * 40, "importance", 5),
        ("reprieves", "-1", "reprieves", 0),
        ("content-hash", "sha256:ABC", "stated_content_hash", None),
        ("author", "robot", "author", "agent"),
        ("valid-from", "yesterday", "valid_from", None),
        ("valid-until", "2026-13-01", "valid_until", None),
        ("archived", "2026", "archived_at", None),
        ("superseded-by", "x.html", "superseded_by", None),
    ],
)
def test_malformed_optional_metas_fall_back_with_a_warning(
    meta: str, value: str, field: str, default: object
) -> None:
    """A malformed optional value is dropped, its default applies, one meta-malformed warns."""
    doc = parse_memory(page(extra_head=f'<meta name="memhtml-{meta}" content="{value}">'))
    assert default == getattr(doc, field)
    assert [
        Finding(code="meta-malformed", detail=f"memhtml-{meta} value is malformed; default used")
    ] == list(doc.warnings)


def test_well_formed_optional_metas_are_typed() -> None:
    """Numbers, flags, ids and dates come back typed and verbatim."""
    metas = {
        "confidence": "0.25",
        "importance": "10",
        "reprieves": "3",
        "author": "human:sasha",
        "session": "s-1",
        "prompt": "p-2",
        "turn": "t-3",
        "valid-until": "2027-01-01 10:00",
        "archived": "2026-05-05T00:00:00Z",
        "superseded-by": "/areas/inbox/new.html",
        "needs-revision": "YES",
    }
    extra = "".join(f'<meta name="memhtml-{k}" content="{v}">' for k, v in metas.items())
    doc = parse_memory(page(extra_head=extra))
    expected = (0.25, 10, 3, "human:sasha", "s-1", "p-2", "t-3", "2027-01-01 10:00")
    actual = (
        doc.confidence,
        doc.importance,
        doc.reprieves,
        doc.author,
        doc.session_id,
        doc.prompt_id,
        doc.turn_uuid,
        doc.valid_until,
    )
    assert expected == actual
    assert ("2026-05-05T00:00:00Z", "/areas/inbox/new.html", True) == (
        doc.archived_at,
        doc.superseded_by,
        doc.needs_revision,
    )
    assert () == doc.warnings


def test_repeatables_are_trimmed_deduplicated_and_blank_skipped() -> None:
    """Entities and tags: trimmed, blanks dropped, first of each duplicate kept."""
    values = [("entity", " a:b "), ("entity", "a:b"), ("entity", ""), ("entity", "solo")]
    values += [("tag", "x"), ("tag", " x "), ("tag", "  "), ("tag", "y"), ("alias", "Al")]
    extra = "".join(f'<meta name="memhtml-{k}" content="{v}">' for k, v in values)
    doc = parse_memory(page(extra_head=extra))
    assert (EntityRef("a", "b"), EntityRef("unknown", "solo")) == doc.entities
    assert (("x", "y"), ("Al",)) == (doc.tags, doc.aliases)


def test_non_memhtml_metas_and_links_are_ignored() -> None:
    """Unprefixed meta names are not ours; self-links are the caller's to drop."""
    extra = '<meta name="description" content="x">'
    extra += '<link rel="memhtml-supports" href="/a.html?x#y">'
    extra += '<link rel="memhtml-supports" href="/a.html">'
    doc = parse_memory(page(extra_head=extra))
    assert (Link("supports", "a.html"),) == doc.links
    assert () == doc.links_from("a.html")


def test_body_fields_from_every_vocabulary_element() -> None:
    """Facets skip orphan and empty rows; citations skip empty text; langs are lowercased."""
    body = (
        "<article><p><mark>C <code>ignored</code>laim</mark></p>"
        "<dl><dd>orphan</dd><dt>N</dt>"
        "<dd><data value='x'>a</data> <data value='-1.5e2'>b</data></dd>"
        "<dd></dd><dt></dt><dd>nameless</dd></dl>"
        "<p><cite></cite><q>said</q><dfn>term</dfn><dfn>term</dfn><abbr title=' T  T '>t</abbr></p>"
        "<figure><pre><code data-lang='PyThon'>x</code></pre><figcaption>cap</figcaption></figure>"
        "</article>"
    )
    doc = parse_memory(page(body=body))
    assert "C laim" == doc.gist
    assert (("N", "a b", -150.0),) == doc.facets
    assert (("said", None),) == doc.citations
    assert (("term", "term"), ("T T",), ("python",), ("cap",)) == (
        doc.defined_terms,
        doc.abbreviations,
        doc.code_langs,
        doc.captions,
    )
    assert (EntityRef("concept", "term"), EntityRef("lang", "python")) == doc.entities
