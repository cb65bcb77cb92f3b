"""Contract of the Database adapter over the real sqlean driver and sqlite-vec, file-backed and
in memory."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlean
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.domain.errors import InvalidInput
from memhtml.ports.errors import StorageFailure

SCRATCH = "CREATE TABLE scratch (id INTEGER PRIMARY KEY, note TEXT NOT NULL)"
INSERT = "INSERT INTO scratch (id, note) VALUES (?, ?)"

Opener = Callable[..., Database]


@pytest.fixture(params=["file", "memory"])
def open_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """Opens a database on disk or in memory; every database it opened is closed afterwards."""
    opened: list[Database] = []

    def opener(*, with_state: bool = True, **options: object) -> Database:
        if request.param == "file":
            index, state = str(tmp_path / "index.db"), str(tmp_path / "state.db")
        else:
            index, state = ":memory:", ":memory:"
        db = Database.open(index, state_path=state if with_state else None, **options)  # type: ignore[arg-type]
        opened.append(db)
        return db

    yield opener
    for db in opened:
        db.close()


@pytest.fixture
def db(open_db: Opener) -> Database:
    """A migrated database with state attached and a scratch table."""
    database = open_db()
    database.script(SCRATCH)
    return database


def test_open_records_each_shipped_migration_in_its_ledger(open_db: Opener) -> None:
    """A fresh open applies every shipped file in order, one ledger row each."""
    db = open_db()
    index = (
        "0001_init.sql",
        "0002_chunk_owner.sql",
        "0003_trace_files.sql",
        "0004_lexical_context.sql",
        "0005_frame_keys.sql",
        "0006_arms.sql",
        "0007_warm_search.sql",
        "0008_known_at.sql",
        "0009_session_documents.sql",
        "0010_salience_order.sql",
        "0011_live_chunk_owner.sql",
        "0012_event_day.sql",
        "0013_context_rowid.sql",
    )
    assert (13, 2, True) == (db.migrations_applied, db.state_migrations_applied, db.has_state)
    assert (*index, "S0001_init.sql", "S0002_access_static.sql") == db.newly_applied
    ledger = db.all("SELECT name FROM main.schema_migrations ORDER BY name")
    state_ledger = db.all("SELECT name FROM state.schema_migrations")
    assert ([(name,) for name in index], [("S0001_init.sql",), ("S0002_access_static.sql",)]) == (
        ledger,
        state_ledger,
    )


def test_ledger_timestamps_are_utc_iso(open_db: Opener) -> None:
    """applied_at is written as YYYY-MM-DDTHH:MM:SSZ (docs/decisions.md §2)."""
    db = open_db()
    row = db.get("SELECT applied_at FROM schema_migrations")
    assert row is not None
    assert (True, 20) == (str(row[0]).endswith("Z"), len(str(row[0])))


def test_open_without_state_attaches_nothing(open_db: Opener) -> None:
    """Without a state path, has_state is False, the state ledger count is 0 and state.* fails."""
    db = open_db(with_state=False)
    assert (
        False,
        0,
        (
            "0001_init.sql",
            "0002_chunk_owner.sql",
            "0003_trace_files.sql",
            "0004_lexical_context.sql",
            "0005_frame_keys.sql",
            "0006_arms.sql",
            "0007_warm_search.sql",
            "0008_known_at.sql",
            "0009_session_documents.sql",
            "0010_salience_order.sql",
            "0011_live_chunk_owner.sql",
            "0012_event_day.sql",
            "0013_context_rowid.sql",
        ),
    ) == (
        db.has_state,
        db.state_migrations_applied,
        db.newly_applied,
    )
    with pytest.raises(StorageFailure):
        db.all("SELECT * FROM state.access")


def test_sqlite_vec_is_loaded(db: Database) -> None:
    """sqlite-vec's functions are callable on every connection."""
    row = db.get("SELECT vec_version()")
    assert row is not None
    assert str(row[0]).startswith("v")


def test_foreign_keys_and_busy_timeout_are_on(db: Database) -> None:
    """foreign_keys is ON, synchronous NORMAL (1) on both schemas, busy_timeout 5000 ms."""
    assert [(1,)] == db.all("PRAGMA foreign_keys")
    assert [(1,)] == db.all("PRAGMA main.synchronous")
    assert [(1,)] == db.all("PRAGMA state.synchronous")
    assert [(5000,)] == db.all("PRAGMA busy_timeout")


def test_run_get_all_round_trip(db: Database) -> None:
    """run writes one row; get returns the first row as a tuple; all returns rows in order."""
    db.run(INSERT, (2, "two"))
    db.run(INSERT, (1, "one"))
    assert (1, "one") == db.get("SELECT id, note FROM scratch ORDER BY id")
    assert [(1, "one"), (2, "two")] == db.all("SELECT id, note FROM scratch ORDER BY id")


def test_get_returns_none_when_no_row(db: Database) -> None:
    """get answers None, not an error, for an empty result."""
    assert None is db.get("SELECT id FROM scratch WHERE id = ?", (42,))


