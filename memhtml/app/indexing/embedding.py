"""Filling vectors for chunks that lack one in the configured space, in persisted slices.

Each slice is embedded and stored before the next is embedded, so a model that stops
answering halfway costs only the slice in flight; what landed stays. That outcome is a value
(``EmbedOutcome.failure``), never an exception: the caller reports the gap.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import attrs

from memhtml.domain.vectors import pack_f32
from memhtml.faults import fault_point
from memhtml.ports.embedder import Embedder
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.progress import NO_PROGRESS, PHASE_EMBEDDING, ProgressSink
from memhtml.ports.vector_store import PendingChunk, StoredVector, VectorStore

EMBED_PERSIST_SLICE: Final = 960
"""Pending chunks embedded, then stored, per step of a pass. Injectable for tests."""


@attrs.frozen(kw_only=True)
class EmbedOutcome:
    """What a pass did: vectors written, and the model's reason if it stopped the pass."""

    written: int = 0
    failure: str | None = None


def embed_pending(
    vectors: VectorStore,
    embedder: Embedder,
    pending: Sequence[PendingChunk],
    *,
    slice_size: int,
    now: Callable[[], str],
    progress: ProgressSink = NO_PROGRESS,
) -> EmbedOutcome:
    """Embed ``pending`` slice by slice, storing each slice before embedding the next.

    ``progress`` hears of the embedding phase (units: chunks), advanced once per stored slice,
    and finished however the pass ends.

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
        written = 0
        for start in range(0, len(pending), slice_size):
            part = pending[start : start + slice_size]
            created_at = now()
            try:
                stored = _embedded(embedder, part)
            except ModelUnavailable as stopped:
                return EmbedOutcome(written=written, failure=stopped.reason)
            vectors.put_vectors(
                stored, model=embedder.watermark, dim=embedder.dim, created_at=created_at
            )
            written += len(stored)
            progress.advance(len(stored))
            fault_point("embed.slice")
        return EmbedOutcome(written=written)
    finally:
        progress.finish()


def _embedded(embedder: Embedder, part: Sequence[PendingChunk]) -> list[StoredVector]:
    answered = embedder.embed([chunk.text for chunk in part])
    dim = embedder.dim
    if len(answered) != len(part):
        raise ModelUnavailable(f"returned {len(answered)} vectors for {len(part)} texts")
    stored: list[StoredVector] = []
    for chunk, vector in zip(part, answered, strict=True):
        try:
            blob = pack_f32(vector) if len(vector) == dim else None
        except ValueError:  # NaN, infinity, or past float32's range
            blob = None
        if blob is None:
            raise ModelUnavailable(f"returned a vector that is not {dim} finite float32 values")
        stored.append(StoredVector(chunk_id=chunk.chunk_id, blob=blob))
    return stored
