"""Contract of the shipped schema's other tables (docs/index-schema.md §3.4–§3.8, §4, §5): edges,
vectors, the watermark, the state plane and the trace tables."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.schema import MEMORY_TABLES
from memhtml.domain.vocabulary import ALL_RELS, EDGE_CLASSES
from memhtml.ports.errors import StorageFailure
from tests.contract.test_sqlite_schema import (
    NOW,
    add_chunk,
    add_embedding,
    add_file,
    count,
    fts_consistent,
    fts_paths,
)
from tests.support import migrated_files, migrated_in_memory


@pytest.fixture(params=["file", "memory"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A migrated database with state attached, on disk or in memory."""
    if request.param == "file":
        database = migrated_files(tmp_path / "index.db", tmp_path / "state.db")
    else:
        database = migrated_in_memory(state=True)
    with database:
        yield database


EDGE_INSERT = (
    "INSERT INTO edges (src_path, rel, dst_path, edge_class, derived, strength, provenance, "
    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


@pytest.mark.parametrize(("edge_class", "rel"), list(itertools.product(EDGE_CLASSES, ALL_RELS)))
def test_edge_class_admits_exactly_its_relations(db: Database, edge_class: str, rel: str) -> None:
    """An edge is stored iff its relation belongs to its class."""
    allowed = rel in EDGE_CLASSES[edge_class]
    params = ("a.html", rel, "b.html", edge_class, 0, 1.0, "authored", NOW)
    try:
        db.run(EDGE_INSERT, params)
        stored = True
    except StorageFailure:
        stored = False
    assert allowed == stored


@pytest.mark.parametrize(
    "params",
    [
        ("a.html", "supports", "a.html", "memory", 0, 1.0, "authored", NOW),
        ("a.html", "supports", "b.html", "concept", 0, 1.0, "authored", NOW),
        ("a.html", "supports", "b.html", "memory", 1, 1.0, "authored", NOW),
        ("a.html", "supports", "b.html", "memory", 0, 1.5, "authored", NOW),
        ("a.html", "supports", "b.html", "memory", 0, 1.0, "guess", NOW),
    ],
    ids=["self-loop", "unknown-class", "derived-not-sleep", "strength", "provenance"],
)
def test_edge_checks_refuse(db: Database, params: tuple[SqlValue, ...]) -> None:
    """Self-loops, unknown classes, derived non-sleep edges and out-of-range values are refused."""
    with pytest.raises(StorageFailure):
        db.run(EDGE_INSERT, params)


def test_sleep_may_derive_edges_that_dangle(db: Database) -> None:
    """A derived sleep edge to a path with no files row is stored (edges have no foreign key)."""
    db.run(EDGE_INSERT, ("a.html", "supports", "gone.html", "memory", 1, 0.8, "sleep", NOW))
    assert 1 == count(db, "edges")


@pytest.mark.parametrize(
    ("dim", "blob"),
    [(2, bytes(4)), (2, bytes(12)), (0, b""), (2, None)],
    ids=["short", "long", "zero-dim", "null"],
)
def test_embedding_checks_refuse(db: Database, dim: int, blob: bytes | None) -> None:
    """A vector whose byte length is not 4 × dim, or a non-positive dim, is refused."""
    add_file(db, "areas/a.html")
    add_chunk(db, "c0", "areas/a.html")
    with pytest.raises(StorageFailure):
        db.run(
            "INSERT INTO embeddings VALUES ('c0', 'm@2', ?, ?, ?)",
            (dim, blob, NOW),
        )


def test_embedding_needs_its_chunk(db: Database) -> None:
    """A vector for an unknown chunk id is refused."""
    with pytest.raises(StorageFailure):
        add_embedding(db, "nope")


@pytest.mark.parametrize(
    "params",
    [(2, "m@2", 2), (1, "m@2", 0)],
    ids=["second-row", "zero-dim"],
)
def test_index_state_is_a_checked_singleton(db: Database, params: tuple[SqlValue, ...]) -> None:
    """index_state admits only id 1 and a positive dimension."""
    sql = "INSERT INTO index_state VALUES (?, NULL, ?, ?, 'now', 'now')"
    db.run(sql, (1, "m@2", 2))
    with pytest.raises(StorageFailure):
        db.run(sql.replace("INSERT", "INSERT OR REPLACE"), params)
    assert [(1, None)] == db.all("SELECT id, head_sha FROM index_state")


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        ("INSERT INTO state.access (path, outcome_score, updated_at) VALUES ('p', ?, 'n')", (1.5,)),
        ("INSERT INTO state.access (path, outcome_score, updated_at) VALUES ('p', ?, 'n')", (-2,)),
        ("INSERT INTO state.access (path, access_count, updated_at) VALUES ('p', ?, 'n')", (-1,)),
        (
            "INSERT INTO state.access (path, reinforcement_count, updated_at) VALUES ('p', ?, 'n')",
            (-1,),
        ),
        (
            "INSERT INTO state.edge_corroboration (src_path, rel, dst_path, detections, "
            "updated_at) VALUES ('a', 'supports', 'b', ?, 'n')",
            (0,),
        ),
        (
            "INSERT INTO state.edge_corroboration (src_path, rel, dst_path, confirmed, "
            "updated_at) VALUES ('a', 'supports', 'b', ?, 'n')",
            (2,),
        ),
        (
            "INSERT INTO state.entity_corroboration (entity_type, alias_name, canonical_name, "
            "promoted, updated_at) VALUES ('person', 'sash', 'sasha', ?, 'n')",
            (2,),
        ),
        ("INSERT INTO state.access (path, updated_at) VALUES (?, 'n')", (None,)),
    ],
)
def test_state_checks_refuse(db: Database, sql: str, params: tuple[SqlValue, ...]) -> None:
    """The state plane's CHECKs and NOT NULLs refuse out-of-range values."""
    with pytest.raises(StorageFailure):
        db.run(sql, params)


