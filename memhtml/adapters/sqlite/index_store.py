"""``SqliteIndexStore``: the index store port over ``index.db`` (docs/index-schema.md §3, §3.7).

Statements are packed into transactions of at most ``WRITE_BATCH_SIZE`` (one file's statements
never split), so a failure leaves each file whole.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, Query, Write, WriteMany
from memhtml.adapters.sqlite.context_sql import (
    CONTEXT_INDEX_OFF_SQL,
    HAS_DIRTY_SQL,
    context_index_back_writes,
    context_index_off_writes,
    refresh_context_writes,
)
from memhtml.adapters.sqlite.index_shelf import SHELVABLE_SQL, shelve_writes, unshelve_writes
from memhtml.adapters.sqlite.index_state import (
    begin_rebuild_writes,
    read_duplicates,
    read_index_state,
    record_head_writes,
    remember_duplicates_write,
)
from memhtml.adapters.sqlite.projection_sql import (
    DELETE_AUTHORED_EDGES_SQL,
    REOWN_CHUNKS_SQL,
    fresh_projection_writes,
    projection_writes,
    statement_count,
    write_batches,
)
from memhtml.adapters.sqlite.schema import (
    FRAME_KEY_RULE_SETTING,
    FTS_INDEX_NAME,
    FTS_TRIGGERS,
    MEMORY_TABLES,
    SETTINGS_TABLE,
    WRITE_BATCH_SIZE,
    retokenize_fts_script,
)
from memhtml.adapters.sqlite.session_sql import HAS_SESSION_DIRTY_SQL, REFRESH_SESSION_WRITES
from memhtml.domain.projection import FileProjection
from memhtml.ports.index_store import RowCounts
from memhtml.ports.indexer import IndexState

LOOKUP_SIZE: Final = 500
"""Values bound per ``IN (…)`` lookup; far under SQLite's bound-variable ceiling."""
# Lives in the connection's temp schema: a process that dies mid-rebuild takes it along (the
# recovering rebuild re-embeds, losing nothing), and a rebuild that dies on a connection that
# lives on leaves it for the retry, which adds to it instead of emptying it.
STASH_TABLE: Final = "temp.rebuild_vector_stash"
_STASH_COLUMNS: Final = "chunk_id, model, dim, vec, created_at"
_RETURNED: Final = "EXISTS (SELECT 1 FROM main.chunks c WHERE c.chunk_id = s.chunk_id)"
_SOURCE_EXISTS: Final = "EXISTS (SELECT 1 FROM files WHERE path = ?)"
_PRESENT_SQL: Final = "SELECT path FROM files WHERE path IN (%s)"
# A value no sha256 hash equals, unique per path: parking a row's hash frees it for another
# file in the same transaction (two files that swapped contents), before the row's own
# projection writes its real hash back. Without it each would wait for the other forever.
PARKED_PREFIX: Final = "parked:"


