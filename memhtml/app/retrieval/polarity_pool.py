"""The fused candidates after the polarity step, and the similarity MMR reads over them.

Search and recall both run :func:`polarity_pool`, so the step cannot differ between them. The
pool's pairwise cosines are computed at most once per query (through the optional
``PairwiseSimilarity`` port) and handed to polarity and, through
:attr:`PolarityPool.mmr_similarity`, to MMR. They are computed on the first question, not up
front: with MMR off (the default) and no candidate whose polarity differs from the query's,
nothing asks, and a warm search saves the table (~0.6 ms of an 11 ms search at 10,000
memories, BENCHMARKS.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from memhtml.domain.fusion import Fused
from memhtml.domain.polarity import PolarityCandidate, PolarityScored, polarity_scored
from memhtml.domain.vectors import PairSimilarity, cosine_lookup, unpack_f32
from memhtml.ports.candidate_store import CandidateRow
from memhtml.ports.pair_similarity import PairwiseSimilarity


@attrs.frozen(kw_only=True)
class PolarityPool:
    """The candidates after the polarity step, and how MMR compares them.

    Attributes:
        scored: The candidates in post-polarity order (the order MMR reads as relevance).
        mmr_similarity: Similarity by index into ``scored``, read from the pool's cosine table
            (built on the first question); ``None`` without a similarity port or with fewer
            than two vectors in the pool, and MMR computes cosines itself.
    """

    scored: tuple[PolarityScored, ...]
    mmr_similarity: PairSimilarity | None


def polarity_pool(
    fused: Sequence[Fused],
    rows: Mapping[str, CandidateRow],
    query: str,
    *,
    similarity: PairwiseSimilarity | None = None,
    force_table: bool = False,
) -> PolarityPool:
    """Run the polarity step over the fused candidates that have a row.

    Args:
        fused: The fused order, best first.
        rows: Candidate rows by path; a fused path without one is left out.
        query: The caller's query text.
        similarity: Builds one cosine table for the pool when that pays off; ``None`` compares
            in pure Python, the reference any table must agree with.
        force_table: Build the table whenever two candidates carry vectors (tests).

    Returns:
        The post-polarity order and the similarity MMR should use over it.
    """
    paths = [f.path for f in fused if f.path in rows]
    pool = [rows[path] for path in paths]
    candidates = [
        PolarityCandidate(
            path=path,
            gist=row.gist,
            vector=None if row.vector_blob is None else unpack_f32(row.vector_blob),
        )
        for path, row in zip(paths, pool, strict=True)
    ]
    blobs = [row.vector_blob for row in pool]
    cosines = (
        None
        if similarity is None or sum(blob is not None for blob in blobs) < 2
        else _OnFirstQuestion(similarity, blobs, [c.vector for c in candidates], force_table)
    )
    scored = polarity_scored(candidates, query, similarity=cosines)
    return PolarityPool(
        scored=scored,
        mmr_similarity=None
        if cosines is None
        else cosines.permuted([s.position - 1 for s in scored]),
    )


class _OnFirstQuestion:
    """The pool's cosines by index, the table built when polarity or MMR first asks.

    When the port declines to build one (too few pairs to pay for it, or blobs of different
    widths), the pure lookup over the same vectors answers, as it would have without the port.
    """

    __slots__ = ("_blobs", "_force", "_lookup", "_similarity", "_vectors")

    def __init__(
        self,
        similarity: PairwiseSimilarity,
        blobs: Sequence[bytes | None],
        vectors: Sequence[tuple[float, ...] | None],
        force: bool,
    ) -> None:
        self._similarity = similarity
        self._blobs = blobs
        self._vectors = vectors
        self._force = force
        self._lookup: PairSimilarity | None = None

    def __call__(self, i: int, j: int) -> float:
        """The similarity of pool entries ``i`` and ``j``."""
        if self._lookup is None:
            table = self._similarity.table(self._blobs, force=self._force)
            self._lookup = cosine_lookup(self._vectors) if table is None else table
        return self._lookup(i, j)

    def permuted(self, order: Sequence[int]) -> PairSimilarity:
        """The same cosines read through ``order``: index ``k`` means entry ``order[k]``."""
        return lambda i, j: self(order[i], order[j])
