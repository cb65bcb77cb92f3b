"""The contextual documents in SQL (context_sql.py, migration 0004) against their pure twin
(domain.lexical_context), and the session documents (session_sql.py, migration 0009) against
theirs (domain.session_documents): after any sequence of writes, moves and removals, refreshed
at any moments, the stored documents are the twin's documents of the rows the index holds."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.index_store import SqliteIndexStore
from memhtml.domain.lexical_context import ContextFacts, context_documents
from memhtml.domain.projection import FileProjection
from memhtml.domain.session_documents import SessionKey, session_documents
from tests.contract.storage.harness import Memory
from tests.support import index_migrations_before, migrated_in_memory

PATHS = tuple(f"areas/inbox/m{j}.html" for j in range(5))
STAMPS = ("2026-09-01T00:00:00Z", "2026-09-01T00:00:01Z", "2026-09-02T00:00:00Z")

write_op = st.tuples(
    st.just("write"),
    st.integers(0, len(PATHS) - 1),
    st.sampled_from(("episodic", "semantic")),
    st.sampled_from((None, "chat-1", "chat-2")),
    st.sampled_from((None, *STAMPS)),
    st.sampled_from(("Lake trip", "Cabin plan")),
    st.lists(st.sampled_from(PATHS), max_size=2, unique=True),
    st.lists(st.sampled_from(("ops", "trips")), max_size=2, unique=True),
)
remove_op = st.tuples(st.just("remove"), st.integers(0, len(PATHS) - 1))
move_op = st.tuples(st.just("move"), st.integers(0, len(PATHS) - 1), st.integers(0, 4))
refresh_op = st.tuples(st.just("refresh"))
histories = st.lists(st.one_of(write_op, remove_op, move_op, refresh_op), max_size=14)


def facts_of(projections: Iterable[FileProjection]) -> list[ContextFacts]:
    """What the twin reads, from the projections the index holds."""
    return [
        ContextFacts(
            path=p.path,
            memory_type=p.row.memory_type,
            session_id=p.row.session_id,
            archived=p.row.archived,
            order_at=p.row.event_at if p.row.event_at is not None else p.row.created_at,
            title=p.row.title,
            fts_text=p.row.fts_text,
            tags=p.tags,
            entity_names=tuple(entity.name for entity in p.entities),
            link_targets=tuple(edge.target for edge in p.edges),
        )
        for p in projections
    ]


def stored(db: Database) -> dict[str, str]:
    """Every stored context document, by path."""
    return {str(path): str(text) for path, text in db.all("SELECT path, text FROM file_context")}


def apply(store: SqliteIndexStore, held: dict[str, Memory], op: tuple[Any, ...], k: int) -> None:
    """Carry ``op`` out on the store and on ``held`` (path → the memory its row holds)."""
    if op[0] == "write":
        _, i, kind, session, at, title, links, tags = op
        path = PATHS[i]
        memory = Memory(
            path=path,
            claim=f"Step {k} by the lake.",
            title=str(title),
            memory_type=str(kind),
            session_id=session,
            event_at=at,
            links=tuple(("supports", target) for target in links if target != path),
            tags=tuple(tags),
        )
        store.write_projections([memory.projection()])
        held[path] = memory
    elif op[0] == "remove":
        path = PATHS[op[1]]
        store.remove_rows([path])
        held.pop(path, None)
    elif op[0] == "move":
        source, target = PATHS[op[1]], PATHS[op[2]]
        if source == target:
            return
        store.move_rows([(source, target)], with_state=False)
        if source in held:
            # A memory never links to itself: the index drops the edge a rename turns into a
            # self-link (a write never makes one either), so the model drops it too.
            moved = held.pop(source)
            links = tuple(link for link in moved.links if link[1] != target)
            held[target] = attrs.evolve(moved, path=target, links=links)


def rekeyed(db: Database) -> list[str]:
    """Documents whose rowid is not their memory's (the context arm joins by it): none."""
    return [
        str(path)
        for (path,) in db.all(
            "SELECT x.path FROM file_context x JOIN files f ON f.path = x.path "
            "WHERE x.rowid <> f.rowid"
        )
    ]


