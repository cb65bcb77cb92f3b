"""``ReportingIndexer``: an ``Indexer`` that tells a default progress sink about passes whose
caller passed none.

Reads and writes refresh the index on their own (freshness before a read, the update after a
commit) without a sink, and the first such pass after a lost index is a full rebuild that can
run for minutes. Wrapping the store's indexer once gives every one of those passes the edge's
sink (the command line's stderr lines) without threading a sink through every use case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memhtml.domain.model import MemoryDoc
from memhtml.ports.indexer import (
    BackfillReport,
    Indexer,
    IndexState,
    RebuildReport,
    UpdateReport,
    VectorCoverage,
)
from memhtml.ports.progress import NO_PROGRESS, ProgressSink


class ReportingIndexer:
    """Delegates every call to ``inner``; a pass given ``NO_PROGRESS`` reports to ``default``.

    Args:
        inner: The store's indexer.
        default: The sink for passes whose caller passed none.
    """

    def __init__(self, inner: Indexer, default: ProgressSink) -> None:
        self._inner = inner
        self._default = default

    def _sink(self, given: ProgressSink) -> ProgressSink:
        return self._default if given is NO_PROGRESS else given

    @property
    def embedder_bound(self) -> bool:
        """See ``Indexer.embedder_bound``."""
        return self._inner.embedder_bound

    def rebuild(
        self, *, embed: bool, force: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> RebuildReport:
        """See ``Indexer.rebuild``."""
        return self._inner.rebuild(embed=embed, force=force, progress=self._sink(progress))

    def update(
        self,
        *,
        embed: bool,
        progress: ProgressSink = NO_PROGRESS,
        known: Mapping[bytes, MemoryDoc] | None = None,
        vectors: Mapping[str, bytes] | None = None,
        committed_only: bool = False,
    ) -> UpdateReport:
        """See ``Indexer.update``."""
        return self._inner.update(
            embed=embed,
            progress=self._sink(progress),
            known=known,
            vectors=vectors,
            committed_only=committed_only,
        )

    def embed_missing(
        self, candidate_chunk_ids: Sequence[str] | None = None, *, limit: int | None = None
    ) -> int:
        """See ``Indexer.embed_missing``."""
        return self._inner.embed_missing(candidate_chunk_ids, limit=limit)

    def backfill(
        self, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> BackfillReport:
        """See ``Indexer.backfill``."""
        return self._inner.backfill(dry_run=dry_run, progress=self._sink(progress))

    def vector_coverage(self) -> VectorCoverage:
        """See ``Indexer.vector_coverage``."""
        return self._inner.vector_coverage()

    def index_state(self) -> IndexState | None:
        """See ``Indexer.index_state``."""
        return self._inner.index_state()

    def rebuild_in_progress(self) -> bool:
        """See ``Indexer.rebuild_in_progress``."""
        return self._inner.rebuild_in_progress()
