"""A full rebuild: the tree at HEAD read first, then one truncate, the projections, the vectors
put back, and the commit recorded last (docs/index-schema.md §3.7).

The watermark is NULL from the truncate until the last write, so a rebuild that dies anywhere
in between is visible to the next ``update`` as ``IndexStale``, never as a current index with
rows missing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

import attrs

from memhtml.app.indexing.context import IndexContext
from memhtml.app.indexing.embedding import EmbedOutcome, embed_pending
from memhtml.app.indexing.parse_pool import SourceFile, parse_files
from memhtml.domain.content_claims import ParsedFile, split_duplicates
from memhtml.domain.paths import is_indexable_path
from memhtml.domain.projection import FileProjection, project_file
from memhtml.domain.vocabulary import PARA_BUCKETS
from memhtml.faults import fault_point
from memhtml.ports.indexer import SKIP_DUPLICATE_CONTENT, RebuildReport, SkippedFile
from memhtml.ports.progress import NO_PROGRESS, PHASE_PROJECTING, ProgressSink

# The buckets a rebuild lists, so `.memhtml/` and the repository's own docs are never read.
TREE_PREFIXES: Final = PARA_BUCKETS
PROJECTION_BATCH: Final = 200
"""Files handed to the store per call: the progress bar moves, and memory stays bounded."""


@attrs.frozen(kw_only=True)
class TreeSnapshot:
    """The tree at HEAD, parsed: what the rebuild will write, read before anything is changed."""

    head: str | None
    parsed: tuple[ParsedFile, ...]
    skipped: tuple[SkippedFile, ...]
    duplicates: tuple[tuple[str, str], ...] = ()
    """``(path, content hash)`` of the files skipped because a smaller path holds it."""


def read_tree(context: IndexContext, progress: ProgressSink = NO_PROGRESS) -> TreeSnapshot:
    """List HEAD's memory files, read their blobs in one batch and parse them.

    An unborn HEAD is an empty tree. Files that fail to parse, and active non-task files whose
    content another such file with a smaller path holds, are skipped. ``progress``
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
    skipped += [SkippedFile(path=f.path, reasons=(SKIP_DUPLICATE_CONTENT,)) for f in duplicates]
    skipped.sort(key=lambda skip: skip.path)
    return TreeSnapshot(
        head=head,
        parsed=tuple(kept),
        skipped=tuple(skipped),
        duplicates=tuple((f.path, f.doc.content_hash) for f in duplicates),
    )


def run_rebuild(
    context: IndexContext, *, embed: bool, progress: ProgressSink = NO_PROGRESS
) -> RebuildReport:
    """Rebuild the index from the tree at HEAD (guards already passed; see ``StoreIndexer``).

    ``progress`` hears of the parsing, projecting and embedding phases, in that order.
    """
    snapshot = read_tree(context, progress)
    store = context.store
    store.begin_rebuild(embed_model=context.model, embed_dim=context.dim, now=context.now())
    fault_point("rebuild.truncated")
    indexed_at = context.now()
    if snapshot.parsed:
        progress.start(PHASE_PROJECTING, len(snapshot.parsed))
    for batch in _batches(_projections(snapshot.parsed, indexed_at)):
        store.write_projections(batch)
        progress.advance(len(batch))
        fault_point("rebuild.batch")
    if snapshot.parsed:
        progress.finish()
    preserved = store.finish_rebuild(embed_model=context.model)
    store.refresh_context()
    fault_point("rebuild.projected")
    outcome = EmbedOutcome()
    if embed and context.embedder is not None:
        outcome = embed_pending(
            context.vectors,
            context.embedder,
            context.vectors.pending_chunks(context.model),
            slice_size=context.persist_slice,
            now=context.now,
            progress=progress,
        )
    fault_point("rebuild.embedded")
    store.record_head(
        head_sha=snapshot.head,
        dirty_paths=(),
        duplicates=dict(snapshot.duplicates),
        now=context.now(),
    )
    counts = store.row_counts()
    return RebuildReport(
        head_sha=snapshot.head,
        files_indexed=counts.files,
        chunks_indexed=counts.chunks,
        edges_indexed=counts.edges,
        embeddings_preserved=preserved,
        embeddings_written=outcome.written,
        skipped=snapshot.skipped,
        model_failure=outcome.failure,
    )


def _projections(parsed: Sequence[ParsedFile], indexed_at: str) -> Iterator[FileProjection]:
    for file in parsed:
        yield project_file(
            path=file.path, blob_sha=file.blob_sha, doc=file.doc, indexed_at=indexed_at
        )


def _batches(projections: Iterator[FileProjection]) -> Iterator[list[FileProjection]]:
    batch: list[FileProjection] = []
    for projection in projections:
        batch.append(projection)
        if len(batch) == PROJECTION_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
