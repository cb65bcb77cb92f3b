"""``StoreIndexer``: the ``Indexer`` service over storage ports and one repository.

This module holds the guards (which store states refuse which passes) and the wiring; the
passes live in ``rebuild``, ``update`` and ``embedding``, the pure decisions in
``memhtml.domain.projection``, ``update_plan`` and ``content_claims``. Storage only persists.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from memhtml.app.indexing.context import IndexContext
from memhtml.app.indexing.embedding import EMBED_PERSIST_SLICE, embed_pending
from memhtml.app.indexing.history import follow_line, rebuild_line
from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.app.indexing.rebuild import run_rebuild
from memhtml.app.indexing.update import run_update
from memhtml.domain.frame_key import FRAME_KEY_RULE, frame_key
from memhtml.domain.model import MemoryDoc
from memhtml.domain.vectors import FLOAT32_BYTES
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import Embedder
from memhtml.ports.errors import EmbedModelMismatch, IndexStale, RebuildNoEmbedRefused
from memhtml.ports.git import GitPort
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.index_store import IndexStore
from memhtml.ports.indexer import (
    BackfillReport,
    IndexState,
    RebuildReport,
    UpdateReport,
    VectorCoverage,
)
from memhtml.ports.memory_parser import MemoryParser
from memhtml.ports.progress import (
    NO_PROGRESS,
    PHASE_REKEYING,
    PHASE_RETOKENIZING,
    ProgressSink,
)
from memhtml.ports.rebuild_claim import RebuildClaim
from memhtml.ports.vector_store import StoredVector, VectorStore

# `RebuildNoEmbedRefused.because`: which of the two no-embed spellings the operator can change.
BECAUSE_FLAG: Final = "embedding was turned off for this rebuild"
BECAUSE_NO_EMBEDDER: Final = "no embedder is configured"
STALE_REASON: Final = "a rebuild started and did not finish"
RUNNING_REASON: Final = "another process is rebuilding it right now"

_log = logging.getLogger(__name__)


class StoreIndexer:
    """Keeps the index a projection of the repository and fills its vectors.

    Not thread-safe (storage holds one connection). See ``memhtml.ports.indexer.Indexer`` for
    the contract of each method.
    """

    def __init__(
        self,
        *,
        store: IndexStore,
        vectors: VectorStore,
        rebuild_claim: RebuildClaim,
        git: GitPort,
        parser: MemoryParser,
        clock: Clock,
        embed_watermark: str,
        embed_dim: int,
        embedder: Embedder | None = None,
        embed_persist_slice: int = EMBED_PERSIST_SLICE,
        parse: ParseSettings | None = None,
        fts_tokenizer: str | None = None,
        history: HistoryStore | None = None,
    ) -> None:
        """Bind the index to a repository and a vector space.

        Args:
            store: Where projections and the watermark are persisted.
            vectors: Where vectors are persisted.
            rebuild_claim: Tells a rebuild that died from one running in another process.
            git: The repository.
            parser: ``parse_memory`` in production; a module-level function, so a process
                pool can receive it.
            clock: Stamps ``indexed_at`` and the watermark.
            embed_watermark: The configured space, ``<model-id>@<dim>``; recorded and checked
                even with no embedder (``MEMHTML_EMBED=off`` keeps the default,
                docs/decisions.md §21).
            embed_dim: Its dimension.
            embedder: The document embedder, or ``None`` for a lexical-only store.
            embed_persist_slice: Pending chunks embedded and stored per step (tests make it
                small to force several slices).
            parse: How parsing spreads over processes; serial by default.
            fts_tokenizer: The configured full-text tokenizer; an index built with another one
                is retokenized by the next update or rebuild. ``None`` keeps whatever it has.
            history: Where the transaction-time spans live (``--known-at``): a rebuild walks
                the whole first-parent line again, an update the commits since its tip.
                ``None`` keeps none.

        Raises:
            ValueError: The embedder's space is not the configured one, or a size is below 1.
        """
        if embed_dim < 1 or embed_persist_slice < 1:
            raise ValueError("embed_dim and embed_persist_slice must be at least 1")
        if embedder is not None and (embedder.watermark, embedder.dim) != (
            embed_watermark,
            embed_dim,
        ):
            raise ValueError("the embedder's vector space is not the configured one")
        self._tokenizer = fts_tokenizer
        self._claim = rebuild_claim
        self._history = history
        self._context = IndexContext(
            store=store,
            vectors=vectors,
            git=git,
            parser=parser,
            clock=clock,
            model=embed_watermark,
            dim=embed_dim,
            embedder=embedder,
            persist_slice=embed_persist_slice,
            parse=parse if parse is not None else ParseSettings(),
        )

    @property
    def embedder_bound(self) -> bool:
        """See ``Indexer.embedder_bound``."""
        return self._context.embedder is not None

    def rebuild(
        self, *, embed: bool, force: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> RebuildReport:
        """See ``Indexer.rebuild``. Waits while another process rebuilds."""
        with self._claim.held(wait=True):
            return self._guarded_rebuild(embed=embed, force=force, progress=progress)

    def _guarded_rebuild(
        self, *, embed: bool, force: bool, progress: ProgressSink
    ) -> RebuildReport:
        context = self._context
        writes_vectors = embed and context.embedder is not None
        state = context.store.index_state()
        if not writes_vectors:
            self._check_space(state)
            held = self._vectors_held()
            if held and not force:
                because = BECAUSE_FLAG if not embed else BECAUSE_NO_EMBEDDER
                raise RebuildNoEmbedRefused(held, context.model, because)
        retokenized = self._align_tokenizer(progress)
        report = run_rebuild(context, embed=writes_vectors, progress=progress)
        self._rebuild_line()
        if context.store.frame_key_rule() != FRAME_KEY_RULE:
            # Every row was just projected under the current rule: only the name is new.
            context.store.rekey_frames(FRAME_KEY_RULE, {})
        return attrs.evolve(report, retokenized=retokenized)

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
        context = self._context
        retokenized = self._align_tokenizer(progress)
        self._align_frame_keys(progress)
        state = context.store.index_state()
        if state is None or state.head_sha is None:
            rebuilt = self._first_or_resumed(embed=embed, progress=progress)
            if rebuilt is not None:
                return attrs.evolve(rebuilt, retokenized=retokenized)
            state = context.store.index_state()
            if state is None or state.head_sha is None:
                raise IndexStale(RUNNING_REASON)
        self._check_space(state)
        report, chunk_ids = run_update(
            context, state, progress, known=known, committed_only=committed_only
        )
        if self._history is not None:
            follow_line(context.git, self._history, report.head_sha)
        if retokenized is not None:
            report = attrs.evolve(report, retokenized=retokenized, unchanged=False)
        if vectors and chunk_ids and context.embedder is not None:
            handed = self._store_handed(vectors, chunk_ids)
            report = attrs.evolve(report, embeddings_written=handed)
        if not (embed and context.embedder is not None and chunk_ids):
            return report
        outcome = embed_pending(
            context.vectors,
            context.embedder,
            context.vectors.pending_chunks(context.model, chunk_ids),
            slice_size=context.persist_slice,
            now=context.now,
            progress=progress,
        )
        return attrs.evolve(
            report,
            embeddings_written=report.embeddings_written + outcome.written,
            model_failure=outcome.failure,
        )

    def _store_handed(self, vectors: Mapping[str, bytes], chunk_ids: Sequence[str]) -> int:
        """Store the handed vectors of this pass's chunks that still lack one; how many."""
        context = self._context
        wanted = [c for c in chunk_ids if c in vectors]
        if not wanted:
            return 0
        size = context.dim * FLOAT32_BYTES
        stored = [
            StoredVector(chunk_id=p.chunk_id, blob=vectors[p.chunk_id])
            for p in context.vectors.pending_chunks(context.model, wanted)
            if len(vectors[p.chunk_id]) == size
        ]
        if stored:
            context.vectors.put_vectors(
                stored, model=context.model, dim=context.dim, created_at=context.now()
            )
        return len(stored)

    def _first_or_resumed(self, *, embed: bool, progress: ProgressSink) -> UpdateReport | None:
        """The full rebuild an update runs when there is no watermark, or a NULL one whose
        rebuild died; ``None`` when another process finished it while this one waited.

        Raises:
            IndexStale: Another process is rebuilding right now.
            EmbedModelMismatch, RebuildNoEmbedRefused: A resumed rebuild that cannot write
                vectors meets the guards an explicit one would.
        """
        context = self._context
        # The first build is needed before anything can be answered, so it waits for another
        # process's; a died rebuild's successor does not wait on a live one (reads answer
        # from the index as it stands, docs/decisions.md §20).
        first = context.store.index_state() is None
        with self._claim.held(wait=first) as got:
            if not got:
                raise IndexStale(RUNNING_REASON)
            state = context.store.index_state()
            if state is not None and state.head_sha is not None:
                return None
            if state is None:
                # Never indexed: any vectors present belong to no recorded space, and the
                # stash keeps those in the configured one, so no refusal guard applies.
                rebuilt = run_rebuild(
                    context, embed=embed and context.embedder is not None, progress=progress
                )
                self._rebuild_line()
            else:
                _log.warning("an index rebuild was interrupted; rebuilding from git now")
                # Catching up, as any update does: without an embedder the new chunks wait for
                # vectors (as an incremental pass leaves them) rather than every read failing.
                rebuilt = self._guarded_rebuild(embed=embed, force=True, progress=progress)
        return UpdateReport(
            head_sha=rebuilt.head_sha,
            rebuilt=True,
            added=rebuilt.files_indexed,
            embeddings_written=rebuilt.embeddings_written,
            skipped=rebuilt.skipped,
            model_failure=rebuilt.model_failure,
        )

    def _rebuild_line(self) -> None:
        """Walk the whole first-parent line into the spans again (after every rebuild)."""
        if self._history is not None:
            rebuild_line(self._context.git, self._history)

    def rebuild_in_progress(self) -> bool:
        """See ``Indexer.rebuild_in_progress``."""
        return self._claim.busy()

    def embed_missing(
        self, candidate_chunk_ids: Sequence[str] | None = None, *, limit: int | None = None
    ) -> int:
        """See ``Indexer.embed_missing``."""
        context = self._context
        self._check_space(context.store.index_state())
        if context.embedder is None or (limit is not None and limit < 1):
            return 0
        pending = context.vectors.pending_chunks(context.model, candidate_chunk_ids)
        if limit is not None:
            pending = pending[:limit]
        return embed_pending(
            context.vectors,
            context.embedder,
            pending,
            slice_size=context.persist_slice,
            now=context.now,
        ).written

    def backfill(
        self, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> BackfillReport:
        """See ``Indexer.backfill``."""
        context = self._context
        state = context.store.index_state()
        self._check_space(state)
        written, failure = 0, None
        if not dry_run and context.embedder is not None:
            outcome = embed_pending(
                context.vectors,
                context.embedder,
                context.vectors.pending_chunks(context.model),
                slice_size=context.persist_slice,
                now=context.now,
                progress=progress,
            )
            written, failure = outcome.written, outcome.failure
        coverage = self.vector_coverage()
        return BackfillReport(
            head_sha=None if state is None else state.head_sha,
            chunks=coverage.chunks,
            embeddings=coverage.embeddings,
            embeddings_written=written,
            embeddings_remaining=coverage.chunks - coverage.embeddings,
            model_failure=failure,
        )

    def vector_coverage(self) -> VectorCoverage:
        """See ``Indexer.vector_coverage``."""
        return self._context.vectors.vector_coverage(self._context.model)

    def index_state(self) -> IndexState | None:
        """See ``Indexer.index_state``."""
        return self._context.store.index_state()

    def _align_tokenizer(self, progress: ProgressSink) -> str | None:
        """Retokenize when the index was built with another tokenizer than the configured one.

        FTS only, one step: rows, chunks and vectors stay. Returns the tokenizer adopted, or
        ``None`` when nothing changed.
        """
        wanted = self._tokenizer
        store = self._context.store
        if wanted is None or store.fulltext_tokenizer() == wanted:
            return None
        progress.start(PHASE_RETOKENIZING, 1)
        try:
            store.retokenize(wanted)
            progress.advance()
        finally:
            progress.finish()
        return wanted

    def _align_frame_keys(self, progress: ProgressSink) -> None:
        """Key every row again when the stored keys were made by another derivation (an index
        from before the conflict assist, migration 0005): from the stored gists, no parse."""
        store = self._context.store
        if store.frame_key_rule() == FRAME_KEY_RULE:
            return
        sources = store.frame_sources()
        if sources:
            progress.start(PHASE_REKEYING, len(sources))
        keys = {path: frame_key(gist) for path, gist in sources}
        store.rekey_frames(FRAME_KEY_RULE, keys)
        if sources:
            progress.advance(len(sources))
            progress.finish()
            _log.info("derived the frame keys of %d indexed memories", len(sources))

    def _check_space(self, state: IndexState | None) -> None:
        """Refuse to write into a store whose recorded vector space is another one."""
        context = self._context
        if state is not None and (state.embed_model, state.embed_dim) != (
            context.model,
            context.dim,
        ):
            raise EmbedModelMismatch(state.embed_model, context.model)

    def _vectors_held(self) -> int:
        return self._context.vectors.count_vectors(self._context.model)
