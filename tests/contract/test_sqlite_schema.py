"""Contract of the shipped schema (docs/index-schema.md §3–§5) against the real driver: columns,
CHECKs, defaults, cascades, the dedup index and the FTS triggers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.schema import (
    FILE_COLUMNS,
    MEMORY_TABLES,
    STATE_TABLES,
    TRACE_TABLES,
)
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.ports.errors import StorageFailure
from tests.support import migrated_files, migrated_in_memory

UPSERT_FILE = (
    f"INSERT INTO files ({', '.join(FILE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in FILE_COLUMNS)}) ON CONFLICT(path) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in FILE_COLUMNS[1:])
)
NOW = "2026-01-02T03:04:05Z"


def file_values(path: str, /, **overrides: SqlValue) -> tuple[SqlValue, ...]:
    """A valid files row in FILE_COLUMNS order, with overrides by column name."""
    row: dict[str, SqlValue] = dict.fromkeys(FILE_COLUMNS)
    row.update(
        path=path,
        blob_sha="0" * 40,
        content_hash=f"sha256:{path}",
        memory_type="semantic",
        title="title",
        body_text="body",
        gist="",
        fts_text="",
        disclosure_text="",
        para=path.split("/")[0],
        confidence=1.0,
        importance=5,
        archived=0,
        word_count=1,
        created_at=NOW,
        updated_at=NOW,
        reprieves=0,
        needs_revision=0,
        author="agent",
        indexed_at=NOW,
        pinned=0,
    )
    unknown = set(overrides) - set(FILE_COLUMNS)
    assert set() == unknown
    row.update(overrides)
    return tuple(row[c] for c in FILE_COLUMNS)


def add_file(db: Database, path: str, /, **overrides: SqlValue) -> None:
    """Upsert one files row through the FILE_COLUMNS statement."""
    db.write_all([(UPSERT_FILE, file_values(path, **overrides))])


def add_chunk(db: Database, chunk_id: str, path: str, ordinal: int = 0) -> None:
    """Insert one chunk of ``path``."""
    db.run(
        "INSERT INTO chunks (chunk_id, path, content_hash, ordinal, text, char_count) "
        "VALUES (?, ?, ?, ?, 'text', 4)",
        (chunk_id, path, f"sha256:{path}", ordinal),
    )


def add_embedding(db: Database, chunk_id: str, vector: tuple[float, ...] = (1.0, 0.0)) -> None:
    """Insert one vector of ``chunk_id``."""
    db.run(
        "INSERT INTO embeddings (chunk_id, model, dim, vec, created_at) VALUES (?, 'm@2', ?, ?, ?)",
        (chunk_id, len(vector), pack_f32(vector), NOW),
    )


def count(db: Database, table: str) -> int:
    """Rows in ``table``."""
    row = db.get(f"SELECT count(*) FROM {table}")
    assert row is not None
    return int(row[0])  # type: ignore[arg-type]


def fts_paths(db: Database, query: str) -> list[str]:
    """Paths whose fts_text MATCHes ``query``, sorted."""
    rows = db.all(
        "SELECT f.path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        "WHERE files_fts MATCH ? ORDER BY f.path",
        (query,),
    )
    return [str(r[0]) for r in rows]


def fts_consistent(db: Database) -> bool:
    """FTS5's own integrity check of the index against its external content."""
    try:
        db.run("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)")
    except StorageFailure:
        return False
    return True