def test_write_all_commits_every_write(db: Database) -> None:
    """Every write of a batch lands."""
    db.write_all([(INSERT, (i, f"n{i}")) for i in range(5)])
    assert [(5,)] == db.all("SELECT count(*) FROM scratch")


def test_write_all_failing_third_write_leaves_nothing(db: Database) -> None:
    """A batch whose third write fails commits none of its writes."""
    writes: list[Write] = [(INSERT, (1, "a")), (INSERT, (2, "b")), (INSERT, (1, "dup"))]
    with pytest.raises(StorageFailure) as raised:
        db.write_all(writes, operation="scratch batch")
    assert "scratch batch" == raised.value.operation
    assert [(0,)] == db.all("SELECT count(*) FROM scratch")


def test_write_all_spanning_both_schemas_rolls_back_both(db: Database) -> None:
    """A failed batch touching main and state leaves neither changed."""
    writes: list[Write] = [
        (INSERT, (1, "a")),
        ("INSERT INTO state.access (path, updated_at) VALUES (?, ?)", ("p.html", "t")),
        ("INSERT INTO state.access (path, access_count, updated_at) VALUES (?, -1, ?)", ("q", "t")),
    ]
    with pytest.raises(StorageFailure):
        db.write_all(writes)
    assert ([(0,)], [(0,)]) == (
        db.all("SELECT count(*) FROM scratch"),
        db.all("SELECT count(*) FROM state.access"),
    )


def test_write_all_of_nothing_changes_nothing(db: Database) -> None:
    """An empty batch is a no-op, not an empty transaction error."""
    db.write_all([])
    assert [(0,)] == db.all("SELECT count(*) FROM scratch")


def test_connection_is_usable_after_a_failed_batch(db: Database) -> None:
    """A failed batch leaves no transaction open, so the next batch commits."""
    with pytest.raises(StorageFailure):
        db.write_all([(INSERT, (1, "a")), ("INSERT INTO nowhere VALUES (1)", ())])
    db.write_all([(INSERT, (1, "a"))])
    assert [(1,)] == db.all("SELECT count(*) FROM scratch")


def test_script_runs_every_statement(db: Database) -> None:
    """A script without a final semicolon and ending in a comment still runs whole."""
    db.script("INSERT INTO scratch VALUES (1, 'a');\nINSERT INTO scratch VALUES (2, 'b') -- end")
    assert [(2,)] == db.all("SELECT count(*) FROM scratch")


def test_script_failure_leaves_nothing(db: Database) -> None:
    """A script failing on its third statement leaves no effect of the first two."""
    script = (
        "CREATE TABLE later (x);\nINSERT INTO scratch VALUES (1, 'a');\n"
        "INSERT INTO scratch VALUES (1, 'again');"
    )
    with pytest.raises(StorageFailure) as raised:
        db.script(script, operation="scratch script")
    assert "scratch script" == raised.value.operation
    assert [(0,)] == db.all("SELECT count(*) FROM scratch")
    assert [] == db.all("SELECT name FROM sqlite_master WHERE name = 'later'")
    db.script("INSERT INTO scratch VALUES (1, 'a')")
    assert [(1,)] == db.all("SELECT count(*) FROM scratch")


FAILING_CALLS: list[tuple[str, Callable[[Database], object]]] = [
    ("syntax", lambda db: db.run("SELEC 1", operation="op")),
    ("missing table", lambda db: db.all("SELECT * FROM nowhere", operation="op")),
    ("constraint", lambda db: db.run(INSERT, (None, None), operation="op")),
    ("two statements", lambda db: db.get("SELECT 1; SELECT 2", operation="op")),
    ("int overflow", lambda db: db.run(INSERT, (2**70, "x"), operation="op")),
    ("nul in sql", lambda db: db.run("SELECT 'a\x00b'", operation="op")),
    ("unbindable", lambda db: db.run(INSERT, (1, object()), operation="op")),  # type: ignore[arg-type]
    ("wrong arity", lambda db: db.run(INSERT, (1,), operation="op")),
    ("script", lambda db: db.script("CREATE TABLE scratch (x)", operation="op")),
    ("batch", lambda db: db.write_all([("SELEC", ())], operation="op")),
]


@pytest.mark.parametrize(("case", "call"), FAILING_CALLS, ids=[c for c, _ in FAILING_CALLS])
def test_driver_errors_surface_as_storage_failure(
    db: Database, case: str, call: Callable[[Database], object]
) -> None:
    """Every driver failure becomes StorageFailure(operation), chained from the driver error."""
    with pytest.raises(StorageFailure) as raised:
        call(db)
    assert ("op", "storage operation failed: op") == (raised.value.operation, str(raised.value))
    driver = (sqlean.Error, sqlean.Warning, sqlite3.Error, OverflowError, ValueError)
    assert isinstance(raised.value.__cause__, driver), case


def test_default_operation_names_the_method(db: Database) -> None:
    """Without an operation name, the failure names the method that failed."""
    names = []
    for call in (
        lambda: db.run("SELEC"),
        lambda: db.get("SELEC"),
        lambda: db.all("SELEC"),
        lambda: db.write_all([("SELEC", ())]),
        lambda: db.script("SELEC"),
    ):
        with pytest.raises(StorageFailure) as raised:
            call()
        names.append(raised.value.operation)
    assert ["run", "get", "all", "write_all", "script"] == names


