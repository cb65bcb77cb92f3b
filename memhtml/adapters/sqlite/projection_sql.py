"""The statements that persist one :class:`memhtml.domain.projection.FileProjection`.

The domain decides every row (``project_file``); this module only spells them as SQL, in the
order docs/index-schema.md §3.1 "Projecting one file" gives, and packs files into transactions.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter
from typing import Final

import attrs

from memhtml.adapters.sqlite.connection import SqlValue, Write, WriteMany
from memhtml.adapters.sqlite.schema import FILE_COLUMNS, WRITE_BATCH_SIZE
from memhtml.domain.projection import FileProjection, FileRow
from memhtml.domain.vocabulary import ARCHIVE_BUCKET

# One list drives the column list and the update clause: a column added to FILE_COLUMNS
# without a field in `FileRow` fails at import instead of shifting binds.
UPSERT_FILE_SQL: Final = (
    f"INSERT INTO files ({', '.join(FILE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in FILE_COLUMNS)}) "
    "ON CONFLICT(path) DO UPDATE SET "
    + ", ".join(f"{column} = excluded.{column}" for column in FILE_COLUMNS if column != "path")
)
DELETE_CHILD_SQL: Final[tuple[str, ...]] = (
    "DELETE FROM file_tags WHERE path = ?",
    "DELETE FROM file_entities WHERE path = ?",
    "DELETE FROM file_facets WHERE path = ?",
    "DELETE FROM file_citations WHERE path = ?",
    "DELETE FROM entity_terms WHERE path = ?",
)
# Files that share a body share its chunk rows, and a row names one owner: a path outside the
# archive before one inside it, then the lowest path. The rule does not depend on the order in
# which files are projected, so an update and a rebuild agree, and an archived copy never takes
# the vector away from the live memory (migration 0011's trigger orders the same way).
_ARCHIVE_PREFIX: Final = f"{ARCHIVE_BUCKET}/"


def _owner_order(path: str) -> str:
    """The terms that sort a chunk's candidate owners, best first (``ORDER BY`` or a row value)."""
    return f"substr({path}, 1, {len(_ARCHIVE_PREFIX)}) = '{_ARCHIVE_PREFIX}', {path}"


