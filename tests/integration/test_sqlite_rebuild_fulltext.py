"""A rebuild indexes full text in one pass, the memories' own text and their context documents
alike, and leaves the schema as migrations 0001 and 0004 made it."""

from __future__ import annotations

from pathlib import Path

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.index_store import SqliteIndexStore
from memhtml.adapters.sqlite.schema import CONTEXT_FTS_TRIGGERS, FTS_TRIGGERS
from tests.contract.storage.harness import DIM, MODEL, NOW, Memory

_TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE ?"
TAGGED = (
    Memory(path="areas/a.html", claim="Alpha holds.", tags=("ledger",)),
    Memory(path="areas/b.html", claim="Beta holds.", tags=("ledger", "lock")),
)


def triggers(db: Database, prefix: str = "files_fts") -> dict[str, str]:
    """The full-text triggers as sqlite_master holds them."""
    return {str(name): str(sql) for name, sql in db.all(_TRIGGERS, (f"{prefix}%",))}


def context_matches(db: Database, word: str) -> list[str]:
    """The context documents the context index finds for ``word``, after checking the index
    against its content table."""
    db.run("INSERT INTO context_fts(context_fts) VALUES ('integrity-check')")
    rows = db.all(
        "SELECT c.path FROM context_fts JOIN file_context c ON c.rowid = context_fts.rowid "
        "WHERE context_fts MATCH ? ORDER BY c.path",
        (word,),
    )
    return [str(row[0]) for row in rows]


def test_the_recreated_triggers_are_the_migrations(tmp_path: Path) -> None:
    """The triggers a rebuild drops come back byte for byte as the migration created them."""
    with Database.open(tmp_path / "index.db") as db:
        created = triggers(db)
        store = SqliteIndexStore(db)
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        during = triggers(db)
        store.write_projections([Memory(path="areas/a.html", claim="Alpha holds.").projection()])
        store.finish_rebuild(embed_model=MODEL)
        after = triggers(db)
    assert (FTS_TRIGGERS, {}, FTS_TRIGGERS) == (created, during, after)


def test_a_rebuild_that_dies_leaves_the_next_rebuild_whole(tmp_path: Path) -> None:
    """Killed between truncate and finish, the next rebuild still ends with every trigger."""
    with Database.open(tmp_path / "index.db") as db:
        store = SqliteIndexStore(db)
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        store.write_projections([Memory(path="areas/a.html", claim="Alpha holds.").projection()])
    with Database.open(tmp_path / "index.db") as db:
        store = SqliteIndexStore(db)
        state = store.index_state()
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        store.write_projections([Memory(path="areas/b.html", claim="Beta holds.").projection()])
        store.finish_rebuild(embed_model=MODEL)
        after = triggers(db)
        found = db.all("SELECT rowid FROM files_fts WHERE files_fts MATCH 'beta'")
    assert state is not None
    assert (None, FTS_TRIGGERS, 1) == (state.head_sha, after, len(found))


def test_the_context_index_is_rebuilt_once_and_its_triggers_come_back(tmp_path: Path) -> None:
    """Over an index that holds context documents, a rebuild drops the context index's
    triggers with its truncate and the refresh after the projections brings them back byte
    for byte, with every document indexed; the next write is indexed by them again."""
    with Database.open(tmp_path / "index.db") as db:
        created = triggers(db, "context_fts")
        store = SqliteIndexStore(db)
        store.write_projections([memory.projection() for memory in TAGGED])
        store.refresh_context()
        before = context_matches(db, "ledger")
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        during = triggers(db, "context_fts")
        store.write_projections([memory.projection() for memory in TAGGED])
        store.finish_rebuild(embed_model=MODEL)
        store.refresh_context()
        after, rebuilt = triggers(db, "context_fts"), context_matches(db, "ledger")
        late = Memory(path="areas/c.html", claim="Gamma holds.", tags=("ledger",))
        store.write_projections([late.projection()])
        store.refresh_context()
        written = context_matches(db, "ledger")
    paths = ["areas/a.html", "areas/b.html"]
    assert (CONTEXT_FTS_TRIGGERS, paths, {}) == (created, before, during)
    assert (CONTEXT_FTS_TRIGGERS, paths) == (after, rebuilt)
    assert [*paths, "areas/c.html"] == written


def test_a_rebuild_of_an_empty_tree_still_brings_the_context_triggers_back(
    tmp_path: Path,
) -> None:
    """No memory, so no context document to refresh: the triggers come back all the same, and
    a later write's document is indexed."""
    with Database.open(tmp_path / "index.db") as db:
        store = SqliteIndexStore(db)
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        store.finish_rebuild(embed_model=MODEL)
        store.refresh_context()
        after = triggers(db, "context_fts")
        store.write_projections([TAGGED[0].projection()])
        store.refresh_context()
        found = context_matches(db, "ledger")
    assert (CONTEXT_FTS_TRIGGERS, ["areas/a.html"]) == (after, found)
