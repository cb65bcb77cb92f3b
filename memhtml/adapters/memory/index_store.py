"""``MemoryIndexStore`` and ``MemoryVectorStore``: persistence ports over ``MemoryTables``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from memhtml.adapters.memory.tables import MemoryTables, VectorRecord
from memhtml.domain import lexical_context
from memhtml.domain.fulltext import TOKENIZERS
from memhtml.domain.lexical_context import context_documents
from memhtml.domain.projection import FileProjection
from memhtml.domain.session_documents import session_documents
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.ports.errors import StorageFailure
from memhtml.ports.index_store import RowCounts
from memhtml.ports.indexer import EMPTY_TREE_SHA, IndexState, VectorCoverage
from memhtml.ports.vector_store import PendingChunk, StoredVector


class MemoryIndexStore:
    """The :class:`memhtml.ports.index_store.IndexStore` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Persist into ``tables``."""
        self._t = tables

    @property
    def has_state(self) -> bool:
        """See ``IndexStore.has_state``: the in-memory plane is always there."""
        return True

    def index_state(self) -> IndexState | None:
        """See ``IndexStore.index_state``."""
        state = self._t.index_state
        return None if state is None else attrs.evolve(state, dirty_paths=self._t.dirty_paths)

    def begin_rebuild(self, *, embed_model: str, embed_dim: int, now: str) -> None:
        """See ``IndexStore.begin_rebuild``."""
        t = self._t
        with t.transaction("truncate for rebuild"):
            previous = t.index_state
            t.index_state = IndexState(
                head_sha=None,
                embed_model=embed_model,
                embed_dim=embed_dim,
                rebuilt_at=now,
                updated_at=now,
                dirty_paths=frozenset() if previous is None else previous.dirty_paths,
            )
            for chunk_id, vector in t.vectors.items():
                if vector.model == embed_model:
                    t.stash.setdefault(chunk_id, vector)
            for table in (
                t.files,
                t.tags,
                t.entities,
                t.facets,
                t.citations,
                t.entity_terms,
                t.chunks,
            ):
                table.clear()
            t.vectors.clear()
            t.edges.clear()

    def finish_rebuild(self, *, embed_model: str) -> int:
        """See ``IndexStore.finish_rebuild``."""
        t = self._t
        with t.transaction("restore stashed vectors"):
            returned = {
                chunk_id: vector
                for chunk_id, vector in t.stash.items()
                if vector.model == embed_model and chunk_id in t.chunks
            }
            for chunk_id, vector in returned.items():
                t.vectors.setdefault(chunk_id, vector)
            t.stash.clear()
        return len(returned)

    def write_projections(self, projections: Sequence[FileProjection]) -> None:
        """See ``IndexStore.write_projections``: one transaction per file."""
        for projection in projections:
            with self._t.transaction("update index"):
                self._t.project(projection)

    def move_rows(self, renames: Sequence[tuple[str, str]], *, with_state: bool) -> None:
        """See ``IndexStore.move_rows``."""
        for source, target in renames:
            with self._t.transaction("update index"):
                self._t.rename(source, target, with_state=with_state)

    def remove_rows(self, paths: Sequence[str]) -> None:
        """See ``IndexStore.remove_rows``."""
        t = self._t
        for path in paths:
            with t.transaction("update index"):
                t.delete_file(path)
                for key in [k for k, e in t.edges.items() if k[0] == path and not e.derived]:
                    del t.edges[key]

    def replace_parked(
        self, removals: Sequence[str], projections: Sequence[FileProjection]
    ) -> None:
        """See ``IndexStore.replace_parked``."""
        self.remove_rows(removals)
        with self._t.transaction("update index"):
            for projection in projections:
                self._t.park(projection.path)
            for projection in projections:
                self._t.project(projection)

    def refresh_context(self) -> None:
        """See ``IndexStore.refresh_context``: the documents recomputed by the pure twin."""
        t = self._t
        with t.transaction("refresh context documents"):
            facts = t.context_facts()
            t.context = context_documents(facts, lexical_context.DEFAULT_CONTEXT_PARTS)
            # As the SQLite index keeps it: a neighbour is recorded on its memory's document.
            previous = lexical_context.previous_in_session(facts)
            t.context_prev = {p: before for p, before in previous.items() if p in t.context}
            t.sessions = session_documents(facts)

    def record_head(
        self,
        *,
        head_sha: str | None,
        dirty_paths: Iterable[str],
        duplicates: Mapping[str, str],
        now: str,
    ) -> None:
        """See ``IndexStore.record_head``."""
        t = self._t
        with t.transaction("record index watermark"):
            if t.index_state is not None:
                t.index_state = attrs.evolve(
                    t.index_state,
                    head_sha=EMPTY_TREE_SHA if head_sha is None else head_sha,
                    updated_at=now,
                )
            t.dirty_paths = frozenset(dirty_paths)
            t.duplicates = dict(duplicates)

    def skipped_duplicates(self) -> Mapping[str, str]:
        """See ``IndexStore.skipped_duplicates``."""
        return dict(self._t.duplicates)

    def remember_duplicates(self, duplicates: Mapping[str, str]) -> None:
        """See ``IndexStore.remember_duplicates``."""
        t = self._t
        with t.transaction("remember skipped duplicates"):
            t.duplicates = {**t.duplicates, **duplicates}

    def stored_blobs(self, paths: Sequence[str]) -> Mapping[str, str]:
        """See ``IndexStore.stored_blobs``."""
        files = self._t.files
        return {path: files[path].blob_sha for path in paths if path in files}

    def active_hash_holders(self, hashes: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """See ``IndexStore.active_hash_holders``."""
        wanted = set(hashes)
        holders: dict[str, set[str]] = {}
        for path, row in self._t.files.items():
            if row.content_hash in wanted and not row.archived and row.memory_type != TASK_TYPE:
                holders.setdefault(row.content_hash, set()).add(path)
        return {key: frozenset(paths) for key, paths in holders.items()}

    def fulltext_tokenizer(self) -> str:
        """See ``IndexStore.fulltext_tokenizer``."""
        return self._t.tokenizer

    def retokenize(self, tokenizer: str) -> None:
        """See ``IndexStore.retokenize``."""
        if tokenizer not in TOKENIZERS:
            raise StorageFailure("retokenize full-text index")
        with self._t.transaction("retokenize full-text index"):
            self._t.tokenizer = tokenizer

    def frame_key_rule(self) -> str:
        """See ``IndexStore.frame_key_rule``."""
        return self._t.frame_key_rule

    def frame_sources(self) -> tuple[tuple[str, str], ...]:
        """See ``IndexStore.frame_sources``."""
        return tuple((path, row.gist) for path, row in sorted(self._t.files.items()))

    def rekey_frames(self, rule: str, keys: Mapping[str, str | None]) -> None:
        """See ``IndexStore.rekey_frames``."""
        t = self._t
        with t.transaction("re-key frames"):
            for path, key in keys.items():
                if path in t.files:
                    t.files[path] = attrs.evolve(t.files[path], frame_key=key)
            t.frame_key_rule = rule

    def row_counts(self) -> RowCounts:
        """See ``IndexStore.row_counts``."""
        t = self._t
        return RowCounts(files=len(t.files), chunks=len(t.chunks), edges=len(t.edges))


class MemoryVectorStore:
    """The :class:`memhtml.ports.vector_store.VectorStore` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Store vectors in ``tables``."""
        self._t = tables

    def pending_chunks(
        self, model: str, candidate_ids: Sequence[str] | None = None
    ) -> tuple[PendingChunk, ...]:
        """See ``VectorStore.pending_chunks``."""
        t = self._t
        ids = t.chunks.keys() if candidate_ids is None else set(candidate_ids) & t.chunks.keys()
        return tuple(
            PendingChunk(chunk_id=chunk_id, text=t.chunks[chunk_id].text)
            for chunk_id in sorted(ids)
            if chunk_id not in t.vectors or t.vectors[chunk_id].model != model
        )

    def put_vectors(
        self, vectors: Sequence[StoredVector], *, model: str, dim: int, created_at: str
    ) -> None:
        """See ``VectorStore.put_vectors``."""
        t = self._t
        with t.transaction("store vectors"):
            for vector in vectors:
                if vector.chunk_id not in t.chunks or len(vector.blob) != 4 * dim:
                    raise ValueError("a vector for no chunk, or of the wrong width")
                t.vectors[vector.chunk_id] = VectorRecord(
                    model=model, dim=dim, blob=vector.blob, created_at=created_at
                )

    def vector_coverage(self, model: str) -> VectorCoverage:
        """See ``VectorStore.vector_coverage``."""
        chunks = len(self._t.chunks)
        embeddings = self.count_vectors(model)
        coverage = 1.0 if chunks == 0 else embeddings / chunks
        return VectorCoverage(model=model, chunks=chunks, embeddings=embeddings, coverage=coverage)

    def count_vectors(self, model: str) -> int:
        """See ``VectorStore.count_vectors``."""
        return sum(1 for vector in self._t.vectors.values() if vector.model == model)
