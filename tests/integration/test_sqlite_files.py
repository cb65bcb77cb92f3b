"""index.db and state.db as files on disk: reopening, deleting the index, two connections."""

from __future__ import annotations

from pathlib import Path

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.migrations import (
    INDEX_MIGRATIONS_DIR,
    STATE_MIGRATIONS_DIR,
    load_migrations,
    shipped_migrations,
)

# Every shipped migration, in order (test_sqlite_migrations pins the names themselves).
SHIPPED = tuple(m.name for m in load_migrations(shipped_migrations(INDEX_MIGRATIONS_DIR)))
STATE_SHIPPED = tuple(m.name for m in load_migrations(shipped_migrations(STATE_MIGRATIONS_DIR)))


def _delete_index(directory: Path) -> None:
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (directory / name).unlink(missing_ok=True)


def test_second_open_applies_nothing_and_keeps_the_ledgers(tmp_path: Path) -> None:
    """Reopening migrated files applies no migration and leaves both ledgers' rows unchanged."""
    paths = {"index_path": tmp_path / "index.db", "state_path": tmp_path / "state.db"}
    with Database.open(**paths) as db:  # type: ignore[arg-type]
        ledgers = (
            db.all("SELECT * FROM schema_migrations"),
            db.all("SELECT * FROM state.schema_migrations"),
        )
    with Database.open(**paths) as db:  # type: ignore[arg-type]
        again = (
            db.all("SELECT * FROM schema_migrations"),
            db.all("SELECT * FROM state.schema_migrations"),
        )
        counts = (db.newly_applied, db.migrations_applied, db.state_migrations_applied)
    assert (ledgers, ((), len(SHIPPED), len(STATE_SHIPPED))) == (again, counts)


def test_both_files_run_in_wal_mode(tmp_path: Path) -> None:
    """index.db and the attached state.db are both in WAL journal mode."""
    with Database.open(tmp_path / "index.db", state_path=tmp_path / "state.db") as db:
        modes = (db.all("PRAGMA main.journal_mode"), db.all("PRAGMA state.journal_mode"))
    assert ([("wal",)], [("wal",)]) == modes


def test_deleting_the_index_keeps_state(tmp_path: Path) -> None:
    """After index.db is deleted, reopening rebuilds only the index schema; state rows survive."""
    state = tmp_path / "state.db"
    with Database.open(tmp_path / "index.db", state_path=state) as db:
        db.write_all(
            [
                (
                    "INSERT INTO state.access (path, access_count, outcome_score, updated_at) "
                    "VALUES (?, ?, ?, ?)",
                    ("areas/a.html", 3, -0.25, "2026-01-01T00:00:00Z"),
                ),
                ("INSERT INTO index_state VALUES (1, 'abc', 'm@2', 2, 'n', 'n')", ()),
            ]
        )
    _delete_index(tmp_path)
    with Database.open(tmp_path / "index.db", state_path=state) as db:
        reopened = (
            db.newly_applied,
            db.state_migrations_applied,
            db.all("SELECT path, access_count, outcome_score FROM state.access"),
            db.all("SELECT * FROM index_state"),
        )
    assert (
        SHIPPED,
        len(STATE_SHIPPED),
        [("areas/a.html", 3, -0.25)],
        [],
    ) == reopened


def test_state_can_be_attached_to_an_in_memory_index(tmp_path: Path) -> None:
    """An in-memory index with a file-backed state plane reads and keeps the durable rows."""
    state = tmp_path / "state.db"
    with Database.open(":memory:", state_path=state) as db:
        db.run("INSERT INTO state.access (path, updated_at) VALUES ('areas/a.html', 'n')")
    with Database.open(":memory:", state_path=state) as db:
        rows = (db.newly_applied, db.all("SELECT path FROM state.access"))
    assert (
        SHIPPED,
        [("areas/a.html",)],
    ) == rows


def test_a_second_connection_sees_committed_writes(tmp_path: Path) -> None:
    """Two Database objects on the same files share committed rows in both schemas."""
    paths = (tmp_path / "index.db", tmp_path / "state.db")
    with (
        Database.open(paths[0], state_path=paths[1]) as writer,
        Database.open(paths[0], state_path=paths[1]) as reader,
    ):
        writer.write_all(
            [
                ("INSERT INTO trace_watermarks VALUES ('f', 1, 'n', 0, 'n')", ()),
                ("INSERT INTO state.access (path, updated_at) VALUES ('p', 'n')", ()),
            ]
        )
        seen = (
            reader.all("SELECT file_path FROM trace_watermarks"),
            reader.all("SELECT path FROM state.access"),
            reader.newly_applied,
        )
    assert ([("f",)], [("p",)], ()) == seen
