"""``NumpyPairwiseCosine``: a candidate pool's pairwise cosines in one numpy pass.

The :class:`memhtml.ports.pair_similarity.PairwiseSimilarity` port for polarity and MMR to look
up.

In pure Python the two steps cost a 1024-wide dot product per compared pair: about 4,400 pairs
and 0.34 s of a 0.43 s search over 120 candidates. One float64 Gram matrix over the stored
float32 blobs costs about 9 ms there (0.5 ms for a default 30-candidate pool). The pure path
stays the reference: the table computes the same formula (dot over the product of the norms,
clamped to [-1, 1], 0 for a zero vector) and on vectors whose sums are exact reproduces it bit
for bit (a property test pins that). On real vectors the sums run in another order, so a cell
can differ from the pure cosine in its last bit or two; a pick could only change where it hangs
on that difference.

sqlite-vec's ``vec_distance_cosine`` was measured too: 62 ms for the same pool's 7,140 pairs,
and it sums in float32, which moves a similarity by ~1e-7 where the pure path moves it by ~1e-16.

The product is ``einsum``, not ``@``: ``@`` goes to OpenBLAS, which splits a product this size
over every core, and on a busy two-core machine a 30 × 1024 product took 28–32 ms instead of
0.09 ms while the threads waited for each other. ``einsum`` runs single-threaded in numpy's own
loops: 0.5 ms at 30 × 1024, 8.6 ms at 120 × 1024, whatever the load.

numpy is imported here lazily and only when the table pays for its import (~0.12 s): always
once numpy is loaded (the local MiniLM embedder loads it), otherwise only for a pool large
enough that the pure comparisons would cost more than the import. A lexical search never
imports it.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Final

from memhtml.domain.vectors import FLOAT32_BYTES, PairSimilarity

PURE_PRODUCTS_WORTH_AN_IMPORT: Final = 2_000_000
"""Multiply-adds of the pure path (pairs × width) that cost about as much as importing numpy.

Measured at ~60 ns per component and ~0.12 s per import: a default search (30 candidates) stays
pure, a 120-candidate pool of 1024-wide vectors (7.3 M) builds the table.
"""


class CosineTable:
    """Pairwise cosines of one pool, by index into the sequence they were computed over.

    Args:
        rows: ``rows[i][j]`` is the similarity of entries ``i`` and ``j``; symmetric.
    """

    __slots__ = ("_rows",)

    def __init__(self, rows: list[list[float]]) -> None:
        """Hold the rows as plain lists: indexing one is cheaper than a numpy element."""
        self._rows = rows

    def __call__(self, i: int, j: int) -> float:
        """The similarity of entries ``i`` and ``j``."""
        return self._rows[i][j]

    def permuted(self, order: Sequence[int]) -> PairSimilarity:
        """The same table read through ``order``: index ``k`` means entry ``order[k]``.

        Polarity re-sorts the pool before MMR reads it, so MMR's indexes are positions in the
        re-sorted pool; this maps them back without copying the table.
        """
        rows = self._rows
        return lambda i, j: rows[order[i]][order[j]]


def table_pays_off(vector_blobs: Sequence[bytes | None]) -> bool:
    """Whether building a :class:`CosineTable` beats the pure comparisons for this pool.

    Counted on the pool's pairs (an upper bound on what polarity and MMR compare) times the
    vector width; numpy already in memory makes any pool with a pair worth a table.
    """
    present = [blob for blob in vector_blobs if blob is not None]
    if len(present) < 2:
        return False
    if "numpy" in sys.modules:
        return True
    pairs = len(present) * (len(present) - 1) // 2
    return pairs * (len(present[0]) // FLOAT32_BYTES) >= PURE_PRODUCTS_WORTH_AN_IMPORT


def cosine_table(vector_blobs: Sequence[bytes | None]) -> CosineTable | None:
    """The pairwise cosine of every two entries that carry a float32 blob
    (docs/index-schema.md §3.4).

    A float32 component squared or multiplied by another is exact in float64 and stays far
    from overflow and underflow, so the pure path's scaled fallback for extreme magnitudes never
    applies to a stored vector and the table needs none. An entry without a blob gets a zero
    row (similarity 0), which polarity and MMR never ask about.

    Args:
        vector_blobs: Per pool entry, its embedding blob or ``None``.

    Returns:
        The table; ``None`` when fewer than two entries carry a blob, or when the blobs differ
        in width (a corrupt index: the pure path then raises the length error it always has).
    """
    widths = {len(blob) for blob in vector_blobs if blob is not None}
    present = sum(blob is not None for blob in vector_blobs)
    if present < 2 or len(widths) != 1:
        return None
    width = widths.pop()
    if width % FLOAT32_BYTES:
        return None
    # Imported here, not at the top: ~0.12 s that a lexical search must never pay.
    import numpy as np

    absent = bytes(width)
    stacked = np.frombuffer(
        b"".join(absent if blob is None else blob for blob in vector_blobs), dtype="<f4"
    ).reshape(len(vector_blobs), width // FLOAT32_BYTES)
    vectors = stacked.astype(np.float64)
    dots = np.einsum("ik,jk->ij", vectors, vectors)
    # One value per pair whichever side asks: mirror the upper triangle over the lower rather
    # than rely on the loop order rounding (i, j) and (j, i) alike.
    dots = np.triu(dots) + np.triu(dots, 1).T
    # The norms come from math.hypot, as in the pure path: numpy's sqrt of the summed squares
    # can land one ulp away from hypot, and a property test caught that flipping a cell.
    norms = np.array([math.hypot(*row) for row in vectors.tolist()], dtype=np.float64)
    denominators = np.outer(norms, norms)
    with np.errstate(divide="ignore", invalid="ignore"):
        similarities = np.where(denominators == 0.0, 0.0, dots / denominators)
    return CosineTable(np.clip(similarities, -1.0, 1.0).tolist())


class NumpyPairwiseCosine:
    """The :class:`memhtml.ports.pair_similarity.PairwiseSimilarity` port over numpy."""

    def table(self, vectors: Sequence[bytes | None], *, force: bool = False) -> CosineTable | None:
        """The pool's :class:`CosineTable` when it pays off (always with ``force``), else None."""
        if not (force or table_pays_off(vectors)):
            return None
        return cosine_table(vectors)
