"""A full rebuild: HEAD's memory files listed and read, one truncate, the projections written
batch by batch as they are parsed, the vectors put back, and the commit recorded last
(docs/index-schema.md §3.7).

The watermark is NULL from the truncate until the last write, so a rebuild that dies anywhere
in between is visible to the next ``update`` as ``IndexStale``, never as a current index with
rows missing.
"""

from __future__ import annotations

from typing import Final

from memhtml.app.indexing.context import IndexContext
from memhtml.app.indexing.embedding import EmbedOutcome, embed_pending
from memhtml.app.indexing.parse_pool import SourceFile
from memhtml.app.indexing.parse_stream import ProjectedFile, projected_in_order
from memhtml.domain.content_claims import FirstHolders
from memhtml.domain.paths import is_indexable_path
from memhtml.domain.vocabulary import PARA_BUCKETS
from memhtml.faults import fault_point
from memhtml.ports.indexer import SKIP_DUPLICATE_CONTENT, RebuildReport, SkippedFile
from memhtml.ports.progress import NO_PROGRESS, PHASE_INDEXING, ProgressSink

# The buckets a rebuild lists, so `.memhtml/` and the repository's own docs are never read.
TREE_PREFIXES: Final = PARA_BUCKETS
PROJECTION_BATCH: Final = 200
"""Files parsed, then handed to the store, per batch: the first write starts after one batch
is parsed, the progress bar moves, and memory stays bounded."""


def listed_files(context: IndexContext) -> tuple[str | None, list[SourceFile]]:
    """HEAD and its indexable memory files with their bytes, in ascending path order.

    An unborn HEAD is an empty tree. The blobs are read in one batch.
    """
    head = context.git.head()
    entries = () if head is None else context.git.list_tree(head, TREE_PREFIXES)
    entries = tuple(entry for entry in entries if is_indexable_path(entry.path))
    blobs = context.git.read_blobs(sorted({entry.blob_sha for entry in entries}))
    sources = [
        SourceFile(path=e.path, blob_sha=e.blob_sha, data=blobs[e.blob_sha]) for e in entries
    ]
    sources.sort(key=lambda source: source.path)
    return head, sources


def run_rebuild(
    context: IndexContext, *, embed: bool, progress: ProgressSink = NO_PROGRESS
) -> RebuildReport:
    """Rebuild the index from the tree at HEAD (guards already passed; see ``StoreIndexer``).

    Files that fail to parse, and active non-task files whose content a smaller path holds,
    are skipped and reported. ``progress`` hears of the indexing phase (files parsed and
    written, skipped ones included) and then of the embedding phase.
    """
    head, sources = listed_files(context)
    store = context.store
    skipped: list[SkippedFile] = []
    duplicates: dict[str, str] = {}
    holders = FirstHolders()
    indexed_at = context.now()
    with projected_in_order(
        sources, context.parser, context.parse, batch_size=PROJECTION_BATCH, indexed_at=indexed_at
    ) as batches:
        # After the pool started (its workers fork before the first transaction opens).
        store.begin_rebuild(embed_model=context.model, embed_dim=context.dim, now=context.now())
        fault_point("rebuild.truncated")
        if sources:
            progress.start(PHASE_INDEXING, len(sources))
        for outcomes in batches:
            projected = [outcome for outcome in outcomes if isinstance(outcome, ProjectedFile)]
            skipped += [outcome for outcome in outcomes if isinstance(outcome, SkippedFile)]
            kept, repeated = holders.split(p.file for p in projected)
            skipped += [
                SkippedFile(path=f.path, reasons=(SKIP_DUPLICATE_CONTENT,)) for f in repeated
            ]
            duplicates.update((f.path, f.doc.content_hash) for f in repeated)
            if kept:
                keep = {file.path for file in kept}
                store.write_projections([p.projection for p in projected if p.file.path in keep])
            progress.advance(len(outcomes))
            fault_point("rebuild.batch")
        if sources:
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
    store.record_head(head_sha=head, dirty_paths=(), duplicates=duplicates, now=context.now())
    counts = store.row_counts()
    skipped.sort(key=lambda skip: skip.path)
    return RebuildReport(
        head_sha=head,
        files_indexed=counts.files,
        chunks_indexed=counts.chunks,
        edges_indexed=counts.edges,
        embeddings_preserved=preserved,
        embeddings_written=outcome.written,
        skipped=tuple(skipped),
        model_failure=outcome.failure,
    )
