"""Cosine similarity and distance over plain float sequences.

The polarity step and MMR compare candidates' vectors here, in pure Python, so ranking stays
testable without numpy or a database. The zero-vector convention is the one SCHEMA.md §1 gives
the SQL function ``vector_distance_cos``: similarity 0, distance 1, so the two never disagree
about a vector that has no direction.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Final

# Outside this band a raw dot product could overflow or lose its terms to underflow.
_SAFE_LOW: Final = 1e-150
_SAFE_HIGH: Final = 1e150


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine of the angle between two vectors of finite components.

    Each vector is scaled by its own Euclidean norm before the dot product, so components of any
    finite magnitude neither overflow nor underflow the sum. The result is clamped to [-1, 1]
    because rounding can land a hair outside it, and a similarity of 1.0000000000000002 would
    pass a ``>= 0.9`` twin test that a caller reading "cosine" assumes is bounded.

    Args:
        a: The first vector.
        b: The second vector, of the same length.

    Returns:
        The similarity in [-1, 1]; 0.0 when either vector is all zeros (or empty).

    Raises:
        ValueError: When the two vectors differ in length (a caller bug, never user input).
    """
    if len(a) != len(b):
        raise ValueError(f"vector lengths differ: {len(a)} and {len(b)}")
    norm_a = math.hypot(*a)
    norm_b = math.hypot(*b)
    if norm_a == 0.0 or norm_b == 0.0:
        return 0.0
    denominator = norm_a * norm_b
    if _SAFE_LOW <= denominator <= _SAFE_HIGH:
        # The fast path: C-level multiply and sum, about 4x cheaper than the scaled generator,
        # which matters because polarity and MMR compare every pair of a 30-candidate pool.
        dot = float(sum(map(operator.mul, a, b))) / denominator
    else:
        # Magnitudes near the float limits: scale first so products neither overflow nor
        # underflow.
        dot = math.fsum((x / norm_a) * (y / norm_b) for x, y in zip(a, b, strict=True))
    return max(-1.0, min(1.0, dot))


def cosine_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """One minus :func:`cosine_similarity`: 0 for the same direction, 2 for opposite ones.

    Args:
        a: The first vector.
        b: The second vector, of the same length.

    Returns:
        The distance in [0, 2]; 1.0 when either vector is all zeros (or empty).

    Raises:
        ValueError: When the two vectors differ in length.
    """
    return 1.0 - cosine_similarity(a, b)