# Chunks of the current content survive, so an edit to the head alone keeps its vectors. A
# stale chunk whose old content another file still holds moves to the best of those files
# first; only unshared stale chunks are deleted.
REPOINT_STALE_CHUNKS_SQL: Final = (
    "UPDATE chunks SET path = (SELECT f.path FROM files f "
    "WHERE f.content_hash = chunks.content_hash AND f.path <> ?1 "
    f"ORDER BY {_owner_order('f.path')} LIMIT 1) "
    "WHERE path = ?1 AND content_hash <> ?2 AND EXISTS (SELECT 1 FROM files f "
    "WHERE f.content_hash = chunks.content_hash AND f.path <> ?1)"
)
# A moved file keeps its chunks through ON UPDATE CASCADE, but its new path may rank below
# another holder of the body (a task moved into the archive while a live copy remains).
REOWN_CHUNKS_SQL: Final = (
    "UPDATE chunks SET path = (SELECT f.path FROM files f "
    "WHERE f.content_hash = chunks.content_hash "
    f"ORDER BY {_owner_order('f.path')} LIMIT 1) WHERE path = ?"
)
DELETE_STALE_CHUNKS_SQL: Final = "DELETE FROM chunks WHERE path = ? AND content_hash <> ?"
# Only the file's own authored edges: inbound edges are other files' assertions, and mined
# (derived) edges belong to sleep. The unary `+` keeps the planner off edges_derived: without
# statistics it picks that index for `derived = 0` and scans every authored edge per file,
# which made a 10,000-file rebuild quadratic (measured: 4 s per 1,000 files by the tenth).
DELETE_AUTHORED_EDGES_SQL: Final = "DELETE FROM edges WHERE src_path = ? AND +derived = 0"
INSERT_TAG_SQL: Final = "INSERT INTO file_tags (path, tag) VALUES (?, ?)"
INSERT_ENTITY_SQL: Final = (
    "INSERT INTO file_entities (path, entity_type, entity_name) VALUES (?, ?, ?)"
)
INSERT_FACET_SQL: Final = (
    "INSERT INTO file_facets (path, name, value, numeric_value) VALUES (?, ?, ?, ?)"
)
INSERT_CITATION_SQL: Final = "INSERT INTO file_citations (path, text, href) VALUES (?, ?, ?)"
INSERT_ENTITY_TERM_SQL: Final = (
    "INSERT INTO entity_terms (path, surface, entity_key) VALUES (?, ?, ?)"
)
# Upsert on the content-addressed id: an identical body elsewhere, or a moved file, keeps the
# row and therefore its vector; the row moves only to a better owner than the one it names.
UPSERT_CHUNK_SQL: Final = (
    "INSERT INTO chunks (chunk_id, path, content_hash, ordinal, text, char_count) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(chunk_id) DO UPDATE SET "
    f"path = CASE WHEN ({_owner_order('excluded.path')}) < ({_owner_order('chunks.path')}) "
    "THEN excluded.path ELSE chunks.path END, ordinal = excluded.ordinal, text = excluded.text, "
    "char_count = excluded.char_count"
)
# A mined edge with the same (src, rel, dst) survives the authored-edge delete; a plain INSERT
# would then abort the whole batch. The author now states the edge, so the row becomes authored.
UPSERT_AUTHORED_EDGE_SQL: Final = (
    "INSERT INTO edges (src_path, rel, dst_path, edge_class, derived, strength, provenance, "
    "src_hash, created_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?) "
    "ON CONFLICT(src_path, rel, dst_path) DO UPDATE SET edge_class = excluded.edge_class, "
    "derived = 0, strength = excluded.strength, provenance = excluded.provenance, "
    "sleep_run = NULL, src_hash = excluded.src_hash, dst_hash = NULL, "
    "created_at = excluded.created_at"
)


def projection_writes(projection: FileProjection) -> tuple[Write, ...]:
    """The statements that make the index hold ``projection``, in docs/index-schema.md §3 order.

    First the file's tags, entities, facets, citations, stale chunks and own authored edges
    are deleted; then ``files`` is upserted on ``path`` (never replaced: a delete would cascade
    away chunks and vectors and skip the FTS delete trigger); then the children are inserted,
    the chunks upserted and the authored edges written.
    """
    row = projection.row
    path, content_hash = row.path, row.content_hash
    writes: list[Write] = [(sql, (path,)) for sql in DELETE_CHILD_SQL]
    writes.append((REPOINT_STALE_CHUNKS_SQL, (path, content_hash)))
    writes.append((DELETE_STALE_CHUNKS_SQL, (path, content_hash)))
    writes.append((DELETE_AUTHORED_EDGES_SQL, (path,)))
    writes.append((UPSERT_FILE_SQL, file_params(row)))
    writes.extend((INSERT_TAG_SQL, (path, tag)) for tag in projection.tags)
    writes.extend(
        (INSERT_ENTITY_SQL, (path, entity.type, entity.name)) for entity in projection.entities
    )
    writes.extend(
        (INSERT_FACET_SQL, (path, facet.name, facet.value, facet.numeric_value))
        for facet in projection.facets
    )
    writes.extend(
        (INSERT_CITATION_SQL, (path, citation.text, citation.href))
        for citation in projection.citations
    )
    writes.extend(
        (INSERT_ENTITY_TERM_SQL, (path, term.surface, term.key)) for term in projection.entity_terms
    )
    writes.extend(
        (
            UPSERT_CHUNK_SQL,
            (chunk.chunk_id, path, content_hash, chunk.ordinal, chunk.text, chunk.char_count),
        )
        for chunk in projection.chunks
    )
    writes.extend(
        (
            UPSERT_AUTHORED_EDGE_SQL,
            (
                path,
                edge.rel,
                edge.target,
                edge.edge_class,
                edge.strength,
                edge.provenance,
                content_hash,
                row.indexed_at,
            ),
        )
        for edge in projection.edges
    )
    return tuple(writes)


