"""The contextual documents in SQL (context_sql.py, migration 0004) against their pure twin
(domain.lexical_context), over generated stores: the same text for every memory, after any
sequence of writes, moves and removals."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.index_store import SqliteIndexStore
from memhtml.domain.lexical_context import ContextFacts, context_documents
from memhtml.domain.projection import FileProjection
from tests.contract.storage.corpora import memories
from tests.contract.storage.harness import Memory

MIGRATION = files("memhtml.adapters.sqlite") / "migrations" / "0004_lexical_context.sql"


def facts_of(projections: Sequence[FileProjection]) -> list[ContextFacts]:
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


def indexed(corpus: Sequence[Memory]) -> tuple[Database, SqliteIndexStore, list[FileProjection]]:
    """A fresh index holding ``corpus``, context refreshed."""
    db = Database.open(":memory:", state_path=None, fts_tokenizer="unicode61")
    store = SqliteIndexStore(db)
    projections = [memory.projection() for memory in corpus]
    store.write_projections(projections)
    store.refresh_context()
    return db, store, projections


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=memories(), drop=st.sets(st.integers(0, 8)))
def test_the_stored_documents_equal_the_twin_after_writes_and_removals(
    corpus: tuple[Memory, ...], drop: set[int]
) -> None:
    """Refreshed after projecting, then after removing some rows: the twin's documents."""
    db, store, projections = indexed(corpus)
    assert context_documents(facts_of(projections)) == stored(db)
    gone = [p.path for i, p in enumerate(projections) if i in drop]
    store.remove_rows(gone)
    store.refresh_context()
    kept = [p for p in projections if p.path not in gone]
    assert context_documents(facts_of(kept)) == stored(db)
    db.close()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=memories())
def test_the_migration_fills_the_same_documents_as_a_refresh(corpus: tuple[Memory, ...]) -> None:
    """Migration 0004's fill for an index built before it is the refresh statement's copy."""
    db, _, _ = indexed(corpus)
    refreshed = stored(db)
    fill = MIGRATION.read_text(encoding="utf-8")
    fill = fill[fill.rindex("INSERT INTO file_context") :]
    db.script(f"DELETE FROM file_context;\n{fill}")
    assert refreshed == stored(db)
    db.close()


def test_a_refresh_that_changes_nothing_rewrites_nothing() -> None:
    """Unchanged documents are left alone, so the full-text index is not churned."""
    corpus = (
        Memory(path="areas/a.html", claim="One.", memory_type="episodic", session_id="s"),
        Memory(path="areas/b.html", claim="Two.", memory_type="episodic", session_id="s"),
    )
    db, store, _ = indexed(corpus)
    before = db.get("SELECT total_changes()")
    store.refresh_context()
    after = db.get("SELECT total_changes()")
    assert before == after
    db.close()