@pytest.fixture(params=["file", "memory"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """A migrated database with state attached, on disk or in memory."""
    if request.param == "file":
        database = migrated_files(tmp_path / "index.db", tmp_path / "state.db")
    else:
        database = migrated_in_memory(state=True)
    with database:
        yield database


def test_file_columns_match_the_table_in_order(db: Database) -> None:
    """FILE_COLUMNS lists the files table's 33 columns in declaration order (``pinned``, the last,
    from migration 0005)."""
    columns = tuple(str(r[1]) for r in db.all("PRAGMA table_info(files)"))
    assert (33, FILE_COLUMNS) == (len(FILE_COLUMNS), columns)


def test_files_column_types_nullability_and_defaults(db: Database) -> None:
    """Each files column has docs/index-schema.md §3.1's type, NOT NULL flag and default."""
    expected = {
        "path": ("TEXT", 1, None),
        "confidence": ("REAL", 1, "1.0"),
        "importance": ("INTEGER", 1, "5"),
        "archived": ("INTEGER", 1, "0"),
        "gist": ("TEXT", 1, "''"),
        "fts_text": ("TEXT", 1, "''"),
        "disclosure_text": ("TEXT", 1, "''"),
        "workspace": ("TEXT", 0, None),
        "word_count": ("INTEGER", 1, "0"),
        "reprieves": ("INTEGER", 1, "0"),
        "needs_revision": ("INTEGER", 1, "0"),
        "author": ("TEXT", 1, "'agent'"),
        "indexed_at": ("TEXT", 1, None),
        "task_status": ("TEXT", 0, None),
        "frame_key": ("TEXT", 0, None),
        "pinned": ("INTEGER", 1, "0"),
    }
    info = {str(r[1]): (r[2], r[3], r[4]) for r in db.all("PRAGMA table_info(files)")}
    assert expected == {name: info[name] for name in expected}


def test_every_named_table_exists(db: Database) -> None:
    """MEMORY_TABLES and TRACE_TABLES live in main, STATE_TABLES in state."""
    main = {str(r[0]) for r in db.all("SELECT name FROM main.sqlite_master WHERE type='table'")}
    state = {str(r[0]) for r in db.all("SELECT name FROM state.sqlite_master WHERE type='table'")}
    assert set() == (set(MEMORY_TABLES) | set(TRACE_TABLES)) - main
    assert set() == set(STATE_TABLES) - state


def test_every_index_of_the_spec_exists(db: Database) -> None:
    """All of docs/index-schema.md §3–§4's named indexes exist, in their schema."""
    main_expected = {
        "files_content_hash_active", "files_type_active", "files_workspace", "files_para",
        "files_updated", "files_event", "files_session", "files_ttl", "files_blob",
        "files_task_status", "files_frame_key_active", "files_origin", "file_tags_tag",
        "file_entities_name", "file_facets_name", "chunks_path", "chunks_hash",
        "chunks_hash_ord", "embeddings_model", "edges_src", "edges_dst", "edges_rel",
        "edges_derived", "traces_slug", "traces_cwd", "traces_started", "traces_file_mtime",
        "trace_prompts_turn", "memory_session_links_session", "memory_session_links_path",
        "trace_consolidations_run", "files_content_hash",  # the last: ours, migration 0002
        "trace_prompts_file", "trace_files_session",  # ours, migration 0003
        "file_context_prev",  # ours, migration 0004
        "entity_terms_surface", "entity_terms_key",  # ours, migration 0006
        "files_recency",  # ours, migration 0007
        "history_commits_at", "file_spans_blob", "file_spans_from", "file_spans_open",  # 0008
        "files_salience_order",  # ours, migration 0010
        "files_event_day",  # ours, migration 0012
    }  # fmt: skip
    sql = "SELECT name FROM {}.sqlite_master WHERE type='index' AND name NOT LIKE 'sqlite_%'"
    main = {str(r[0]) for r in db.all(sql.format("main"))}
    state = {str(r[0]) for r in db.all(sql.format("state"))}
    assert main_expected == main
    # access_static: ours, state migration S0002 (the salience arm's read cut).
    assert {"access_last", "access_static", "entity_corroboration_pending"} == state


def test_minimal_row_takes_the_defaults(db: Database) -> None:
    """A row naming only the NOT NULL columns without defaults gets the defaults of
    docs/index-schema.md §3.1."""
    db.run(
        "INSERT INTO files (path, blob_sha, content_hash, memory_type, title, body_text, para, "
        "created_at, updated_at, indexed_at) VALUES ('areas/a.html', 'b', 'h', 'semantic', 't', "
        "'x', 'areas', ?, ?, ?)",
        (NOW, NOW, NOW),
    )
    row = db.get(
        "SELECT gist, fts_text, disclosure_text, confidence, importance, archived, word_count, "
        "reprieves, needs_revision, author, task_status FROM files"
    )
    assert ("", "", "", 1.0, 5, 0, 0, 0, 0, "agent", None) == row


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("path", None),
        ("memory_type", "person"),
        ("memory_type", None),
        ("para", "inbox"),
        ("confidence", 1.01),
        ("confidence", -0.01),
        ("importance", 0),
        ("importance", 11),
        ("archived", 2),
        ("reprieves", -1),
        ("needs_revision", 2),
        ("task_status", "waiting"),
        ("title", None),
        ("indexed_at", None),
    ],
)
def test_files_checks_refuse_bad_values(db: Database, column: str, value: SqlValue) -> None:
    """Each CHECK and NOT NULL on files refuses a value outside its domain."""
    with pytest.raises(StorageFailure):
        add_file(db, "areas/a.html", **{column: value})
    assert 0 == count(db, "files")


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("confidence", 0.0),
        ("confidence", 1.0),
        ("importance", 1),
        ("importance", 10),
        ("task_status", "blocked"),
        ("memory_type", "arc"),
    ],
)
def test_files_checks_admit_boundary_values(db: Database, column: str, value: SqlValue) -> None:
    """The CHECK ranges are inclusive and the vocabularies complete at their edges."""
    add_file(db, "areas/a.html", **{column: value})
    assert 1 == count(db, "files")


