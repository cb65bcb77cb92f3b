"""The pure helpers beside MemoryDoc: entity refs, link targets and the derived texts."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.model import (
    Citation,
    EntityRef,
    Facet,
    Link,
    MemoryDoc,
    collapse_whitespace,
    disclosure_text_of,
    fts_text_of,
    link_target_of,
    split_entity_ref,
    word_count_of,
)
from tests.strategies import format_bad_hrefs, format_link_targets, format_text

ASCII_WS = " \t\n\f\r"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("service:search-api", EntityRef("service", "search-api")),
        ("a:b:c", EntityRef("a", "b:c")),
        ("  team : platform ", EntityRef("team", "platform")),
        ("search-api", EntityRef("unknown", "search-api")),
        (":search-api", EntityRef("unknown", ":search-api")),
        ("service:", EntityRef("unknown", "service:")),
        ("person:Sasha\u00a0K", EntityRef("person", "Sasha\u00a0K")),
    ],
)
def test_entity_refs_split_at_the_first_colon(value: str, expected: EntityRef) -> None:
    """First colon splits; no colon or an empty side files the whole value under `unknown`."""
    assert expected == split_entity_ref(value)


@given(format_text, format_text)
@example("a", "b:c")
@example("a ", " b")
def test_entity_ref_round_trips_through_its_ref_form(entity_type: str, name: str) -> None:
    """Splitting `type:name` gives back the trimmed parts when both are non-empty."""
    clean_type = entity_type.strip(ASCII_WS).replace(":", "")
    clean_name = name.strip(ASCII_WS)
    ref = split_entity_ref(f"{clean_type}:{clean_name}")
    if clean_type.strip(ASCII_WS) and clean_name:
        assert EntityRef(clean_type.strip(ASCII_WS), clean_name) == ref
        assert f"{ref.type}:{ref.name}" == ref.ref
    else:
        assert "unknown" == ref.type


@given(format_text)
def test_entity_split_never_loses_the_value(value: str) -> None:
    """The type never holds a colon and the name is never empty for a non-blank value."""
    ref = split_entity_ref(value)
    assert ":" not in ref.type
    assert bool(value.strip(ASCII_WS)) == bool(ref.name)


@given(format_link_targets)
def test_valid_targets_survive_as_hrefs(target: str) -> None:
    """`/target` is a valid href whose stored target is `target`, query and fragment aside."""
    assert target == link_target_of("/" + target)
    assert target == link_target_of(f"/{target}?x=1#frag")


@given(format_bad_hrefs)
def test_bad_hrefs_are_refused(href: str) -> None:
    """No leading slash, a host, or an empty/`.`/`..` segment makes the href invalid."""
    assert link_target_of(href) is None


@given(st.text(alphabet="/.a?#", max_size=12))
@example("/a/../b")
def test_accepted_targets_have_only_real_segments(href: str) -> None:
    """Whatever is accepted splits into segments that are never empty, `.` or `..`."""
    target = link_target_of(href)
    if target is not None:
        assert all(seg not in ("", ".", "..") for seg in target.split("/"))
        assert target == link_target_of("/" + target)


@given(format_text)
@example("a \u00a0 b")
def test_collapse_whitespace_leaves_single_spaces_and_keeps_nbsp(text: str) -> None:
    """No ASCII whitespace run survives, the ends are trimmed, U+00A0 is content."""
    collapsed = collapse_whitespace(text)
    assert re.search(r"[\t\n\f\r]|  ", collapsed) is None
    assert collapsed == collapsed.strip(" ")
    assert text.count("\u00a0") == collapsed.count("\u00a0")
    assert collapsed == collapse_whitespace(collapsed)


@given(format_text, format_text, format_text)
def test_fts_text_joins_the_non_empty_parts_in_order(title: str, gist: str, body: str) -> None:
    """Title, gist and body, empty ones left out, one per line."""
    expected = "\n".join(part for part in (title, gist, body) if part)
    assert expected == fts_text_of(title, gist, body)


def test_fts_text_omits_empty_parts() -> None:
    """An empty gist leaves no blank line between title and body."""
    assert "Title\nBody" == fts_text_of("Title", "", "Body")


facets = st.lists(st.builds(Facet, format_text, format_text, st.none()), max_size=3)
citations = st.lists(st.builds(Citation, format_text, st.none()), max_size=3)


@given(format_text, st.lists(format_text, max_size=3), facets, citations)
@example("0\n0", [], [], [])
def test_disclosure_lines_are_claim_headlines_facets_citations(
    gist: str, summaries: list[str], rows: list[Facet], cites: list[Citation]
) -> None:
    """Each line is one source item, collapsed, in source order; blank items never appear."""
    text = disclosure_text_of(gist, tuple(summaries), tuple(rows), tuple(cites))
    sources = [gist, *summaries, *(f"{f.name}: {f.value}" for f in rows), *(c.text for c in cites)]
    expected = [collapse_whitespace(s) for s in sources if collapse_whitespace(s)]
    assert expected == (text.split("\n") if text else [])


def test_disclosure_text_of_the_worked_example_shape() -> None:
    """Gist, headline, `name: value` facet and citation, one per line."""
    text = disclosure_text_of(
        "Claim.",
        ("How",),
        (Facet("Limit", "300 rpm", 300.0),),
        (Citation("review", None),),
    )
    assert "Claim.\nHow\nLimit: 300 rpm\nreview" == text


@given(format_text)
def test_word_count_counts_whitespace_separated_tokens(text: str) -> None:
    """Word count equals the number of runs between whitespace."""
    assert len(re.findall(r"\S+", text)) == word_count_of(text)


def test_links_from_drops_the_self_link() -> None:
    """A link whose target is the file's own path is not an edge."""
    doc = MemoryDoc(
        title="t",
        memory_type="semantic",
        status="active",
        created_at="2026-01-01",
        updated_at="2026-01-01",
        content_hash="sha256:" + "0" * 64,
        links=(Link("supports", "a.html"), Link("supports", "b.html")),
    )
    assert (Link("supports", "b.html"),) == doc.links_from("a.html")