secret_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x00'"),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(secret=secret_text)
@example(secret="hunter2")
@example(secret="l")
def test_failure_message_never_carries_sql_text_or_params(secret: str) -> None:
    """The message is the fixed text plus the operation, whatever the SQL and params held."""
    with Database.open(":memory:") as db:
        messages: list[tuple[str, str]] = []
        calls: list[Callable[[], object]] = [
            lambda: db.run("INSERT INTO nowhere VALUES (?)", (secret,)),
            lambda: db.run(f"SELECT '{secret}' FROM nowhere"),
            lambda: db.get(f"SELEC '{secret}'"),
            lambda: db.write_all([("INSERT INTO index_settings VALUES (NULL, ?)", (secret,))]),
        ]
        for call in calls:
            with pytest.raises(StorageFailure) as raised:
                call()
            messages.append((raised.value.operation, str(raised.value)))
    expected = [
        (op, f"storage operation failed: {op}") for op in ("run", "run", "get", "write_all")
    ]
    assert expected == messages


def test_closed_database_raises_storage_failure(open_db: Opener) -> None:
    """After close, a call fails as StorageFailure; closing again is harmless."""
    db = open_db()
    db.close()
    db.close()
    with pytest.raises(StorageFailure) as raised:
        db.all("SELECT 1")
    assert "all" == raised.value.operation


def test_context_manager_closes(tmp_path: Path) -> None:
    """Leaving the with block closes the connection."""
    with Database.open(tmp_path / "index.db") as db:
        assert [(1,)] == db.all("SELECT 1")
    with pytest.raises(StorageFailure):
        db.all("SELECT 1")


def test_unknown_tokenizer_is_refused_before_opening(tmp_path: Path) -> None:
    """An unknown tokenizer name is InvalidInput and creates no file."""
    with pytest.raises(InvalidInput):
        Database.open(tmp_path / "index.db", fts_tokenizer="trigram")
    assert not (tmp_path / "index.db").exists()


def test_unopenable_path_is_storage_failure(tmp_path: Path) -> None:
    """A path inside a missing directory fails as StorageFailure naming the open."""
    with pytest.raises(StorageFailure) as raised:
        Database.open(tmp_path / "missing" / "index.db")
    assert "open index database" == raised.value.operation


def test_a_file_that_is_not_a_database_is_storage_failure(tmp_path: Path) -> None:
    """Opening a file that is not SQLite fails as StorageFailure, not as a driver error."""
    (tmp_path / "index.db").write_bytes(b"not a database, just some bytes" * 64)
    with pytest.raises(StorageFailure) as raised:
        Database.open(tmp_path / "index.db")
    assert "configure connection" == raised.value.operation


def test_compat_distance_function_is_registered(db: Database) -> None:
    """vector_distance_cos answers NULL for a non-blob, 1.0 for a zero vector, 0.0 for itself."""
    zero, one = bytes(8), bytes.fromhex("0000803f00000000")
    actual = [
        db.get("SELECT vector_distance_cos('a', ?)", (one,)),
        db.get("SELECT vector_distance_cos(?, ?)", (zero, one)),
        db.get("SELECT vector_distance_cos(?, ?)", (one, one)),
    ]
    assert [(None,), (1.0,), (0.0,)] == actual


@pytest.mark.parametrize("tokenizer", ["porter", "unicode61"])
@pytest.mark.parametrize("with_state", [False, True])
def test_an_in_memory_copy_holds_what_a_fresh_open_holds(tokenizer: str, with_state: bool) -> None:
    """``copy_in_memory`` (the tests' migrated template) gives the schema, settings, ledgers
    and pragmas of a fresh in-memory open, and writes to the copy stay in the copy."""
    schema = "SELECT type, name, tbl_name, sql FROM {}.sqlite_master ORDER BY type, name"
    reads = [
        schema.format("main"),
        "SELECT * FROM index_settings ORDER BY name",
        "SELECT name FROM schema_migrations ORDER BY name",
        "PRAGMA foreign_keys",
        "PRAGMA journal_mode",
    ]
    if with_state:
        reads.append(schema.format("state"))
    state = ":memory:" if with_state else None
    with (
        Database.open(":memory:", fts_tokenizer=tokenizer) as template,
        Database.open(":memory:", state_path=state, fts_tokenizer=tokenizer) as fresh,
        template.copy_in_memory(with_state=with_state) as copy,
    ):
        facts = [
            (db.migrations_applied, db.state_migrations_applied, db.has_state, db.fts_tokenizer())
            for db in (fresh, copy)
        ]
        assert ([fresh.all(sql) for sql in reads], facts[0]) == (
            [copy.all(sql) for sql in reads],
            facts[1],
        )
        copy.run(SCRATCH)
        assert (None, ("scratch",)) == (
            template.get("SELECT name FROM sqlite_master WHERE name = 'scratch'"),
            copy.get("SELECT name FROM sqlite_master WHERE name = 'scratch'"),
        )
