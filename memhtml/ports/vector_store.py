"""The vector store port: which chunks lack a vector in a space, and storing vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs

from memhtml.ports.indexer import VectorCoverage


@attrs.frozen(kw_only=True)
class PendingChunk:
    """A chunk without a vector in the asked space: its id and the text to embed."""

    chunk_id: str
    text: str


@attrs.frozen(kw_only=True)
class StoredVector:
    """A vector to store: its chunk, and its components as little-endian float32 bytes."""

    chunk_id: str
    blob: bytes


class VectorStore(Protocol):
    """Vectors keyed by chunk id, one space at a time."""

    def pending_chunks(
        self, model: str, candidate_ids: Sequence[str] | None = None
    ) -> tuple[PendingChunk, ...]:
        """Chunks without a vector in ``model``, ordered by chunk id.

        Args:
            model: The space.
            candidate_ids: Only these ids (an empty sequence finds nothing); ``None`` looks at
                every chunk.
        """
        ...

    def put_vectors(
        self, vectors: Sequence[StoredVector], *, model: str, dim: int, created_at: str
    ) -> None:
        """Store each vector, replacing any vector its chunk holds (of any space): that is how
        a full pass finishes a migration to a new space. Vectors land in order; a failure
        keeps those stored before it, each of them whole."""
        ...

    def vector_coverage(self, model: str) -> VectorCoverage:
        """Chunks with a vector in ``model`` over all chunks; 1.0 with no chunks."""
        ...

    def count_vectors(self, model: str) -> int:
        """Vectors stored in ``model``."""
        ...
