"""The fused candidates after the polarity step, and the similarity MMR reads over them.

Search and recall both run :func:`polarity_pool`, so the step cannot differ between them. The
pool's pairwise cosines are computed at most once per query (through the optional
``PairwiseSimilarity`` port) and handed to polarity and, through
:attr:`PolarityPool.mmr_similarity`, to MMR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from memhtml.domain.fusion import Fused
from memhtml.domain.polarity import PolarityCandidate, PolarityScored, polarity_scored
from memhtml.domain.vectors import PairSimilarity, unpack_f32
from memhtml.ports.candidate_store import CandidateRow
from memhtml.ports.pair_similarity import PairwiseSimilarity


@attrs.frozen(kw_only=True)
class PolarityPool:
    """The candidates after the polarity step, and how MMR compares them.

    Attributes:
        scored: The candidates in post-polarity order (the order MMR reads as relevance).
        mmr_similarity: Similarity by index into ``scored``, read from the pool's cosine table;
            ``None`` when no table was built, and MMR computes cosines itself.
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
    blobs = [row.vector_blob for row in pool]
    cosines = None if similarity is None else similarity.table(blobs, force=force_table)
    scored = polarity_scored(
        [
            PolarityCandidate(
                path=path,
                gist=row.gist,
                vector=None if row.vector_blob is None else unpack_f32(row.vector_blob),
            )
            for path, row in zip(paths, pool, strict=True)
        ],
        query,
        similarity=cosines,
    )
    return PolarityPool(
        scored=scored,
        mmr_similarity=None
        if cosines is None
        else cosines.permuted([s.position - 1 for s in scored]),
    )
