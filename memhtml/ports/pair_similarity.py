"""The pairwise similarity port: one table of cosines per candidate pool, for polarity and MMR.

Optional: without one the pipeline compares vectors in pure Python
(:func:`memhtml.domain.vectors.cosine_lookup`), the reference a table must agree with.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from memhtml.domain.vectors import PairSimilarity


class PairTable(Protocol):
    """Cosines of one pool by index into the sequence they were computed over."""

    def __call__(self, i: int, j: int) -> float:
        """The similarity of entries ``i`` and ``j``."""
        ...

    def permuted(self, order: Sequence[int]) -> PairSimilarity:
        """The table read through ``order``: index ``k`` means entry ``order[k]``."""
        ...


class PairwiseSimilarity(Protocol):
    """Builds a pool's cosine table when that is cheaper than comparing pair by pair."""

    def table(self, vectors: Sequence[bytes | None], *, force: bool = False) -> PairTable | None:
        """The pairwise cosines of the float32 blobs, or ``None`` to compare in pure Python.

        ``None`` also when fewer than two entries carry a blob or the widths differ. Without
        ``force`` a table is built only when it pays for itself.
        """
        ...
