"""The contextual lexical documents (domain.lexical_context): own text first, then tags and
entity names, linked titles, and the previous episodic memory of the same session."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.lexical_context import ContextFacts, context_documents


def fact(path: str, text: str, **fields: object) -> ContextFacts:
    """A memory's facts with quiet defaults: semantic, no session, not archived."""
    values: dict[str, object] = {
        "memory_type": "semantic",
        "session_id": None,
        "archived": False,
        "order_at": "2026-09-01T00:00:00Z",
        "title": text.split("\n")[0],
    }
    values.update(fields)
    return ContextFacts(path=path, fts_text=text, **values)  # type: ignore[arg-type]


def turn(
    path: str, text: str, at: str, session: str | None = "chat-1", **fields: object
) -> ContextFacts:
    """An episodic memory of ``session`` at ``at``."""
    return fact(path, text, memory_type="episodic", session_id=session, order_at=at, **fields)


def test_the_document_is_the_own_text_then_tags_entities_links_and_the_previous_turn() -> None:
    """Every part in its place, each on its own line; tags and names sorted, one space apart."""
    documents = context_documents(
        [
            turn("a/t1.html", "We drove to the lake", "2026-09-01T10:00:00Z"),
            turn(
                "a/t2.html",
                "Yes, the one by the cabin",
                "2026-09-01T10:00:01Z",
                tags=("trips", "family"),
                entity_names=("sasha", "mel"),
                link_targets=("a/plan.html", "a/missing.html"),
            ),
            fact("a/plan.html", "Summer plan\nBook the cabin"),
        ]
    )
    expected = (
        "Yes, the one by the cabin\nfamily trips\nmel sasha\nSummer plan\nWe drove to the lake"
    )
    assert expected == documents["a/t2.html"]
    assert "We drove to the lake" == documents["a/t1.html"]


def test_only_episodic_memories_of_one_session_and_archive_flag_are_neighbours() -> None:
    """Another session, no session, another type or the archive never lend their text."""
    documents = context_documents(
        [
            turn("a/x1.html", "other session", "2026-09-01T00:00:00Z", session="chat-2"),
            turn("a/x2.html", "no session", "2026-09-01T00:00:01Z", session=None),
            fact(
                "a/x3.html", "a semantic one", session_id="chat-1", order_at="2026-09-01T00:00:02Z"
            ),
            turn("archive/2026/a/x4.html", "archived", "2026-09-01T00:00:03Z", archived=True),
            turn("a/x5.html", "the turn", "2026-09-01T00:00:04Z"),
        ]
    )
    assert "the turn" == documents["a/x5.html"]


def test_no_parts_leave_the_own_text() -> None:
    """With every part switched off the context document is the full-text document."""
    facts = [turn("a/t1.html", "one", "1"), turn("a/t2.html", "two", "2", tags=("x",))]
    assert {"a/t1.html": "one", "a/t2.html": "two"} == context_documents(facts, parts=())


def test_an_unknown_part_is_a_caller_bug() -> None:
    """A misspelt part raises instead of building documents without it."""
    with pytest.raises(ValueError, match="unknown context parts"):
        context_documents([], parts=("neighbours",))


stamps = st.sampled_from(("2026-09-01T00:00:00Z", "2026-09-01T00:00:01Z", "2026-09-02T00:00:00Z"))
facts = st.lists(
    st.builds(
        ContextFacts,
        path=st.sampled_from([f"areas/m{i}.html" for i in range(8)]),
        memory_type=st.sampled_from(("episodic", "semantic")),
        session_id=st.sampled_from((None, "s1", "s2")),
        archived=st.booleans(),
        order_at=stamps,
        title=st.sampled_from(("", "Lake trip", "Cabin")),
        fts_text=st.sampled_from(("lake", "cabin trip", "the boat")),
        tags=st.lists(st.sampled_from(("ops", "trips")), max_size=2).map(tuple),
        entity_names=st.lists(st.sampled_from(("sasha", "mel")), max_size=2).map(tuple),
        link_targets=st.lists(
            st.sampled_from([f"areas/m{i}.html" for i in range(9)]), max_size=3
        ).map(tuple),
    ),
    unique_by=lambda fact: fact.path,
    max_size=8,
)


@given(facts=facts, data=st.data())
def test_the_documents_do_not_depend_on_the_order_of_the_facts(
    facts: list[ContextFacts], data: st.DataObject
) -> None:
    """A backend may read its rows in any order and build the same documents."""
    shuffled = data.draw(st.permutations(facts))
    assert context_documents(facts) == context_documents(shuffled)


@given(facts=facts)
def test_every_document_starts_with_its_own_text_and_holds_at_most_one_neighbour(
    facts: list[ContextFacts],
) -> None:
    """The own text leads; a session lends each member at most its predecessor's text, and a
    session's earliest member gets none."""
    documents = context_documents(facts, parts=("prev",))
    by_path = {f.path: f for f in facts}
    for path, document in documents.items():
        own = by_path[path]
        assert document.startswith(own.fts_text)
        extra = document[len(own.fts_text) :].removeprefix("\n")
        peers = [
            f
            for f in facts
            if own.memory_type == f.memory_type == "episodic"
            and own.session_id is not None
            and (f.session_id, f.archived) == (own.session_id, own.archived)
            and (f.order_at, f.path) < (own.order_at, own.path)
        ]
        expected = max(peers, key=lambda f: (f.order_at, f.path)).fts_text if peers else ""
        assert expected == extra
