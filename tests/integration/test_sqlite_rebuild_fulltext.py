"""A rebuild indexes full text in one pass and leaves the schema as migration 0001 made it."""

from __future__ import annotations

from pathlib import Path

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.index_store import SqliteIndexStore
from memhtml.adapters.sqlite.schema import FTS_TRIGGERS
from tests.contract.storage.harness import DIM, MODEL, NOW, Memory

_TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'files_fts%'"


def triggers(db: Database) -> dict[str, str]:
    """The full-text triggers as sqlite_master holds them."""
    return {str(name): str(sql) for name, sql in db.all(_TRIGGERS)}


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
