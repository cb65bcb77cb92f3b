"""The embedding port: documents in batches, queries one at a time, in one named vector space."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

Vector = tuple[float, ...]


class Embedder(Protocol):
    """Turns document texts into vectors of one vector space.

    ``watermark`` names that space as ``<model-id>@<dim>``; the index stores it and refuses to
    mix spaces (``EmbedModelMismatch``).
    """

    @property
    def watermark(self) -> str:
        """The vector space, ``<model-id>@<dim>``."""
        ...

    @property
    def dim(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One unit-length vector per text, in input order.

        Deterministic for the same input; the result for a batch equals the results one by one.
        An empty text still gets a vector. Raises ``ModelUnavailable`` when the model cannot
        load or answer; never returns a partial batch.
        """
        ...


class QueryEmbedder(Protocol):
    """Embeds a search query into the same space as the documents it will be compared with."""

    @property
    def watermark(self) -> str:
        """The vector space, ``<model-id>@<dim>``."""
        ...

    def embed_query(self, text: str) -> Vector:
        """One unit-length vector. Raises ``ModelUnavailable`` on failure."""
        ...


class EmbeddingModel(Embedder, QueryEmbedder, Protocol):
    """One model serving both halves: what the composition root builds and hands out."""