def fresh_projection_writes(projections: Sequence[FileProjection]) -> list[WriteMany]:
    """``projection_writes`` of files that have no row yet, one ``executemany`` per statement.

    Exact only for such files: with no ``files`` row, foreign keys leave them no tags,
    entities, facets, citations or chunks, so every per-file delete and the chunk re-point
    would change nothing, and grouping by statement cannot reorder anything that matters.
    Edges have no foreign key, so the authored-edge delete stays. A chunk two of them share
    ends at the same owner in any order (``UPSERT_CHUNK_SQL``).
    """
    paths = [(p.row.path,) for p in projections]
    return [
        WriteMany(DELETE_AUTHORED_EDGES_SQL, paths),
        WriteMany(UPSERT_FILE_SQL, [file_params(p.row) for p in projections]),
        WriteMany(INSERT_TAG_SQL, [(p.row.path, tag) for p in projections for tag in p.tags]),
        WriteMany(
            INSERT_ENTITY_SQL,
            [(p.row.path, e.type, e.name) for p in projections for e in p.entities],
        ),
        WriteMany(
            INSERT_ENTITY_TERM_SQL,
            [(p.row.path, t.surface, t.key) for p in projections for t in p.entity_terms],
        ),
        WriteMany(
            INSERT_FACET_SQL,
            [(p.row.path, f.name, f.value, f.numeric_value) for p in projections for f in p.facets],
        ),
        WriteMany(
            INSERT_CITATION_SQL,
            [(p.row.path, c.text, c.href) for p in projections for c in p.citations],
        ),
        WriteMany(
            UPSERT_CHUNK_SQL,
            [
                (c.chunk_id, p.row.path, p.row.content_hash, c.ordinal, c.text, c.char_count)
                for p in projections
                for c in p.chunks
            ],
        ),
        WriteMany(
            UPSERT_AUTHORED_EDGE_SQL,
            [
                (
                    p.row.path,
                    e.rel,
                    e.target,
                    e.edge_class,
                    e.strength,
                    e.provenance,
                    p.row.content_hash,
                    p.row.indexed_at,
                )
                for p in projections
                for e in p.edges
            ],
        ),
    ]


def statement_count(projection: FileProjection) -> int:
    """How many statements ``projection_writes`` gives for ``projection``."""
    children = (
        projection.tags,
        projection.entities,
        projection.entity_terms,
        projection.facets,
        projection.citations,
        projection.chunks,
        projection.edges,
    )
    return len(DELETE_CHILD_SQL) + 4 + sum(len(part) for part in children)


_FILE_ROW: Final = attrgetter(*FILE_COLUMNS)
if {field.name for field in attrs.fields(FileRow)} != set(FILE_COLUMNS):  # pragma: no cover
    raise ImportError("FileRow and FILE_COLUMNS disagree")


def file_params(row: FileRow) -> tuple[SqlValue, ...]:
    """The ``files`` row in ``FILE_COLUMNS`` order, booleans as the 0/1 the CHECKs expect."""
    values: tuple[SqlValue | bool, ...] = _FILE_ROW(row)
    return tuple(int(v) if isinstance(v, bool) else v for v in values)


def write_batches(
    groups: Iterable[Sequence[Write]], limit: int = WRITE_BATCH_SIZE
) -> Iterator[list[Write]]:
    """Pack groups of statements into transactions of at most ``limit`` statements.

    A group (one file's projection) is never split, so every transaction leaves each file
    whole; a group larger than ``limit`` travels alone. Empty groups vanish.
    """
    batch: list[Write] = []
    for group in groups:
        if batch and len(batch) + len(group) > limit:
            yield batch
            batch = []
        batch.extend(group)
    if batch:
        yield batch