def test_state_access_defaults(db: Database) -> None:
    """A new access row starts at zero counts and a neutral outcome."""
    db.run("INSERT INTO state.access (path, updated_at) VALUES ('areas/a.html', ?)", (NOW,))
    assert (0, 0, 0.0, None) == db.get(
        "SELECT access_count, reinforcement_count, outcome_score, last_accessed_at "
        "FROM state.access"
    )


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        ("INSERT INTO memory_session_links VALUES ('p', 's', ?, 'n', NULL, NULL)", ("opened",)),
        ("INSERT INTO sleep_runs VALUES ('sleep/1', 'b', 'x', NULL, ?, 'n', NULL)", ("done",)),
        ("INSERT INTO trace_watermarks VALUES ('f', 1, 'n', ?, 'n')", (-1,)),
    ],
)
def test_trace_checks_refuse(db: Database, sql: str, params: tuple[SqlValue, ...]) -> None:
    """Link kinds, sleep statuses and watermark offsets are checked."""
    with pytest.raises(StorageFailure):
        db.run(sql, params)


def test_traces_fts_follows_its_table(db: Database) -> None:
    """traces_fts finds a session by its search text, and the new text after an update."""
    db.run(
        "INSERT INTO traces (session_id, slug, file_path, file_size, file_mtime, search_text, "
        "indexed_at) VALUES ('s1', 'slug', 'f', 1, 'm', 'refactor the parser', 'n')"
    )
    db.run("UPDATE traces SET search_text = 'migrate the schema' WHERE session_id = 's1'")
    sql = "SELECT rowid FROM traces_fts WHERE traces_fts MATCH ?"
    assert ([], [(1,)]) == (db.all(sql, ("parser",)), db.all(sql, ("schema",)))


def test_emptying_memory_tables_keeps_traces_and_state(db: Database) -> None:
    """Deleting MEMORY_TABLES in order succeeds with foreign keys on and spares the rest."""
    add_file(db, "areas/a.html", fts_text="kumquat")
    add_chunk(db, "c0", "areas/a.html")
    add_embedding(db, "c0")
    db.run("INSERT INTO trace_watermarks VALUES ('f', 1, 'n', 0, 'n')")
    db.run("INSERT INTO state.access (path, updated_at) VALUES ('areas/a.html', 'n')")
    db.write_all([(f"DELETE FROM {table}", ()) for table in MEMORY_TABLES])
    assert [0] * len(MEMORY_TABLES) == [count(db, t) for t in MEMORY_TABLES]
    assert (1, 1, [], True) == (
        count(db, "trace_watermarks"),
        count(db, "state.access"),
        fts_paths(db, "kumquat"),
        fts_consistent(db),
    )
