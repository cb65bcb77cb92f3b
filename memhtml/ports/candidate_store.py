"""The candidate store port: what the steps after fusion read about a set of paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs

from memhtml.ports.embedder import Vector


@attrs.frozen(kw_only=True)
class CandidateRow:
    """One fused path as polarity, MMR, the hits and the recall pack read it.

    Attributes:
        vector_blob: The ordinal-0 chunk's vector in the asked space, as little-endian float32
            bytes (:func:`memhtml.domain.vectors.unpack_f32`), or ``None``. The chunk that
            opens with the claim is the one whose polarity the step reads.
        superseded_by: For an archived memory, the memory whose ``supersedes`` link names it
            (at its archived path or its origin path; the smallest source wins); else ``None``.
        importance: ``files.importance``.
        pinned: ``files.pinned`` (the ``memhtml-pinned`` meta).
        tags: The memory's tags, sorted.
    """

    title: str
    gist: str
    memory_type: str
    confidence: float
    updated_at: str
    disclosure_text: str
    vector_blob: bytes | None
    superseded_by: str | None
    importance: int = 5
    pinned: bool = False
    tags: tuple[str, ...] = ()


class CandidateStore(Protocol):
    """Rows, snippets and entity references by path; read-only."""

    def candidate_rows(self, paths: Sequence[str], model: str | None) -> Mapping[str, CandidateRow]:
        """The row of every listed path the index holds, by path; vectors only from ``model``.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def snippets(
        self, paths: Sequence[str], query_vector: Vector | None, model: str | None
    ) -> Mapping[str, str]:
        """Each listed path's best chunk text: nearest ``query_vector`` in ``model``, else the
        lowest ordinal; a chunk without a vector loses to any that has one. Paths without
        chunks are absent.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def entity_refs(self, paths: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        """Every ``type:name`` reference of each listed path, sorted; paths without any absent.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
