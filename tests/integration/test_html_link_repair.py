"""Repairing one link in a head: retarget its href or drop it; every other byte stays."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html.head_edit import add_link, drop_link, retarget_link
from memhtml.adapters.html.parser import parse_memory
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import Link
from tests.integration.test_html_examples import SEMANTIC_EXAMPLE
from tests.strategies import format_link_targets, format_rels

SUPPORTS = "resources/rate-limits/gateway-quota-policy.html"
RELATED = "areas/inbox/export-client-aborts-on-429.html"
ARCHIVED = "archive/2026/resources/rate-limits/gateway-quota-policy.html"

edge_lists = st.lists(st.tuples(format_rels, format_link_targets), min_size=1, max_size=5).map(
    lambda edges: list(dict.fromkeys(edges))
)


def with_edges(edges: list[tuple[str, str]]) -> str:
    """The semantic example with ``edges`` added after its own two links."""
    html = SEMANTIC_EXAMPLE
    for rel, target in edges:
        html = add_link(html, rel, target)
    return html


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """Lines removed and lines added between two texts."""
    diff = list(difflib.ndiff(before.splitlines(), after.splitlines()))
    return [d[2:] for d in diff if d.startswith("- ")], [d[2:] for d in diff if d.startswith("+ ")]


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(edge_lists, st.data())
def test_dropping_an_edge_removes_exactly_its_line(
    edges: list[tuple[str, str]], data: st.DataObject
) -> None:
    """The parsed links lose that edge and keep their order; one line goes, none comes; the
    content hash is unchanged."""
    html = with_edges(edges)
    before = parse_memory(html)
    rel, target = data.draw(st.sampled_from(edges))
    dropped = drop_link(html, rel, target)
    after = parse_memory(dropped)
    assert [link for link in before.links if link != Link(rel, target)] == list(after.links)
    removed, added = changed_lines(html, dropped)
    assert (1, []) == (len(removed), added)
    assert before.content_hash == after.content_hash


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(edge_lists, format_link_targets, st.data())
def test_retargeting_an_edge_replaces_it_in_place(
    edges: list[tuple[str, str]], new_target: str, data: st.DataObject
) -> None:
    """The edge becomes (rel, new target) at the same position, or disappears when the file
    already states that edge; at most one line changes; the content hash is unchanged."""
    html = with_edges(edges)
    before = parse_memory(html)
    rel, target = data.draw(st.sampled_from(edges))
    edited = retarget_link(html, rel, target, new_target)
    old, new = Link(rel, target), Link(rel, new_target)
    if new in before.links and new != old:
        expected = [link for link in before.links if link != old]
    else:
        expected = [new if link == old else link for link in before.links]
    after = parse_memory(edited)
    removed, added = changed_lines(html, edited)
    assert expected == list(after.links)
    assert len(removed) <= 1
    assert len(added) <= 1
    assert before.content_hash == after.content_hash


@given(format_rels, format_link_targets)
def test_an_absent_edge_leaves_the_text_unchanged(rel: str, target: str) -> None:
    """Neither edit invents a change when the file does not state the edge."""
    assume(Link(rel, target) not in parse_memory(SEMANTIC_EXAMPLE).links)
    assert SEMANTIC_EXAMPLE == drop_link(SEMANTIC_EXAMPLE, rel, target)
    assert SEMANTIC_EXAMPLE == retarget_link(SEMANTIC_EXAMPLE, rel, target, "areas/x.html")


def test_retarget_rewrites_only_the_href_of_a_hand_written_link() -> None:
    """Other attributes, quoting style elsewhere and the element's place survive."""
    hand = f"<link title='policy' REL=\"memhtml-supports\" HREF='/{SUPPORTS}#top' id=x1>"
    html = SEMANTIC_EXAMPLE.replace(f'<link rel="memhtml-supports" href="/{SUPPORTS}">', hand)
    edited = retarget_link(html, "supports", SUPPORTS, ARCHIVED)
    expected = f'<link title=\'policy\' REL="memhtml-supports" href="/{ARCHIVED}" id=x1>'
    assert ([hand], [expected]) == changed_lines(html, edited)
    assert Link("supports", ARCHIVED) in parse_memory(edited).links


def test_repeats_of_the_edge_go_with_the_retarget() -> None:
    """Two spellings of one edge: the first is re-pointed, the second removed."""
    html = SEMANTIC_EXAMPLE.replace(
        "</head>", f'<link rel="memhtml-supports" href="/{SUPPORTS}?v=2">\n</head>'
    )
    edited = retarget_link(html, "supports", SUPPORTS, ARCHIVED)
    links = parse_memory(edited).links
    assert (Link("supports", ARCHIVED), Link("laterally_related", RELATED)) == links


def test_a_link_sharing_its_line_is_cut_without_the_line() -> None:
    """Dropping an element that is not alone on its line removes just the element."""
    line = f'<link rel="memhtml-supports" href="/{SUPPORTS}">'
    html = SEMANTIC_EXAMPLE.replace(line, f"{line}<!-- kept -->")
    dropped = drop_link(html, "supports", SUPPORTS)
    assert ([f"{line}<!-- kept -->"], ["<!-- kept -->"]) == changed_lines(html, dropped)


def test_a_link_inside_a_comment_is_not_an_edge() -> None:
    """Markup in a comment is text: nothing is edited there."""
    commented = f'<!-- <link rel="memhtml-supports" href="/{SUPPORTS}"> -->'
    html = SEMANTIC_EXAMPLE.replace("<title>", f"{commented}\n<title>")
    dropped = drop_link(html, "supports", SUPPORTS)
    assert commented in dropped
    assert Link("supports", SUPPORTS) not in parse_memory(dropped).links


def test_crlf_files_lose_the_whole_line() -> None:
    """A dropped line takes its CRLF with it; no stray carriage return is left."""
    html = SEMANTIC_EXAMPLE.replace("\n", "\r\n")
    dropped = drop_link(html, "supports", SUPPORTS)
    assert dropped == html.replace(f'<link rel="memhtml-supports" href="/{SUPPORTS}">\r\n', "")


@pytest.mark.parametrize(
    ("rel", "target", "new_target"),
    [("related_to", SUPPORTS, ARCHIVED), ("supports", "../x.html", ARCHIVED)],
    ids=["unknown-rel", "bad-target"],
)
def test_bad_edges_are_refused(rel: str, target: str, new_target: str) -> None:
    """A relation outside the vocabulary or a path leaving the repository is InvalidInput."""
    with pytest.raises(InvalidInput):
        retarget_link(SEMANTIC_EXAMPLE, rel, target, new_target)
    with pytest.raises(InvalidInput):
        drop_link(SEMANTIC_EXAMPLE, rel, target)


def test_a_bad_new_target_is_refused() -> None:
    """The replacement href must be a repo path too."""
    with pytest.raises(InvalidInput):
        retarget_link(SEMANTIC_EXAMPLE, "supports", SUPPORTS, "a//b.html")