def test_path_update_cascades_to_every_child(db: Database) -> None:
    """Renaming a file's path carries its tags, entities, facets, citations and chunks along."""
    old, new = "projects/x/a.html", "archive/2026/projects/x/a.html"
    add_file(db, old)
    db.write_all(
        [
            ("INSERT INTO file_tags VALUES (?, 'tag')", (old,)),
            ("INSERT INTO file_entities VALUES (?, 'person', 'sasha')", (old,)),
            ("INSERT INTO file_facets VALUES (?, 'tier', 'gold', NULL)", (old,)),
            ("INSERT INTO file_citations VALUES (?, 'RFC 1', 'https://example.org')", (old,)),
        ]
    )
    add_chunk(db, "c0", old)
    add_embedding(db, "c0")
    db.run("UPDATE files SET path = ?, para = 'archive', archived = 1 WHERE path = ?", (new, old))
    children = ("file_tags", "file_entities", "file_facets", "file_citations", "chunks")
    moved = [db.all(f"SELECT DISTINCT path FROM {t}") for t in children]
    assert [[(new,)]] * len(children) == moved
    assert 1 == count(db, "embeddings")


def test_file_delete_cascades_to_children_and_vectors(db: Database) -> None:
    """Deleting a files row removes its child rows, its chunks and their vectors."""
    add_file(db, "areas/a.html")
    db.run("INSERT INTO file_tags VALUES ('areas/a.html', 't')")
    add_chunk(db, "c0", "areas/a.html")
    add_embedding(db, "c0")
    db.run("DELETE FROM files WHERE path = 'areas/a.html'")
    assert [0, 0, 0] == [count(db, t) for t in ("file_tags", "chunks", "embeddings")]


def test_children_need_an_existing_file(db: Database) -> None:
    """A child row naming a missing path is refused (foreign keys are enforced)."""
    with pytest.raises(StorageFailure):
        db.run("INSERT INTO file_tags VALUES ('areas/missing.html', 't')")


def test_upsert_keeps_rowid_and_children(db: Database) -> None:
    """The FILE_COLUMNS upsert updates in place: same rowid, chunks and FTS kept in step."""
    add_file(db, "areas/a.html", fts_text="alpha")
    add_chunk(db, "c0", "areas/a.html")
    before = db.get("SELECT rowid FROM files")
    add_file(db, "areas/a.html", fts_text="beta", title="new")
    assert (before, 1) == (db.get("SELECT rowid FROM files"), count(db, "chunks"))
    assert ([], ["areas/a.html"]) == (fts_paths(db, "alpha"), fts_paths(db, "beta"))


def test_fts_follows_insert_update_and_delete(db: Database) -> None:
    """MATCH finds inserted text, finds new not old text after an update, nothing after delete."""
    add_file(db, "areas/a.html", fts_text="kumquat orchard")
    found_inserted = fts_paths(db, "kumquat")
    db.run("UPDATE files SET fts_text = 'persimmon grove' WHERE path = 'areas/a.html'")
    found_after_update = (fts_paths(db, "kumquat"), fts_paths(db, "persimmon"))
    db.run("DELETE FROM files WHERE path = 'areas/a.html'")
    assert (["areas/a.html"], ([], ["areas/a.html"]), []) == (
        found_inserted,
        found_after_update,
        fts_paths(db, "persimmon"),
    )
    assert fts_consistent(db)


def test_update_of_other_columns_leaves_fts_consistent(db: Database) -> None:
    """Changing title or path (not fts_text) keeps the FTS index consistent and searchable."""
    add_file(db, "areas/a.html", fts_text="kumquat")
    db.run("UPDATE files SET title = 'other', path = 'areas/b.html' WHERE path = 'areas/a.html'")
    assert (["areas/b.html"], True) == (fts_paths(db, "kumquat"), fts_consistent(db))


def test_dedup_index_refuses_an_active_non_task_duplicate(db: Database) -> None:
    """Two active non-task rows cannot share a content hash."""
    add_file(db, "areas/a.html", content_hash="sha256:same")
    with pytest.raises(StorageFailure):
        add_file(db, "areas/b.html", content_hash="sha256:same")
    assert 1 == count(db, "files")


@pytest.mark.parametrize(
    "second",
    [
        {"memory_type": "task", "task_status": "todo"},
        {"para": "archive", "archived": 1},
    ],
    ids=["task", "archived"],
)
def test_dedup_index_admits_tasks_and_archived(db: Database, second: dict[str, SqlValue]) -> None:
    """A task or an archived row may share an active memory's content hash."""
    add_file(db, "areas/a.html", content_hash="sha256:same")
    path = "archive/2026/areas/b.html" if second.get("archived") else "areas/b.html"
    add_file(db, path, content_hash="sha256:same", **second)
    assert 2 == count(db, "files")


def test_archiving_the_original_frees_its_hash(db: Database) -> None:
    """Once the first copy is archived, a new active copy of the same content is allowed."""
    add_file(db, "areas/a.html", content_hash="sha256:same")
    db.run("UPDATE files SET archived = 1, para = 'archive' WHERE path = 'areas/a.html'")
    add_file(db, "areas/b.html", content_hash="sha256:same")
    assert 2 == count(db, "files")
