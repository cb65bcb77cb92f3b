"""A rebuild sets the memory tables' non-unique indexes aside while its rows go in and builds
them once at the end: the schema a rebuild leaves is the migrations', also after a rebuild that
died half-way (memhtml/adapters/sqlite/index_shelf.py)."""

from __future__ import annotations

from pathlib import Path

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.index_shelf import SHELF_TABLE
from memhtml.adapters.sqlite.index_store import SqliteIndexStore
from memhtml.adapters.sqlite.schema import MEMORY_TABLES
from tests.contract.storage.harness import DIM, MODEL, NOW, Memory

_SCHEMA = "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
_INDEXES = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
MEMORIES = (
    Memory(path="areas/a.html", claim="Alpha holds.", tags=("ledger",)),
    Memory(path="areas/b.html", claim="Beta holds.", tags=("ledger", "lock")),
    Memory(path="projects/p/c.html", claim="Gamma holds.", tags=("lock",)),
)


def schema(db: Database) -> list[tuple[object, ...]]:
    """Every table, index and trigger as SQLite holds them."""
    return [tuple(row) for row in db.all(_SCHEMA)]


def indexes(db: Database, table: str) -> dict[str, str | None]:
    """The indexes on ``table``: name and definition (``None`` behind a constraint)."""
    return {
        str(name): None if sql is None else str(sql) for name, sql in db.all(_INDEXES, (table,))
    }


def migrated(tmp_path: Path) -> list[tuple[object, ...]]:
    """The schema of an index that only the migrations have touched."""
    with Database.open(tmp_path / "migrated.db") as db:
        return schema(db)


def rebuild(store: SqliteIndexStore, memories: tuple[Memory, ...] = MEMORIES) -> None:
    """A whole rebuild through the store port, as ``run_rebuild`` drives it."""
    store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
    store.write_projections([memory.projection() for memory in memories])
    store.finish_rebuild(embed_model=MODEL)
    store.refresh_context()


def test_only_non_unique_indexes_are_set_aside_and_all_come_back(tmp_path: Path) -> None:
    """During the rebuild the memory tables keep their unique indexes only, the shelf holds
    every definition it dropped, and the end leaves the migrations' schema without a shelf."""
    with Database.open(tmp_path / "index.db") as db:
        store = SqliteIndexStore(db)
        before = {table: indexes(db, table) for table in MEMORY_TABLES}
        store.write_projections([memory.projection() for memory in MEMORIES])
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        during = {table: indexes(db, table) for table in MEMORY_TABLES}
        shelved = {str(name): str(sql) for name, sql in db.all(f"SELECT * FROM {SHELF_TABLE}")}
        store.write_projections([memory.projection() for memory in MEMORIES])
        store.finish_rebuild(embed_model=MODEL)
        store.refresh_context()
        after = schema(db)
        plan = db.all(
            "EXPLAIN QUERY PLAN SELECT path FROM files WHERE para = 'areas' AND archived = 0"
        )
    kept = {
        table: {name: sql for name, sql in found.items() if sql is None or "UNIQUE" in sql}
        for table, found in before.items()
    }
    set_aside = {
        name: sql
        for found in before.values()
        for name, sql in found.items()
        if sql is not None and "UNIQUE" not in sql
    }
    assert len(set_aside) >= 20  # the files table alone carries 16
    assert "files_content_hash_active" in kept["files"]
    assert (kept, set_aside) == (during, shelved)
    assert migrated(tmp_path) == after
    assert any("USING INDEX files_para" in str(row[-1]) for row in plan), plan


def test_a_rebuild_that_died_with_its_indexes_aside_is_made_whole_by_the_next(
    tmp_path: Path,
) -> None:
    """Killed after its truncate (the shelf is in the file, the indexes are gone), then opened
    again: the next rebuild ends with every index, even one a migration re-made meanwhile."""
    with Database.open(tmp_path / "index.db") as db:
        store = SqliteIndexStore(db)
        store.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
        store.write_projections([MEMORIES[0].projection()])
    with Database.open(tmp_path / "index.db") as db:
        gone = "files_para" not in indexes(db, "files")
        db.run("CREATE INDEX files_para ON files(para)")
        store = SqliteIndexStore(db)
        state = store.index_state()
        rebuild(store)
        after = schema(db)
        found = db.all("SELECT count(*) FROM files")
    assert state is not None
    assert (True, None) == (gone, state.head_sha)
    assert migrated(tmp_path) == after
    assert [(3,)] == [tuple(row) for row in found]


def test_two_rebuilds_in_a_row_leave_the_migrations_schema(tmp_path: Path) -> None:
    """The second truncate finds every index standing again and sets it aside as the first did."""
    with Database.open(tmp_path / "index.db") as db:
        store = SqliteIndexStore(db)
        rebuild(store)
        rebuild(store, MEMORIES[1:])
        after = schema(db)
        paths = [str(row[0]) for row in db.all("SELECT path FROM files ORDER BY path")]
    assert migrated(tmp_path) == after
    assert [memory.path for memory in MEMORIES[1:]] == paths