class SqliteIndexStore:
    """The :class:`memhtml.ports.index_store.IndexStore` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Persist into ``db``."""
        self._db = db

    @property
    def has_state(self) -> bool:
        """See ``IndexStore.has_state``."""
        return self._db.has_state

    def index_state(self) -> IndexState | None:
        """See ``IndexStore.index_state``."""
        return read_index_state(self._db)

    def begin_rebuild(self, *, embed_model: str, embed_dim: int, now: str) -> None:
        """See ``IndexStore.begin_rebuild``."""
        shelvable = [str(row[0]) for row in self._db.all(SHELVABLE_SQL, operation="read indexes")]
        self._db.write_all(
            (
                *begin_rebuild_writes(embed_model=embed_model, embed_dim=embed_dim, now=now),
                (
                    f"CREATE TABLE IF NOT EXISTS {STASH_TABLE} (chunk_id TEXT PRIMARY KEY, "
                    "model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL, "
                    "created_at TEXT NOT NULL)",
                    (),
                ),
                (
                    f"INSERT INTO {STASH_TABLE} ({_STASH_COLUMNS}) SELECT {_STASH_COLUMNS} "
                    "FROM main.embeddings WHERE model = ? ON CONFLICT(chunk_id) DO NOTHING",
                    (embed_model,),
                ),
                # The full-text index is built once, by finish_rebuild: no trigger per row;
                # the context index once, by the refresh after it.
                *((f"DROP TRIGGER IF EXISTS main.{name}", ()) for name in FTS_TRIGGERS),
                *((sql, ()) for sql in context_index_off_writes()),
                *((f"DELETE FROM main.{table}", ()) for table in MEMORY_TABLES),
                (f"INSERT INTO main.{FTS_INDEX_NAME}({FTS_INDEX_NAME}) VALUES ('delete-all')", ()),
                # After the deletes: migration 0002's delete trigger needs its index.
                *shelve_writes(shelvable),
            ),
            operation="truncate for rebuild",
        )

    def finish_rebuild(self, *, embed_model: str) -> int:
        """See ``IndexStore.finish_rebuild``."""
        db = self._db
        db.run(
            f"CREATE TABLE IF NOT EXISTS {STASH_TABLE} (chunk_id TEXT PRIMARY KEY, "
            "model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL, "
            "created_at TEXT NOT NULL)",
            operation="restore stashed vectors",
        )
        row = db.get(
            f"SELECT count(*) FROM {STASH_TABLE} s WHERE s.model = ? AND {_RETURNED}",
            (embed_model,),
            operation="count stashed vectors",
        )
        db.write_all(
            [
                (
                    f"INSERT INTO main.embeddings ({_STASH_COLUMNS}) SELECT {_STASH_COLUMNS} "
                    f"FROM {STASH_TABLE} s WHERE s.model = ? AND {_RETURNED} "
                    "ON CONFLICT(chunk_id) DO NOTHING",
                    (embed_model,),
                ),
                (f"DROP TABLE {STASH_TABLE}", ()),
                *unshelve_writes(db),
                *_full_text_back(),
            ],
            operation="restore stashed vectors",
        )
        return 0 if row is None else int(row[0] or 0)

    def write_projections(self, projections: Sequence[FileProjection]) -> None:
        """See ``IndexStore.write_projections``.

        Inside each transaction, files that have no row yet (every file of a rebuild, every
        new file of an apply) are written with one ``executemany`` per statement; a file that
        has one keeps its statements in order, so edits, shared chunks and moved content
        behave exactly as file by file.
        """
        for batch in _projection_batches(projections):
            self._db.write_planned(functools.partial(_plan, batch), operation="project files")

    def move_rows(self, renames: Sequence[tuple[str, str]], *, with_state: bool) -> None:
        """See ``IndexStore.move_rows``."""
        self._write(rename_writes(s, t, with_state=with_state) for s, t in renames)

    def remove_rows(self, paths: Sequence[str]) -> None:
        """See ``IndexStore.remove_rows``."""
        self._write(removal_writes(path) for path in paths)

    def replace_parked(
        self, removals: Sequence[str], projections: Sequence[FileProjection]
    ) -> None:
        """See ``IndexStore.replace_parked``."""
        # Parks and projections share one group, so a parked row is never left behind.
        late = [
            *(_park(p.path) for p in projections),
            *(write for p in projections for write in projection_writes(p)),
        ]
        self._write([*(removal_writes(path) for path in removals), late])

    def refresh_context(self) -> None:
        """See ``IndexStore.refresh_context``: nothing when no row changed since the last one;
        else the documents the changes reach, rewritten where they differ, in one step."""
        row = self._db.get(
            f"SELECT ({HAS_DIRTY_SQL}), ({HAS_SESSION_DIRTY_SQL}), ({CONTEXT_INDEX_OFF_SQL})",
            operation="check context documents",
        )
        if row is None or not (row[0] or row[1] or row[2]):
            return
        statements = [*(refresh_context_writes() if row[0] else ()), *REFRESH_SESSION_WRITES]
        if row[2]:  # a rebuild's truncate dropped the context index's triggers
            statements += context_index_back_writes()
        writes = [(sql, ()) for sql in statements]
        self._db.write_all(writes, operation="refresh context documents")

    def record_head(
        self,
        *,
        head_sha: str | None,
        dirty_paths: Iterable[str],
        duplicates: Mapping[str, str],
        now: str,
    ) -> None:
        """See ``IndexStore.record_head``."""
        self._db.write_all(
            record_head_writes(
                head_sha=head_sha, dirty_paths=dirty_paths, duplicates=duplicates, now=now
            ),
            operation="record index watermark",
        )

    def skipped_duplicates(self) -> Mapping[str, str]:
        """See ``IndexStore.skipped_duplicates``."""
        return read_duplicates(self._db)

    def remember_duplicates(self, duplicates: Mapping[str, str]) -> None:
        """See ``IndexStore.remember_duplicates``."""
        if duplicates:
            self._db.write_all(
                [remember_duplicates_write(duplicates)], operation="remember skipped duplicates"
            )

    def stored_blobs(self, paths: Sequence[str]) -> Mapping[str, str]:
        """See ``IndexStore.stored_blobs``."""
        found: dict[str, str] = {}
        for part in _slices(paths):
            rows = self._db.all(
                f"SELECT path, blob_sha FROM files WHERE path IN ({_marks(part)})",
                part,
                operation="read stored blobs",
            )
            found.update((str(path), str(sha)) for path, sha in rows)
        return found

    def active_hash_holders(self, hashes: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """See ``IndexStore.active_hash_holders``."""
        holders: dict[str, set[str]] = {}
        for part in _slices(hashes):
            rows = self._db.all(
                "SELECT content_hash, path FROM files WHERE archived = 0 "
                f"AND memory_type <> 'task' AND content_hash IN ({_marks(part)})",
                part,
                operation="find content holders",
            )
            for content_hash, path in rows:
                holders.setdefault(str(content_hash), set()).add(str(path))
        return {key: frozenset(paths) for key, paths in holders.items()}

    def fulltext_tokenizer(self) -> str:
        """See ``IndexStore.fulltext_tokenizer``."""
        return self._db.fts_tokenizer()

    def retokenize(self, tokenizer: str) -> None:
        """See ``IndexStore.retokenize``: the FTS table and its triggers rebuilt in one step."""
        self._db.script(retokenize_fts_script(tokenizer), operation="retokenize full-text index")

    def frame_key_rule(self) -> str:
        """See ``IndexStore.frame_key_rule``."""
        row = self._db.get(
            f"SELECT value FROM {SETTINGS_TABLE} WHERE name = ?",
            (FRAME_KEY_RULE_SETTING,),
            operation="read frame key rule",
        )
        return "" if row is None else str(row[0])

    def frame_sources(self) -> tuple[tuple[str, str], ...]:
        """See ``IndexStore.frame_sources``."""
        rows = self._db.all(
            "SELECT path, gist FROM files ORDER BY path", operation="read gists to re-key"
        )
        return tuple((str(path), str(gist)) for path, gist in rows)

    def rekey_frames(self, rule: str, keys: Mapping[str, str | None]) -> None:
        """See ``IndexStore.rekey_frames``: the keys in batches, the rule with the last one."""
        updates: list[Sequence[Write]] = [
            [("UPDATE files SET frame_key = ? WHERE path = ?", (key, path))]
            for path, key in keys.items()
        ]
        record: Write = (
            f"INSERT INTO {SETTINGS_TABLE}(name, value) VALUES (?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            (FRAME_KEY_RULE_SETTING, rule),
        )
        self._write([*updates, [record]], operation="re-key frames")

    def row_counts(self) -> RowCounts:
        """See ``IndexStore.row_counts``."""
        row = self._db.get(
            "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks), "
            "(SELECT count(*) FROM edges)",
            operation="count index rows",
        )
        if row is None:  # pragma: no cover - a scalar SELECT always yields a row
            return RowCounts(files=0, chunks=0, edges=0)
        return RowCounts(files=int(row[0] or 0), chunks=int(row[1] or 0), edges=int(row[2] or 0))

    def _write(self, groups: Iterable[Sequence[Write]], *, operation: str = "update index") -> None:
        for batch in write_batches(groups):
            self._db.write_all(batch, operation=operation)


def _full_text_back() -> list[Write]:
    """The full-text triggers recreated and the whole table indexed in one pass.

    Runs in the same transaction as the rest of ``finish_rebuild``; until it commits the
    watermark stays NULL, so a rebuild that dies before it is followed by another rebuild,
    never by an update writing rows the full-text index would not see.
    """
    writes: list[Write] = []
    for name, sql in FTS_TRIGGERS.items():
        writes += [(f"DROP TRIGGER IF EXISTS main.{name}", ()), (sql, ())]
    writes.append((f"INSERT INTO main.{FTS_INDEX_NAME}({FTS_INDEX_NAME}) VALUES ('rebuild')", ()))
    return writes


def _projection_batches(
    projections: Sequence[FileProjection],
) -> Iterator[Sequence[FileProjection]]:
    """Files per transaction: at most ``WRITE_BATCH_SIZE`` statements, a file never split."""
    start, size = 0, 0
    for end, projection in enumerate(projections):
        count = statement_count(projection)
        if size and size + count > WRITE_BATCH_SIZE:
            yield projections[start:end]
            start, size = end, 0
        size += count
    if start < len(projections):
        yield projections[start:]


def _plan(projections: Sequence[FileProjection], query: Query) -> list[Write | WriteMany]:
    """The writes of one batch, decided inside its transaction (see ``write_projections``)."""
    paths = [p.row.path for p in projections]
    present: set[str] = set()
    for part in _slices(paths):
        present.update(str(row[0]) for row in query(_PRESENT_SQL % _marks(part), part))
    writes: list[Write | WriteMany] = []
    fresh: list[FileProjection] = []
    for projection in projections:
        if projection.row.path in present:
            writes += fresh_projection_writes(fresh) if fresh else []
            fresh = []
            writes += projection_writes(projection)
        else:
            fresh.append(projection)
    writes += fresh_projection_writes(fresh) if fresh else []
    return writes


def rename_writes(source: str, target: str, *, with_state: bool) -> list[Write]:
    """Move a row to a new path; chunks and vectors follow through ON UPDATE CASCADE.

    Each statement that could touch another file is guarded by the source row existing, so a
    move whose source was never indexed changes nothing. A stale row at the target goes first;
    edges have no foreign key and are moved by hand.
    """
    writes: list[Write] = [
        (f"DELETE FROM files WHERE path = ? AND {_SOURCE_EXISTS}", (target, source)),
        (f"DELETE FROM edges WHERE src_path = ? AND {_SOURCE_EXISTS}", (target, source)),
        # An edge to the new path would become a self-link, which the edges CHECK refuses.
        ("DELETE FROM edges WHERE src_path = ? AND dst_path = ?", (source, target)),
        ("UPDATE edges SET src_path = ? WHERE src_path = ?", (target, source)),
        ("UPDATE files SET path = ? WHERE path = ?", (target, source)),
        (REOWN_CHUNKS_SQL, (target,)),
    ]
    if with_state:
        # No foreign key crosses databases: the access row moves in the same batch
        # (docs/index-schema.md §4), unless the target already has one of its own.
        writes.append(
            (
                "UPDATE state.access SET path = ? WHERE path = ? AND NOT EXISTS "
                "(SELECT 1 FROM state.access WHERE path = ?)",
                (target, source, target),
            )
        )
    return writes


def removal_writes(path: str) -> list[Write]:
    """Drop a file's row (children, chunks and vectors cascade) and its authored edges."""
    return [
        ("DELETE FROM files WHERE path = ?", (path,)),
        (DELETE_AUTHORED_EDGES_SQL, (path,)),
    ]


def _park(path: str) -> Write:
    return ("UPDATE files SET content_hash = ? WHERE path = ?", (PARKED_PREFIX + path, path))


def _slices(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for start in range(0, len(values), LOOKUP_SIZE):
        yield values[start : start + LOOKUP_SIZE]


def _marks(part: Sequence[str]) -> str:
    return ", ".join("?" for _ in part)
