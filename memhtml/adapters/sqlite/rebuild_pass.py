"""A full rebuild: the tree at HEAD read first, then one truncate, the projections, the vectors
put back, and the commit recorded last (SCHEMA §3.7).

The watermark is NULL from the truncate's commit until the last write, so a rebuild that dies
anywhere in between is visible to the next ``update`` as ``IndexStale``, never as a current
index with rows missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final

import attrs

from memhtml.adapters import fault_point
from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.adapters.sqlite.embedding_pass import EmbedOutcome, embed_pending, pending_chunks
from memhtml.adapters.sqlite.index_context import IndexContext
from memhtml.adapters.sqlite.index_state import begin_rebuild_writes, record_head_writes
from memhtml.adapters.sqlite.parsing import ParsedFile, SourceFile, parse_files
from memhtml.adapters.sqlite.projection import project_file, write_batches
from memhtml.adapters.sqlite.schema import MEMORY_TABLES
from memhtml.domain.paths import is_archived_path, is_indexable_path
from memhtml.domain.vocabulary import PARA_BUCKETS, TASK_TYPE
from memhtml.ports.indexer import SKIP_DUPLICATE_CONTENT, RebuildReport, SkippedFile
from memhtml.ports.progress import NO_PROGRESS, PHASE_PROJECTING, ProgressSink

# The buckets a rebuild lists, so `.memhtml/` and the repository's own docs are never read.
TREE_PREFIXES: Final = PARA_BUCKETS
# Lives in the connection's temp schema: a process that dies mid-rebuild takes it along (the
# recovering rebuild re-embeds, losing nothing), and a rebuild that dies on a connection that
# lives on leaves it for the retry, which adds to it instead of emptying it.
STASH_TABLE: Final = "temp.rebuild_vector_stash"
_STASH_COLUMNS: Final = "chunk_id, model, dim, vec, created_at"
_RETURNED: Final = "EXISTS (SELECT 1 FROM main.chunks c WHERE c.chunk_id = s.chunk_id)"


@attrs.frozen(kw_only=True)
class TreeSnapshot:
    """The tree at HEAD, parsed: what the rebuild will write, read before anything is changed."""

    head: str | None
    parsed: tuple[ParsedFile, ...]
    skipped: tuple[SkippedFile, ...]


def read_tree(context: IndexContext, progress: ProgressSink = NO_PROGRESS) -> TreeSnapshot:
    """List HEAD's memory files, read their blobs in one batch and parse them.

    An unborn HEAD is an empty tree. Files that fail to parse, and active non-task files whose
    content another such file (earlier in path order) already holds, are skipped. ``progress``
    hears of the parsing phase.
    """
    head = context.git.head()
    entries = () if head is None else context.git.list_tree(head, TREE_PREFIXES)
    entries = tuple(entry for entry in entries if is_indexable_path(entry.path))
    blobs = context.git.read_blobs(sorted({entry.blob_sha for entry in entries}))
    sources = [
        SourceFile(path=e.path, blob_sha=e.blob_sha, data=blobs[e.blob_sha]) for e in entries
    ]
    outcomes = parse_files(sources, context.parser, context.parse, progress)
    parsed = [outcome for outcome in outcomes if isinstance(outcome, ParsedFile)]
    skipped = [outcome for outcome in outcomes if isinstance(outcome, SkippedFile)]
    kept, duplicates = split_duplicates(parsed)
    skipped_all = sorted([*skipped, *duplicates], key=lambda skip: skip.path)
    return TreeSnapshot(head=head, parsed=tuple(kept), skipped=tuple(skipped_all))


def holds_active_hash(path: str, memory_type: str) -> bool:
    """Whether a file takes part in the dedup index: active (outside ``archive/``), not a task."""
    return not is_archived_path(path) and memory_type != TASK_TYPE


def split_duplicates(
    parsed: Iterable[ParsedFile],
) -> tuple[list[ParsedFile], list[SkippedFile]]:
    """Keep the first active non-task file per content hash; skip the others.

    Without this, the partial unique index would abort the whole batch holding the second file.
    """
    owners: set[str] = set()
    kept: list[ParsedFile] = []
    skipped: list[SkippedFile] = []
    for file in parsed:
        if holds_active_hash(file.path, file.doc.memory_type):
            if file.doc.content_hash in owners:
                skipped.append(SkippedFile(path=file.path, reasons=(SKIP_DUPLICATE_CONTENT,)))
                continue
            owners.add(file.doc.content_hash)
        kept.append(file)
    return kept, skipped


def truncate_writes(context: IndexContext) -> tuple[Write, ...]:
    """One transaction: watermark NULL and space recorded, vectors stashed, memory tables empty."""
    return (
        *begin_rebuild_writes(embed_model=context.model, embed_dim=context.dim, now=context.now()),
        (
            f"CREATE TABLE IF NOT EXISTS {STASH_TABLE} (chunk_id TEXT PRIMARY KEY, "
            "model TEXT NOT NULL, dim INTEGER NOT NULL, vec BLOB NOT NULL, "
            "created_at TEXT NOT NULL)",
            (),
        ),
        (
            f"INSERT INTO {STASH_TABLE} ({_STASH_COLUMNS}) SELECT {_STASH_COLUMNS} "
            "FROM main.embeddings WHERE model = ? ON CONFLICT(chunk_id) DO NOTHING",
            (context.model,),
        ),
        *((f"DELETE FROM main.{table}", ()) for table in MEMORY_TABLES),
    )


def restore_stashed_vectors(db: Database, model: str) -> int:
    """Put back stashed vectors of ``model`` whose chunk id came back; drop the stash."""
    row = db.get(
        f"SELECT count(*) FROM {STASH_TABLE} s WHERE s.model = ? AND {_RETURNED}",
        (model,),
        operation="count stashed vectors",
    )
    db.write_all(
        [
            (
                f"INSERT INTO main.embeddings ({_STASH_COLUMNS}) SELECT {_STASH_COLUMNS} "
                f"FROM {STASH_TABLE} s WHERE s.model = ? AND {_RETURNED} "
                "ON CONFLICT(chunk_id) DO NOTHING",
                (model,),
            ),
            (f"DROP TABLE {STASH_TABLE}", ()),
        ],
        operation="restore stashed vectors",
    )
    return 0 if row is None else int(row[0] or 0)


def run_rebuild(
    context: IndexContext, *, embed: bool, progress: ProgressSink = NO_PROGRESS
) -> RebuildReport:
    """Rebuild the index from the tree at HEAD (guards already passed; see ``SqliteIndexer``).

    ``progress`` hears of the parsing, projecting and embedding phases, in that order.
    """
    snapshot = read_tree(context, progress)
    db = context.db
    db.write_all(truncate_writes(context), operation="truncate for rebuild")
    fault_point("rebuild.truncated")
    indexed_at = context.now()
    if snapshot.parsed:
        progress.start(PHASE_PROJECTING, len(snapshot.parsed))
    for batch in write_batches(_projections(snapshot.parsed, indexed_at, progress)):
        db.write_all(batch, operation="project files")
        fault_point("rebuild.batch")
    if snapshot.parsed:
        progress.finish()
    preserved = restore_stashed_vectors(db, context.model)
    fault_point("rebuild.projected")
    outcome = EmbedOutcome()
    if embed and context.embedder is not None:
        outcome = embed_pending(
            db,
            context.embedder,
            pending_chunks(db, context.model),
            slice_size=context.persist_slice,
            now=context.now,
            progress=progress,
        )
    fault_point("rebuild.embedded")
    db.write_all(
        record_head_writes(head_sha=snapshot.head, dirty_paths=(), now=context.now()),
        operation="record rebuild watermark",
    )
    files, chunks, edges = _counts(db)
    return RebuildReport(
        head_sha=snapshot.head,
        files_indexed=files,
        chunks_indexed=chunks,
        edges_indexed=edges,
        embeddings_preserved=preserved,
        embeddings_written=outcome.written,
        skipped=snapshot.skipped,
        model_failure=outcome.failure,
    )


def _projections(
    parsed: Sequence[ParsedFile], indexed_at: str, progress: ProgressSink
) -> Iterator[tuple[Write, ...]]:
    """Each file's projection writes, lazily; a file counts as projected once its writes
    were taken into a batch (the batch lands a moment later, which a bar does not show)."""
    for file in parsed:
        yield project_file(
            path=file.path, blob_sha=file.blob_sha, doc=file.doc, indexed_at=indexed_at
        ).writes
        progress.advance()


def _counts(db: Database) -> tuple[int, int, int]:
    row = db.get(
        "SELECT (SELECT count(*) FROM files), (SELECT count(*) FROM chunks), "
        "(SELECT count(*) FROM edges)",
        operation="count index rows",
    )
    if row is None:
        return 0, 0, 0
    return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)
