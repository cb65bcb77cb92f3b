"""The index_state watermark as a value, and failures that must cross the port as its errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.index_state import (
    DIRTY_PATHS_SETTING,
    dirty_paths_write,
    read_index_state,
)
from memhtml.adapters.system.clock import FixedClock
from memhtml.ports.errors import StorageFailure
from memhtml.ports.indexer import IndexState
from tests.contract.test_indexer_rebuild import START, fixture_indexer
from tests.fakes.git import FakeGit

INSERT_ROW = "INSERT INTO index_state VALUES (1, ?, ?, ?, ?, ?)"


@pytest.fixture
def db() -> Iterator[Database]:
    """A fresh in-memory index."""
    with Database.open(":memory:") as database:
        yield database


def test_no_row_reads_as_none(db: Database) -> None:
    """Before the first rebuild there is no watermark at all."""
    assert read_index_state(db) is None


def test_row_and_dirty_paths_read_back(db: Database) -> None:
    """A stored row and dirty list come back as one value."""
    db.write_all(
        [
            (INSERT_ROW, ("abc", "m@2", 2, "r", "u")),
            dirty_paths_write(["areas/b.html", "areas/a.html", "areas/a.html"]),
        ]
    )
    expected = IndexState(
        head_sha="abc",
        embed_model="m@2",
        embed_dim=2,
        rebuilt_at="r",
        updated_at="u",
        dirty_paths=frozenset({"areas/a.html", "areas/b.html"}),
    )
    assert expected == read_index_state(db)


@pytest.mark.parametrize(
    "values",
    [
        ("abc", "m@2", 12.5, "r", "u"),
        ("abc", "m@2", "x", "r", "u"),
        ("", "m@2", 2, "r", "u"),
        (b"abc", "m@2", 2, "r", "u"),
        ("abc", "", 2, "r", "u"),
        ("abc", "m@2", 2, b"r", "u"),
        ("abc", "m@2", 2, "r", b"u"),
    ],
)
def test_malformed_row_is_a_storage_failure(db: Database, values: tuple[object, ...]) -> None:
    """A row the schema cannot produce (SQLite does not enforce types) fails as storage."""
    db.write_all([(INSERT_ROW, values)])  # type: ignore[list-item]
    with pytest.raises(StorageFailure):
        read_index_state(db)


@pytest.mark.parametrize("dirty", ["not json", '{"a": 1}', "[1, 2]"])
def test_malformed_dirty_list_is_a_storage_failure(db: Database, dirty: str) -> None:
    """A dirty-path setting that is not a JSON list of strings fails as storage."""
    db.write_all(
        [
            (INSERT_ROW, ("abc", "m@2", 2, "r", "u")),
            ("INSERT INTO index_settings VALUES (?, ?)", (DIRTY_PATHS_SETTING, dirty)),
        ]
    )
    with pytest.raises(StorageFailure):
        read_index_state(db)


def test_a_closed_database_fails_as_storage_not_as_a_driver_error() -> None:
    """No sqlite exception crosses the port: every method reports StorageFailure."""
    db = Database.open(":memory:")
    indexer = fixture_indexer(db, FakeGit(), FixedClock(START))
    db.close()
    failures = []
    for call in (
        lambda: indexer.rebuild(embed=True),
        lambda: indexer.update(embed=True),
        indexer.embed_missing,
        indexer.backfill,
        indexer.vector_coverage,
        indexer.index_state,
    ):
        with pytest.raises(StorageFailure) as failed:
            call()
        failures.append(type(failed.value))
    assert [StorageFailure] * 6 == failures
