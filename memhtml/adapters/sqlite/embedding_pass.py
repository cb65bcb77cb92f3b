"""Filling vectors for chunks that lack one in the configured space, in persisted slices.

Each slice is embedded and stored before the next is embedded, so a model that stops
answering halfway costs only the slice in flight; what landed stays. That outcome is a value
(``EmbedOutcome.failure``), never an exception: the caller reports the gap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs

from memhtml.adapters import fault_point
from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.adapters.sqlite.schema import WRITE_BATCH_SIZE
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.ports.embedder import Embedder
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.indexer import VectorCoverage
from memhtml.ports.progress import NO_PROGRESS, PHASE_EMBEDDING, ProgressSink

EMBED_PERSIST_SLICE: Final = 960
"""Pending chunks embedded, then stored, per step of a pass. Injectable for tests."""

# Candidate ids per lookup; far under SQLite's bound-variable ceiling.
CANDIDATE_LOOKUP_SIZE: Final = 500

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


@attrs.frozen(kw_only=True)
class EmbedOutcome:
    """What a pass did: vectors written, and the model's reason if it stopped the pass."""

    written: int = 0
    failure: str | None = None


def pending_chunks(
    db: Database, model: str, candidate_ids: Sequence[str] | None = None
) -> list[tuple[str, str]]:
    """``(chunk_id, text)`` of chunks without a vector in ``model``, ordered by chunk id.

    Args:
        db: The index.
        model: The configured space.
        candidate_ids: Only these ids (an empty sequence finds nothing without a query);
            ``None`` scans every chunk.
    """
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
    return [(str(chunk_id), str(text)) for chunk_id, text in rows]


def embed_pending(
    db: Database,
    embedder: Embedder,
    pending: Sequence[tuple[str, str]],
    *,
    slice_size: int,
    now: Callable[[], str],
    progress: ProgressSink = NO_PROGRESS,
) -> EmbedOutcome:
    """Embed ``pending`` slice by slice, storing each slice before embedding the next.

    A slice is stored in transactions of at most ``WRITE_BATCH_SIZE`` statements (SCHEMA §1),
    all of them before the next slice is embedded. ``progress`` hears of the embedding phase
    (units: chunks), advanced once per stored slice, and finished however the pass ends.

    Returns:
        The vectors written, and the failure reason when the model stopped the pass (a
        ``ModelUnavailable``, or an answer of the wrong shape, which is the same thing to
        a caller: no usable vectors).

    Raises:
        StorageFailure: When a slice cannot be stored; earlier slices stay stored.
    """
    if slice_size < 1:
        raise ValueError("slice_size must be at least 1")
    if not pending:
        return EmbedOutcome()
    progress.start(PHASE_EMBEDDING, len(pending))
    try:
        return _embed_slices(db, embedder, pending, slice_size, now, progress)
    finally:
        progress.finish()


def _embed_slices(
    db: Database,
    embedder: Embedder,
    pending: Sequence[tuple[str, str]],
    slice_size: int,
    now: Callable[[], str],
    progress: ProgressSink,
) -> EmbedOutcome:
    written = 0
    for start in range(0, len(pending), slice_size):
        part = pending[start : start + slice_size]
        try:
            writes = _vector_writes(embedder, part, now())
        except ModelUnavailable as stopped:
            return EmbedOutcome(written=written, failure=stopped.reason)
        for batch in range(0, len(writes), WRITE_BATCH_SIZE):
            db.write_all(writes[batch : batch + WRITE_BATCH_SIZE], operation="store vectors")
        written += len(writes)
        progress.advance(len(writes))
        fault_point("embed.slice")
    return EmbedOutcome(written=written)


def _vector_writes(
    embedder: Embedder, part: Sequence[tuple[str, str]], created_at: str
) -> list[Write]:
    vectors = embedder.embed([text for _, text in part])
    model, dim = embedder.watermark, embedder.dim
    if len(vectors) != len(part):
        raise ModelUnavailable(f"returned {len(vectors)} vectors for {len(part)} texts")
    writes: list[Write] = []
    for (chunk_id, _), vector in zip(part, vectors, strict=True):
        try:
            blob = pack_f32(vector) if len(vector) == dim else None
        except ValueError:  # NaN, infinity, or past float32's range
            blob = None
        if blob is None:
            raise ModelUnavailable(f"returned a vector that is not {dim} finite float32 values")
        writes.append((UPSERT_VECTOR_SQL, (chunk_id, model, dim, blob, created_at)))
    return writes


def read_vector_coverage(db: Database, model: str) -> VectorCoverage:
    """Chunks with a vector in ``model`` over all chunks; 1.0 on an index with no chunks."""
    row = db.get(_COVERAGE_SQL, (model,), operation="read vector coverage")
    chunks, embeddings = (0, 0) if row is None else (int(row[0] or 0), int(row[1] or 0))
    coverage = 1.0 if chunks == 0 else embeddings / chunks
    return VectorCoverage(model=model, chunks=chunks, embeddings=embeddings, coverage=coverage)
