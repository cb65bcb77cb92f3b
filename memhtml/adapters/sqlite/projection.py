"""Projecting one parsed memory file onto its rows (SCHEMA §3 "Projecting one file"). Pure.

``project_file`` decides every statement; the indexer only executes them. Rebuild and update
share it, so a file lands the same way whichever pass sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import Final, TypeVar

import attrs

from memhtml.adapters.sqlite.connection import SqlValue, Write
from memhtml.adapters.sqlite.schema import FILE_COLUMNS, WRITE_BATCH_SIZE
from memhtml.domain.chunking import Chunk, chunk_text
from memhtml.domain.model import MemoryDoc
from memhtml.domain.paths import is_archived_path, origin_path, para_of, workspace_of
from memhtml.domain.vocabulary import TASK_TYPE, edge_class_of

T = TypeVar("T")

AUTHORED_PROVENANCE: Final = "authored"
AUTHORED_STRENGTH: Final = 1.0

# One list drives the column list and the update clause: a column added to FILE_COLUMNS
# without a value in `_file_values` fails `project_file` at once instead of shifting binds.
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
)
# Chunks of the current content survive, so an edit to the head alone keeps its vectors. A
# stale chunk whose old content another file still holds moves to that file first (the lowest
# path, as the delete trigger of migration 0002 does); only unshared stale chunks are deleted.
REPOINT_STALE_CHUNKS_SQL: Final = (
    "UPDATE chunks SET path = (SELECT f.path FROM files f "
    "WHERE f.content_hash = chunks.content_hash AND f.path <> ?1 ORDER BY f.path LIMIT 1) "
    "WHERE path = ?1 AND content_hash <> ?2 AND EXISTS (SELECT 1 FROM files f "
    "WHERE f.content_hash = chunks.content_hash AND f.path <> ?1)"
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
# Upsert on the content-addressed id: an identical body elsewhere, or a moved file, keeps the
# row and therefore its vector; the row points at the path projected last.
UPSERT_CHUNK_SQL: Final = (
    "INSERT INTO chunks (chunk_id, path, content_hash, ordinal, text, char_count) "
    "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(chunk_id) DO UPDATE SET "
    "path = excluded.path, ordinal = excluded.ordinal, text = excluded.text, "
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


@attrs.frozen(kw_only=True)
class FileProjection:
    """Everything one file contributes to the index.

    Attributes:
        path: The repo path (``files.path``).
        content_hash: The recomputed ``sha256:…`` hash of the article.
        chunks: The body's chunks, whose ids the embedding pass looks up.
        writes: The statements, in the order they must run.
    """

    path: str
    content_hash: str
    chunks: tuple[Chunk, ...]
    writes: tuple[Write, ...]


def project_file(*, path: str, blob_sha: str, doc: MemoryDoc, indexed_at: str) -> FileProjection:
    """The statements that make the index hold ``doc`` at ``path``, in SCHEMA §3 order.

    First the file's tags, entities, facets, citations, stale chunks and own authored edges
    are deleted; then ``files`` is upserted on ``path`` (never replaced: a delete would cascade
    away chunks and vectors and skip the FTS delete trigger); then the children are inserted,
    deduplicated with the first occurrence kept, the chunks upserted and the authored edges
    written, self-links dropped.

    Args:
        path: Repo-relative path. ``archived``, ``origin_path``, ``para`` and ``workspace``
            come from it, never from the status meta: eviction is the move into ``archive/``.
        blob_sha: The git blob the bytes came from.
        doc: The parsed file.
        indexed_at: The projection instant, also the authored edges' ``created_at``.

    Returns:
        The projection; executing ``writes`` in order is the whole effect.
    """
    chunks = chunk_text(doc.content_hash, doc.body_text)
    writes: list[Write] = [(sql, (path,)) for sql in DELETE_CHILD_SQL]
    writes.append((REPOINT_STALE_CHUNKS_SQL, (path, doc.content_hash)))
    writes.append((DELETE_STALE_CHUNKS_SQL, (path, doc.content_hash)))
    writes.append((DELETE_AUTHORED_EDGES_SQL, (path,)))
    values = _file_values(path=path, blob_sha=blob_sha, doc=doc, indexed_at=indexed_at)
    writes.append((UPSERT_FILE_SQL, tuple(values[column] for column in FILE_COLUMNS)))
    writes.extend((INSERT_TAG_SQL, (path, tag)) for tag in dict.fromkeys(doc.tags))
    writes.extend(
        (INSERT_ENTITY_SQL, (path, entity.type, entity.name))
        for entity in dict.fromkeys(doc.entities)
    )
    writes.extend(
        (INSERT_FACET_SQL, (path, facet.name, facet.value, facet.numeric_value))
        for facet in _first_by_key(doc.facets, lambda facet: (facet.name, facet.value))
    )
    writes.extend(
        (INSERT_CITATION_SQL, (path, citation.text, citation.href))
        for citation in _first_by_key(doc.citations, lambda citation: citation.text)
    )
    writes.extend(
        (
            UPSERT_CHUNK_SQL,
            (chunk.chunk_id, path, doc.content_hash, chunk.ordinal, chunk.text, chunk.char_count),
        )
        for chunk in chunks
    )
    for rel, target in dict.fromkeys(doc.links_from(path)):
        edge_class = edge_class_of(rel)
        if edge_class is None:  # the parser admits only the vocabulary; a stray rel is no edge
            continue
        writes.append(
            (
                UPSERT_AUTHORED_EDGE_SQL,
                (
                    path,
                    rel,
                    target,
                    edge_class,
                    AUTHORED_STRENGTH,
                    AUTHORED_PROVENANCE,
                    doc.content_hash,
                    indexed_at,
                ),
            )
        )
    return FileProjection(
        path=path, content_hash=doc.content_hash, chunks=chunks, writes=tuple(writes)
    )


def _first_by_key(items: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
    """Items in order, each key's first occurrence only (a child table's primary key)."""
    seen: dict[Hashable, T] = {}
    for item in items:
        seen.setdefault(key(item), item)
    return list(seen.values())


def _file_values(
    *, path: str, blob_sha: str, doc: MemoryDoc, indexed_at: str
) -> dict[str, SqlValue]:
    """The ``files`` row by column name; ``project_file`` orders it by ``FILE_COLUMNS``."""
    archived = is_archived_path(path)
    return {
        "path": path,
        "blob_sha": blob_sha,
        "content_hash": doc.content_hash,
        "memory_type": doc.memory_type,
        "title": doc.title,
        "body_text": doc.body_text,
        "gist": doc.gist,
        "fts_text": doc.fts_text,
        "disclosure_text": doc.disclosure_text,
        "para": para_of(path),
        "workspace": workspace_of(path),
        "confidence": doc.confidence,
        "importance": doc.importance,
        "archived": int(archived),
        "origin_path": origin_path(path) if archived else None,
        "word_count": doc.word_count,
        "created_at": doc.created_at,
        "updated_at": doc.updated_at,
        "event_at": doc.event_at,
        "archived_at": doc.archived_at,
        "valid_from": doc.valid_from,
        "valid_until": doc.valid_until,
        "reprieves": doc.reprieves,
        "needs_revision": int(doc.needs_revision),
        "author": doc.author,
        "session_id": doc.session_id,
        "prompt_id": doc.prompt_id,
        "turn_uuid": doc.turn_uuid,
        "indexed_at": indexed_at,
        # The parser already refuses a task status on a non-task; this keeps the column's
        # "NULL on non-tasks" rule true for a hand-built MemoryDoc as well.
        "task_status": doc.task_status if doc.memory_type == TASK_TYPE else None,
        "due_at": doc.due_at,
        # DECISIONS 19: the conflict assist that derives frame keys comes later.
        "frame_key": None,
    }


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
