"""``SqliteVectorStore``: the vector store port over the ``embeddings`` table
(docs/index-schema.md §3.4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.adapters.sqlite.schema import WRITE_BATCH_SIZE
from memhtml.ports.indexer import VectorCoverage
from memhtml.ports.vector_store import PendingChunk, StoredVector

CANDIDATE_LOOKUP_SIZE: Final = 500
"""Candidate ids per lookup; far under SQLite's bound-variable ceiling."""

_PENDING_SQL: Final = (
    "SELECT c.chunk_id, c.text FROM chunks c WHERE NOT EXISTS "
    "(SELECT 1 FROM embeddings e WHERE e.chunk_id = c.chunk_id AND e.model = ?)"
)
# The key is the chunk id alone, so a vector of another space is replaced in place: that is
# how a full pass after `rebuild --embed` finishes a migration.
UPSERT_VECTOR_SQL: Final = (
    "INSERT INTO embeddings (chunk_id, model, dim, vec, created_at) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT(chunk_id) DO UPDATE SET model = excluded.model, dim = excluded.dim, "
    "vec = excluded.vec, created_at = excluded.created_at"
)
_COVERAGE_SQL: Final = (
    "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM embeddings WHERE model = ?)"
)


class SqliteVectorStore:
    """The :class:`memhtml.ports.vector_store.VectorStore` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Store vectors in ``db``."""
        self._db = db

    def pending_chunks(
        self, model: str, candidate_ids: Sequence[str] | None = None
    ) -> tuple[PendingChunk, ...]:
        """See ``VectorStore.pending_chunks``."""
        db = self._db
        if candidate_ids is None:
            rows = db.all(_PENDING_SQL + " ORDER BY c.chunk_id", (model,), operation="find pending")
        else:
            ids = sorted(set(candidate_ids))
            rows = []
            for start in range(0, len(ids), CANDIDATE_LOOKUP_SIZE):
                part = ids[start : start + CANDIDATE_LOOKUP_SIZE]
                marks = ", ".join("?" for _ in part)
                rows += db.all(
                    f"{_PENDING_SQL} AND c.chunk_id IN ({marks}) ORDER BY c.chunk_id",
                    (model, *part),
                    operation="find pending",
                )
        return tuple(PendingChunk(chunk_id=str(cid), text=str(text)) for cid, text in rows)

    def put_vectors(
        self, vectors: Sequence[StoredVector], *, model: str, dim: int, created_at: str
    ) -> None:
        """See ``VectorStore.put_vectors``; batches of ``WRITE_BATCH_SIZE``
        (docs/index-schema.md §1)."""
        writes: list[Write] = [
            (UPSERT_VECTOR_SQL, (v.chunk_id, model, dim, v.blob, created_at)) for v in vectors
        ]
        for start in range(0, len(writes), WRITE_BATCH_SIZE):
            self._db.write_all(writes[start : start + WRITE_BATCH_SIZE], operation="store vectors")

    def vector_coverage(self, model: str) -> VectorCoverage:
        """See ``VectorStore.vector_coverage``."""
        row = self._db.get(_COVERAGE_SQL, (model,), operation="read vector coverage")
        chunks, embeddings = (0, 0) if row is None else (int(row[0] or 0), int(row[1] or 0))
        coverage = 1.0 if chunks == 0 else embeddings / chunks
        return VectorCoverage(model=model, chunks=chunks, embeddings=embeddings, coverage=coverage)

    def count_vectors(self, model: str) -> int:
        """See ``VectorStore.count_vectors``."""
        row = self._db.get(
            "SELECT count(*) FROM embeddings WHERE model = ?", (model,), operation="count vectors"
        )
        return 0 if row is None else int(row[0] or 0)
