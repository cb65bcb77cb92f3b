"""Similarity of two candidates' words, for MMR when one of them has no vector."""

from __future__ import annotations

from collections.abc import Sequence

from memhtml.domain.polarity import polarity_tokens
from memhtml.domain.vectors import PairSimilarity


def token_jaccard(a: str, b: str) -> float:
    """Shared lower-cased word tokens over all of them; 0 when neither has any."""
    left, right = set(polarity_tokens(a)), set(polarity_tokens(b))
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def with_text_fallback(
    vector_similarity: PairSimilarity,
    has_vector: Sequence[bool],
    texts: Sequence[str],
) -> PairSimilarity:
    """``vector_similarity`` where both candidates carry a vector, their word overlap otherwise.

    Without it a candidate with no vector is never penalised for redundancy and wins MMR's
    later picks over near-duplicates of what is already chosen.
    """

    def similarity(i: int, j: int) -> float:
        if has_vector[i] and has_vector[j]:
            return vector_similarity(i, j)
        return token_jaccard(texts[i], texts[j])

    return similarity
