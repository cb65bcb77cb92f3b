"""The fused candidates as the steps after fusion read them, and the polarity step over them.

Search and recall both read their candidates here and both run :func:`polarity_pool`, so the
polarity step cannot differ between them. The pool's pairwise cosines are computed at most once
per query (:mod:`memhtml.adapters.sqlite.pairwise_cosine`) and handed to polarity and, through
:attr:`PolarityPool.mmr_similarity`, to MMR.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import attrs

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.pairwise_cosine import cosine_table, table_pays_off
from memhtml.adapters.sqlite.retrieval_sql import CANDIDATE_SQL
from memhtml.adapters.sqlite.vectors import unpack_f32
from memhtml.domain.fusion import Fused
from memhtml.domain.polarity import PolarityCandidate, PolarityScored, polarity_scored
from memhtml.domain.vectors import PairSimilarity


@attrs.frozen(kw_only=True)
class Candidate:
    """What the steps after fusion read about one fused path.

    Attributes:
        vector_blob: The ordinal-0 chunk's embedding as stored (float32 blob), or ``None``.
    """

    title: str
    gist: str
    memory_type: str
    confidence: float
    updated_at: str
    disclosure_text: str
    vector_blob: bytes | None
    superseded_by: str | None


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


def read_candidates(
    db: Database, fused: Sequence[Fused], model: str | None
) -> dict[str, Candidate]:
    """The candidate row of every fused path, by path; a vector only from ``model``'s space."""
    rows = db.all(
        CANDIDATE_SQL,
        (json.dumps([f.path for f in fused]), model),
        operation="read search candidates",
    )
    found: dict[str, Candidate] = {}
    for path, title, gist, kind, confidence, updated, disclosure, blob, superseded in rows:
        found.setdefault(
            str(path),
            Candidate(
                title=str(title),
                gist=str(gist),
                memory_type=str(kind),
                confidence=_real(confidence),
                updated_at=str(updated),
                disclosure_text=str(disclosure),
                vector_blob=blob if isinstance(blob, bytes) else None,
                superseded_by=text_or_none(superseded),
            ),
        )
    return found


def polarity_pool(
    fused: Sequence[Fused],
    candidates: dict[str, Candidate],
    query: str,
    *,
    table: bool | None = None,
) -> PolarityPool:
    """Run the polarity step over the fused candidates that have a row.

    Args:
        fused: The fused order, best first.
        candidates: Candidate rows by path; a fused path without one is left out.
        query: The caller's query text.
        table: Whether to compare through one pairwise cosine table; ``None`` builds it when it
            pays off (:func:`~memhtml.adapters.sqlite.pairwise_cosine.table_pays_off`).
            ``True`` builds it whenever two candidates carry vectors; ``False`` forces the pure
            comparisons, the reference the table must agree with.

    Returns:
        The post-polarity order and the similarity MMR should use over it.
    """
    paths = [f.path for f in fused if f.path in candidates]
    pool = [candidates[path] for path in paths]
    blobs = [c.vector_blob for c in pool]
    cosines = None
    if table or (table is None and table_pays_off(blobs)):
        cosines = cosine_table(blobs)
    scored = polarity_scored(
        [
            PolarityCandidate(
                path=path,
                gist=c.gist,
                vector=None if c.vector_blob is None else unpack_f32(c.vector_blob),
            )
            for path, c in zip(paths, pool, strict=True)
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


def text_or_none(value: SqlValue) -> str | None:
    """A nullable text column as ``str`` or ``None``."""
    return None if value is None else str(value)


def _real(value: SqlValue) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
