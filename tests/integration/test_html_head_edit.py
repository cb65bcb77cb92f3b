"""Surgical head edits: one line changes or appears, the article and its hash never move."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html.head_edit import add_link, mark_archived, set_meta
from memhtml.adapters.html.parser import parse_memory
from memhtml.domain.errors import InvalidInput, InvalidMemory
from memhtml.domain.model import Link
from tests.integration.test_html_examples import SEMANTIC_EXAMPLE, TASK_EXAMPLE
from tests.strategies import format_link_targets, format_rels, format_text


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """Lines removed and lines added between two texts."""
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    removed = [line[2:] for line in diff if line.startswith("- ")]
    added = [line[2:] for line in diff if line.startswith("+ ")]
    return removed, added


def test_set_meta_rewrites_an_existing_meta_in_place() -> None:
    """Changing confidence replaces exactly its own line."""
    edited = set_meta(SEMANTIC_EXAMPLE, "memhtml-confidence", "0.40")
    removed, added = changed_lines(SEMANTIC_EXAMPLE, edited)
    assert ['<meta name="memhtml-confidence" content="0.85">'] == removed
    assert ['<meta name="memhtml-confidence" content="0.40">'] == added
    assert 0.4 == parse_memory(edited).confidence


def test_set_meta_inserts_a_new_meta_at_its_emission_position() -> None:
    """A missing meta lands after the nearest earlier meta in §2 order."""
    edited = set_meta(SEMANTIC_EXAMPLE, "memhtml-session", "s-42")
    lines = edited.splitlines()
    at = lines.index('<meta name="memhtml-session" content="s-42">')
    assert '<meta name="memhtml-author" content="agent:claude">' == lines[at - 1]
    assert '<meta name="memhtml-valid-from" content="2026-09-01">' == lines[at + 1]
    assert ([], ['<meta name="memhtml-session" content="s-42">']) == changed_lines(
        SEMANTIC_EXAMPLE, edited
    )


def test_set_meta_before_every_other_meta_goes_before_the_first() -> None:
    """With no earlier meta present, the new one goes before the next one in order."""
    html = SEMANTIC_EXAMPLE.replace('<meta name="memhtml-type" content="semantic">\n', "")
    edited = set_meta(html, "memhtml-type", "semantic")
    assert SEMANTIC_EXAMPLE == edited


def test_set_meta_with_no_memhtml_meta_goes_after_the_title() -> None:
    """A head with only a title gets the meta right after it."""
    html = "<!doctype html>\n<head>\n<title>T</title>\n</head>\n<body></body>"
    edited = set_meta(html, "memhtml-status", "active")
    expected = '<title>T</title>\n<meta name="memhtml-status" content="active">\n</head>'
    assert expected in edited


def test_set_meta_keeps_a_multi_line_value_on_one_line() -> None:
    """Whitespace runs in a value collapse, so the meta stays one element on one line."""
    edited = set_meta(SEMANTIC_EXAMPLE, "memhtml-session", "a\n  b\r\n")
    assert ([], ['<meta name="memhtml-session" content="a b">']) == changed_lines(
        SEMANTIC_EXAMPLE, edited
    )


def test_set_meta_escapes_the_value() -> None:
    """Quotes and markup in a value cannot break out of the attribute."""
    edited = set_meta(SEMANTIC_EXAMPLE, "memhtml-session", '"><script>')
    assert '"><script>' == parse_memory(edited).session_id


def test_set_meta_ignores_markup_inside_comments_and_title() -> None:
    """A `<meta>` inside a comment or the title text is not edited."""
    fake = '<meta name="memhtml-importance" content="1">'
    html = SEMANTIC_EXAMPLE.replace("<title>", f"<!-- {fake} --><title>{fake} ")
    edited = set_meta(html, "memhtml-importance", "9")
    doc = parse_memory(edited)
    assert f"<!-- {fake} -->" in edited
    assert 9 == doc.importance
    assert doc.title.startswith(fake)


def test_set_meta_keeps_crlf_files_crlf() -> None:
    """A file written with CRLF gets CRLF on the inserted line too."""
    crlf = SEMANTIC_EXAMPLE.replace("\n", "\r\n")
    edited = set_meta(crlf, "memhtml-reprieves", "2")
    assert "\n" not in edited.replace("\r\n", "")
    assert 2 == parse_memory(edited).reprieves


@pytest.mark.parametrize(
    ("name", "value"),
    [("memhtml-tag", "x"), ("memhtml-colour", "red"), ("title", "x"), ("memhtml-status", " ")],
)
def test_set_meta_refuses_repeatable_unknown_names_and_blank_values(name: str, value: str) -> None:
    """Only single-valued memhtml names, with a non-blank value, can be set."""
    with pytest.raises(InvalidInput):
        set_meta(SEMANTIC_EXAMPLE, name, value)


def test_head_edits_need_a_head() -> None:
    """Text with no title, meta or head element has nowhere to put a meta."""
    with pytest.raises(InvalidMemory):
        set_meta("<p>just text</p>", "memhtml-status", "active")
    with pytest.raises(InvalidMemory):
        add_link("<p>just text</p>", "supports", "a.html")


def test_add_link_appends_after_the_last_link() -> None:
    """The new link is the only added line, after the existing links."""
    edited = add_link(SEMANTIC_EXAMPLE, "contradicts", "/areas/inbox/other.html")
    removed, added = changed_lines(SEMANTIC_EXAMPLE, edited)
    assert ([], ['<link rel="memhtml-contradicts" href="/areas/inbox/other.html">']) == (
        removed,
        added,
    )
    assert Link("contradicts", "areas/inbox/other.html") == parse_memory(edited).links[-1]


def test_add_link_without_links_goes_after_the_last_meta() -> None:
    """With no link in the head, the link follows the last meta."""
    html = TASK_EXAMPLE.replace(
        TASK_EXAMPLE[TASK_EXAMPLE.index("<link") : TASK_EXAMPLE.index("</head>")], ""
    )
    edited = add_link(html, "blocks", "projects/x/tasks/y.html")
    expected = (
        '<meta name="memhtml-tag" content="search">\n'
        '<link rel="memhtml-blocks" href="/projects/x/tasks/y.html">\n</head>'
    )
    assert expected in edited


def test_add_link_is_idempotent() -> None:
    """An existing (rel, target) edge, with or without the leading slash, changes nothing."""
    target = "resources/rate-limits/gateway-quota-policy.html"
    assert SEMANTIC_EXAMPLE == add_link(SEMANTIC_EXAMPLE, "supports", target)
    assert SEMANTIC_EXAMPLE == add_link(SEMANTIC_EXAMPLE, "supports", "/" + target)


@pytest.mark.parametrize(
    ("rel", "target"),
    [("related", "a.html"), ("supports", "a//b.html"), ("supports", "a/../b.html"), ("blocks", "")],
)
def test_add_link_refuses_bad_relations_and_targets(rel: str, target: str) -> None:
    """An unknown relation or a target with an empty, `.` or `..` segment is refused."""
    with pytest.raises(InvalidInput):
        add_link(SEMANTIC_EXAMPLE, rel, target)


def test_mark_archived_stamps_three_metas_and_nothing_else() -> None:
    """Status, updated and archived change; every other line stays."""
    edited = mark_archived(TASK_EXAMPLE, "2026-10-01T00:00:00Z")
    removed, added = changed_lines(TASK_EXAMPLE, edited)
    assert [
        '<meta name="memhtml-status" content="active">',
        '<meta name="memhtml-updated" content="2026-09-13T09:11:47Z">',
    ] == removed
    assert [
        '<meta name="memhtml-status" content="archived">',
        '<meta name="memhtml-updated" content="2026-10-01T00:00:00Z">',
        '<meta name="memhtml-archived" content="2026-10-01T00:00:00Z">',
    ] == added
    doc = parse_memory(edited)
    assert ("archived", "2026-10-01T00:00:00Z") == (doc.status, doc.archived_at)


def test_mark_archived_refuses_a_malformed_instant() -> None:
    """The archive instant must satisfy §5."""
    with pytest.raises(InvalidInput):
        mark_archived(TASK_EXAMPLE, "October")


scalar_edits = st.sampled_from(
    [
        ("memhtml-confidence", st.sampled_from(["0.00", "0.50", "1.00"])),
        ("memhtml-importance", st.integers(1, 10).map(str)),
        ("memhtml-author", st.sampled_from(["agent", "human:sasha"])),
        ("memhtml-session", format_text.filter(str.strip)),
        ("memhtml-valid-until", st.sampled_from(["2027-01-01", "2027-01-01T00:00Z"])),
        ("memhtml-needs-revision", st.sampled_from(["true", "false"])),
        ("memhtml-superseded-by", format_link_targets.map(lambda t: "/" + t)),
    ]
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([SEMANTIC_EXAMPLE, TASK_EXAMPLE]), scalar_edits, st.data())
def test_any_scalar_edit_touches_one_line_and_keeps_the_hash(
    html: str, edit: tuple[str, st.SearchStrategy[str]], data: st.DataObject
) -> None:
    """One line replaced or added (none if the value was already set); the hash stays."""
    name, values = edit
    value = data.draw(values)
    edited = set_meta(html, name, value)
    removed, added = changed_lines(html, edited)
    assert len(removed) <= 1
    assert (0 if edited == html else 1) == len(added)
    assert f'name="{name}"' in added[0] if added else f'content="{value}"' in html
    head = edited[: edited.index("</head>") + 1]
    assert "\n" not in head.replace("\n<", "<")
    assert parse_memory(html).content_hash == parse_memory(edited).content_hash


@given(format_rels, format_link_targets)
def test_added_links_parse_back_and_adding_twice_is_adding_once(rel: str, target: str) -> None:
    """The edge parses back as (rel, target); a second add returns the text unchanged."""
    once = add_link(SEMANTIC_EXAMPLE, rel, target)
    assert once == add_link(once, rel, target)
    doc = parse_memory(once)
    assert Link(rel, target) in doc.links
    assert parse_memory(SEMANTIC_EXAMPLE).content_hash == doc.content_hash