def expected(held: dict[str, Memory]) -> dict[str, str]:
    """The twin's documents for what the index holds."""
    return context_documents(facts_of(memory.projection() for memory in held.values()))


def stored_sessions(db: Database) -> dict[SessionKey, str]:
    """Every stored session document, by session."""
    rows = db.all("SELECT session_id, archived, text FROM session_documents")
    return {SessionKey(session_id=str(s), archived=bool(a)): str(t) for s, a, t in rows}


def expected_sessions(held: dict[str, Memory]) -> dict[SessionKey, str]:
    """The twin's session documents for what the index holds."""
    return session_documents(facts_of(memory.projection() for memory in held.values()))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=histories)
def test_refreshed_documents_equal_the_twin_after_any_history(
    history: list[tuple[Any, ...]],
) -> None:
    """Each refresh redoes exactly what the changes since the last one reach: the context
    documents and the session documents (a move or a session change redoes both sessions)."""
    db = migrated_in_memory(state=False, tokenizer="unicode61")
    store = SqliteIndexStore(db)
    held: dict[str, Memory] = {}
    for k, op in enumerate(history):
        if op[0] == "refresh":
            store.refresh_context()
            assert expected(held) == stored(db)
            assert expected_sessions(held) == stored_sessions(db)
            assert [] == rekeyed(db)
        else:
            apply(store, held, op, k)
    store.refresh_context()
    assert expected(held) == stored(db)
    assert expected_sessions(held) == stored_sessions(db)
    assert [] == rekeyed(db)
    db.close()


def test_a_refresh_with_nothing_changed_writes_nothing() -> None:
    """No changed row since the last refresh: not one statement writes."""
    db = Database.open(":memory:", state_path=None, fts_tokenizer="unicode61")
    store = SqliteIndexStore(db)
    first = Memory(path=PATHS[0], claim="One.", memory_type="episodic", session_id="s")
    second = Memory(path=PATHS[1], claim="Two.", memory_type="episodic", session_id="s")
    store.write_projections([first.projection(), second.projection()])
    store.refresh_context()
    before = db.get("SELECT total_changes()")
    store.refresh_context()
    assert before == db.get("SELECT total_changes()")
    one, two = first.projection().row.fts_text, second.projection().row.fts_text
    assert {PATHS[1]: f"{two}\n{one}"} == stored(db)  # the first has no context
    # Both in event order (one stamp, so by path).
    assert {SessionKey(session_id="s", archived=False): f"{one}\n{two}"} == stored_sessions(db)
    db.close()


def test_documents_stored_under_other_rowids_are_rekeyed_on_open(tmp_path: Path) -> None:
    """An index from before migration 0013 (documents under rowids of their own) gets every
    document under its memory's rowid, the same texts, and a full-text index in step."""
    old = index_migrations_before("0013", tmp_path / "old")
    memories = [
        Memory(path=path, claim=f"Step {j} by the lake.", memory_type="episodic", session_id="s")
        for j, path in enumerate(PATHS)
    ]
    with Database.open(tmp_path / "index.db", state_path=None, index_migrations=old) as db:
        store = SqliteIndexStore(db)
        store.write_projections([memory.projection() for memory in memories])
        store.refresh_context()
        before = stored(db)
        db.script(
            "CREATE TEMP TABLE moved AS SELECT rowid + 100 AS r, path, text, prev_path "
            "FROM file_context; DELETE FROM file_context; "
            "INSERT INTO file_context(rowid, path, text, prev_path) "
            "SELECT r, path, text, prev_path FROM moved;"
        )
        assert len(rekeyed(db)) == len(before) > 0
    with Database.open(tmp_path / "index.db", state_path=None) as db:
        assert "0013_context_rowid.sql" in db.newly_applied
        assert ([], before) == (rekeyed(db), stored(db))
        db.script("INSERT INTO context_fts(context_fts) VALUES ('integrity-check')")
        matched = db.all(
            "SELECT f.path FROM context_fts JOIN files f ON f.rowid = context_fts.rowid "
            "WHERE context_fts MATCH 'lake' ORDER BY f.path"
        )
        assert sorted(before) == [str(path) for (path,) in matched]
