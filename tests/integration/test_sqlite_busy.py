"""SQLITE_BUSY against a real second connection holding the write lock, with no sleeping."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlean

from memhtml.adapters.sqlite import retry
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.retry import is_busy, with_busy_retry
from memhtml.ports.errors import StorageFailure


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """A migrated index.db with a scratch table, closed again."""
    with Database.open(tmp_path / "index.db") as db:
        db.script("CREATE TABLE scratch (id INTEGER PRIMARY KEY)")
    return tmp_path / "index.db"


@pytest.fixture
def blocker(store: Path) -> Iterator[sqlean.Connection]:
    """A second connection holding the write lock until the test releases it."""
    connection = sqlean.connect(str(store), timeout=0, isolation_level=None)
    connection.execute("BEGIN IMMEDIATE")
    yield connection
    if connection.in_transaction:
        connection.execute("ROLLBACK")
    connection.close()


@pytest.fixture
def testing_switch() -> Iterator[None]:
    """The retry testing switch on (3 attempts) for one test, then restored."""
    before = (retry._Testing.enabled, retry._Testing.attempts)
    retry.set_testing(True, attempts=3)
    yield
    retry.set_testing(before[0], attempts=before[1])


@pytest.fixture
def production_switch() -> Iterator[None]:
    """The retry testing switch off for one test, then restored."""
    before = (retry._Testing.enabled, retry._Testing.attempts)
    retry.set_testing(False)
    yield
    retry.set_testing(before[0], attempts=before[1])


@pytest.mark.usefixtures("testing_switch")
def test_held_lock_fails_as_storage_failure_with_nothing_written(
    store: Path, blocker: sqlean.Connection
) -> None:
    """While another connection holds the lock, write_all gives up as StorageFailure (busy
    underneath); once the lock is released the same batch commits."""
    with Database.open(store, busy_timeout_ms=0) as db:
        with pytest.raises(StorageFailure) as raised:
            db.write_all(
                [("INSERT INTO scratch VALUES (1)", ()), ("INSERT INTO scratch VALUES (2)", ())]
            )
        blocker.execute("ROLLBACK")
        db.write_all(
            [("INSERT INTO scratch VALUES (1)", ()), ("INSERT INTO scratch VALUES (2)", ())]
        )
        rows = db.all("SELECT id FROM scratch ORDER BY id")
    cause = raised.value.__cause__
    assert (True, [(1,), (2,)]) == (cause is not None and is_busy(cause), rows)


@pytest.mark.usefixtures("testing_switch")
def test_script_under_a_held_lock_leaves_nothing(store: Path, blocker: sqlean.Connection) -> None:
    """A script that cannot take the lock fails whole and leaves no transaction open."""
    with Database.open(store, busy_timeout_ms=0) as db:
        with pytest.raises(StorageFailure):
            db.script("INSERT INTO scratch VALUES (7)")
        blocker.execute("ROLLBACK")
        db.script("INSERT INTO scratch VALUES (8)")
        assert [(8,)] == db.all("SELECT id FROM scratch")


@pytest.mark.usefixtures("testing_switch")
def test_testing_switch_retries_a_real_busy_transaction_without_sleeping(
    store: Path, blocker: sqlean.Connection
) -> None:
    """With the switch on, a real busy transaction is tried 3 times and the sleep never runs."""
    writer = sqlean.connect(str(store), timeout=0, isolation_level=None)
    events: list[str] = []

    def transaction() -> None:
        events.append("try")
        writer.execute("BEGIN IMMEDIATE")

    try:
        with pytest.raises(sqlean.OperationalError) as raised:
            with_busy_retry(transaction, sleep=lambda s: events.append("slept"))
    finally:
        writer.close()
    assert (["try"] * 3, True) == (events, is_busy(raised.value))


@pytest.mark.usefixtures("production_switch")
def test_whole_transaction_reruns_once_the_lock_clears(
    store: Path, blocker: sqlean.Connection
) -> None:
    """The first try meets the real lock; the (fake) backoff releases it; the re-run commits
    every statement of the transaction."""
    writer = sqlean.connect(str(store), timeout=0, isolation_level=None)
    waits: list[float] = []

    def transaction() -> int:
        writer.execute("BEGIN IMMEDIATE")
        try:
            writer.execute("INSERT INTO scratch VALUES (1)")
            writer.execute("INSERT INTO scratch VALUES (2)")
            writer.execute("COMMIT")
        except BaseException:
            if writer.in_transaction:
                writer.execute("ROLLBACK")
            raise
        return int(writer.execute("SELECT count(*) FROM scratch").fetchone()[0])

    def backoff(seconds: float) -> None:
        waits.append(seconds)
        blocker.execute("ROLLBACK")  # the other writer finishes while we wait

    try:
        written = with_busy_retry(transaction, sleep=backoff, clock=lambda: 0.0, jitter=lambda: 1.2)
    finally:
        writer.close()
    assert (2, 1) == (written, len(waits))
    assert 0.015 * 1.2 == pytest.approx(waits[0])


@pytest.mark.usefixtures("testing_switch")
def test_opening_a_current_store_needs_no_write_lock(tmp_path: Path) -> None:
    """A reader can open migrated files and read while another connection holds the lock."""
    index, state = tmp_path / "index.db", tmp_path / "state.db"
    Database.open(index, state_path=state).close()
    holder = sqlean.connect(str(index), timeout=0, isolation_level=None)
    holder.execute(f"ATTACH DATABASE '{state}' AS state")
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO state.access (path, updated_at) VALUES ('p', 'n')")
    try:
        with Database.open(index, state_path=state, busy_timeout_ms=0) as reader:
            seen = (
                reader.newly_applied,
                reader.has_state,
                reader.all("SELECT * FROM state.access"),
            )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert ((), True, []) == seen
