"""The session documents and the session arm's rule (domain.session_documents): one document
per session of episodic memories, and the members of the best sessions interleaved."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.lexical_context import ContextFacts
from memhtml.domain.session_documents import (
    SessionKey,
    session_documents,
    session_key,
    session_ranking,
)


def turn(
    path: str, text: str, at: str, session: str | None = "chat-1", **fields: object
) -> ContextFacts:
    """An episodic memory of ``session`` at ``at``."""
    values: dict[str, object] = {
        "memory_type": "episodic",
        "session_id": session,
        "archived": False,
        "order_at": at,
        "title": text,
    }
    values.update(fields)
    return ContextFacts(path=path, fts_text=text, **values)  # type: ignore[arg-type]


def key(session: str, archived: bool = False) -> SessionKey:
    return SessionKey(session_id=session, archived=archived)


def test_a_session_document_is_its_members_text_in_event_order() -> None:
    """Event order (path for equal times), one member per line, whatever order they come in."""
    documents = session_documents(
        [
            turn("s/t3.html", "see you at the lake", "2026-09-01T10:00:02Z"),
            turn("s/t1.html", "we drove north", "2026-09-01T10:00:00Z"),
            turn("s/t2b.html", "the cabin", "2026-09-01T10:00:01Z"),
            turn("s/t2a.html", "by the water", "2026-09-01T10:00:01Z"),
        ]
    )
    expected = {key("chat-1"): "we drove north\nby the water\nthe cabin\nsee you at the lake"}
    assert expected == documents


def test_only_episodic_memories_with_a_session_have_one_and_archive_splits_it() -> None:
    """No session id or another type: no document. Archived members are a session of their own,
    as they are a neighbour window of their own for the context document."""
    documents = session_documents(
        [
            turn("a.html", "no session", "2026-09-01T10:00:00Z", session=None),
            turn("b.html", "a fact", "2026-09-01T10:00:00Z", memory_type="semantic"),
            turn("c.html", "live turn", "2026-09-01T10:00:00Z"),
            turn("archive/d.html", "old turn", "2026-09-01T10:00:00Z", archived=True),
        ]
    )
    assert {key("chat-1"): "live turn", key("chat-1", True): "old turn"} == documents
    assert session_key(turn("b.html", "x", "t", memory_type="semantic")) is None


def test_the_best_session_s_members_come_first_then_the_next_session_s() -> None:
    """Session by session, best score first; inside one, own score order; a session with no
    candidate is skipped, and a candidate whose session did not match is left out."""
    ranked = session_ranking(
        session_scores={key("s1"): -9.0, key("s2"): -5.0, key("s3"): -7.0},
        own_scores={"a": -1.0, "b": -3.0, "c": -2.0, "d": -0.5},
        sessions={"a": key("s1"), "b": key("s1"), "c": key("s2"), "d": key("s9")},
        limit=10,
    )
    assert ["b", "a", "c"] == ranked


def test_depth_keeps_only_the_best_sessions_that_hold_a_candidate() -> None:
    """Depth counts sessions with a candidate, best score first, key for ties; the limit cuts
    the list, not the sessions."""
    ranked = session_ranking(
        session_scores={key("s1"): -1.0, key("s2"): -1.0, key("s3"): -3.0},
        own_scores={"a": -1.0, "b": -1.0, "c": -1.0, "c2": -2.0},
        sessions={"a": key("s1"), "b": key("s2"), "c": key("s3"), "c2": key("s3")},
        limit=10,
        depth=2,
    )
    assert ["c2", "c", "a"] == ranked
    assert ["c2"] == session_ranking(
        session_scores={key("s3"): -3.0},
        own_scores={"c": -1.0, "c2": -2.0},
        sessions={"c": key("s3"), "c2": key("s3")},
        limit=1,
    )


session_ids = st.sampled_from(["s1", "s2", "s3", "s4"])
scores = st.sampled_from([-4.0, -2.5, -1.0, -0.25])


@given(
    members=st.dictionaries(
        st.text("abcdef", min_size=1, max_size=3), st.tuples(session_ids, scores)
    ),
    session_scores=st.dictionaries(session_ids.map(key), scores),
    limit=st.integers(min_value=0, max_value=12),
    depth=st.integers(min_value=1, max_value=5),
)
def test_the_ranking_holds_only_candidates_of_at_most_depth_sessions(
    members: dict[str, tuple[str, float]],
    session_scores: dict[SessionKey, float],
    limit: int,
    depth: int,
) -> None:
    """Every path is a candidate (own score and a scored session), once; at most ``limit`` of
    them from at most ``depth`` sessions, each session one block, blocks in session order;
    inside a session, own score order (then path)."""
    sessions = {path: key(sid) for path, (sid, _) in members.items()}
    own = {path: score for path, (_, score) in members.items()}
    ranked = session_ranking(
        session_scores=session_scores, own_scores=own, sessions=sessions, limit=limit, depth=depth
    )
    assert len(ranked) == len(set(ranked)) <= limit
    assert all(sessions[path] in session_scores for path in ranked)
    assert len({sessions[path] for path in ranked}) <= depth
    for session in {sessions[path] for path in ranked}:
        inside = [path for path in ranked if sessions[path] == session]
        assert sorted(inside, key=lambda p: (own[p], p)) == inside
    blocks = [
        sessions[path]
        for i, path in enumerate(ranked)
        if i == 0 or sessions[ranked[i - 1]] != sessions[path]
    ]
    assert len(blocks) == len(set(blocks))
    assert sorted(blocks, key=lambda k: (session_scores[k], k)) == blocks
    candidates = [p for p in own if sessions[p] in session_scores]
    if candidates and limit:
        best = min(session_scores[sessions[p]] for p in candidates)
        best_session = min(
            k for k in {sessions[p] for p in candidates} if session_scores[k] == best
        )
        leader = min((own[p], p) for p in candidates if sessions[p] == best_session)[1]
        assert leader == ranked[0]


@given(
    facts=st.lists(
        st.builds(
            turn,
            path=st.text("abc", min_size=1, max_size=3).map(lambda p: p + ".html"),
            text=st.text("xyz ", max_size=6),
            at=st.sampled_from(["2026-01-01", "2026-01-02"]),
            session=st.sampled_from([None, "s1", "s2"]),
            archived=st.booleans(),
        ),
        unique_by=lambda f: f.path,
    ),
    seed=st.randoms(use_true_random=False),
)
def test_documents_do_not_depend_on_the_order_of_facts(
    facts: list[ContextFacts], seed: object
) -> None:
    """Shuffling the facts changes no document."""
    shuffled = list(facts)
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    assert session_documents(facts) == session_documents(shuffled)
