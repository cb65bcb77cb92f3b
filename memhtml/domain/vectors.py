"""Cosine similarity and distance over plain float sequences.

The polarity step and MMR compare candidates' vectors here, in pure Python, so ranking stays
testable without numpy or a database. The zero-vector convention is the one docs/index-schema.md §1
gives the SQL function ``vector_distance_cos``: similarity 0, distance 1, so the two never disagree
about a vector that has no direction.
"""

from __future__ import annotations

import math
import operator
import struct
import sys
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Final, TypeAlias

# Outside this band a raw dot product could overflow or lose its terms to underflow.
_SAFE_LOW: Final = 1e-150
_SAFE_HIGH: Final = 1e150

FLOAT32_BYTES: Final = 4
"""Bytes per component of a stored vector: little-endian IEEE binary32
(docs/index-schema.md §3.4)."""

# array('f') is the platform's C float. Every platform Python supports makes that IEEE binary32;
# checking once here turns a surprise platform into an import error, not corrupt vectors.
if array("f").itemsize != FLOAT32_BYTES:  # pragma: no cover - no such platform in CI
    raise ImportError("array('f') is not 4 bytes wide on this platform")
_BIG_ENDIAN: Final = sys.byteorder == "big"

PairSimilarity: TypeAlias = Callable[[int, int], float]
"""The similarity of the candidates at two indexes of one sequence.

Polarity and MMR ask one only about pairs where both candidates carry a vector. The pure source
is :func:`cosine_lookup`; an adapter may hand in a table it computed in C instead, which must
give the same picks for the same vectors (a property test holds it to that).
"""


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
    return _cosine_with_norms(a, b, math.hypot(*a), math.hypot(*b))


def cosine_lookup(vectors: Sequence[Sequence[float] | None]) -> PairSimilarity:
    """:func:`cosine_similarity` by index into ``vectors``, each norm computed once.

    The same arithmetic as calling :func:`cosine_similarity` on the two vectors, bit for bit,
    only without recomputing both norms for every pair: with 30–120 candidates a norm was
    otherwise recomputed up to a hundred times. Norms are computed on first use, so a pool where
    nothing is compared pays for none. The vectors are not scaled to unit length up front
    because that rounds differently, and a pick that today wins an exact tie could then lose it.

    Args:
        vectors: Per index, a vector of finite components or ``None``.

    Returns:
        A function of two indexes giving their similarity in [-1, 1].

    Raises:
        ValueError: From the returned function, when either index has no vector or the two
            vectors differ in length (caller bugs, never user input).
    """
    norms: dict[int, float] = {}

    def norm(index: int, vector: Sequence[float]) -> float:
        found = norms.get(index)
        if found is None:
            found = norms[index] = math.hypot(*vector)
        return found

    def similarity(i: int, j: int) -> float:
        a, b = vectors[i], vectors[j]
        if a is None or b is None:
            raise ValueError(f"no vector to compare at index {i if a is None else j}")
        if len(a) != len(b):
            raise ValueError(f"vector lengths differ: {len(a)} and {len(b)}")
        return _cosine_with_norms(a, b, norm(i, a), norm(j, b))

    return similarity


def _cosine_with_norms(
    a: Sequence[float], b: Sequence[float], norm_a: float, norm_b: float
) -> float:
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


def pack_f32(values: Iterable[float]) -> bytes:
    """Pack a vector as little-endian float32 bytes, the layout every backend stores.

    Args:
        values: The components; each is rounded to the nearest float32.

    Returns:
        ``4 * len(values)`` bytes.

    Raises:
        ValueError: When a component is NaN or infinite, or overflows float32 (which would
            store an infinity). Such a vector would make every distance NaN and sort anywhere.
    """
    packed = array("f", values)
    if not all(math.isfinite(x) for x in packed):
        raise ValueError("vector holds a non-finite component")
    if _BIG_ENDIAN:  # pragma: no cover - CI is little-endian
        packed.byteswap()
    return packed.tobytes()


def unpack_f32(blob: bytes) -> tuple[float, ...]:
    """Read a little-endian float32 blob back into floats.

    Raises:
        ValueError: When the length is not a multiple of 4 bytes.
    """
    if len(blob) % FLOAT32_BYTES:
        raise ValueError(f"blob length {len(blob)} is not a multiple of {FLOAT32_BYTES}")
    unpacked = array("f")
    unpacked.frombytes(blob)
    if _BIG_ENDIAN:  # pragma: no cover - CI is little-endian
        unpacked.byteswap()
    return tuple(unpacked)


_F32: Final = struct.Struct("<f")


def _f32(value: float) -> float:
    """``value`` rounded to the nearest float32, back as a double."""
    return float(_F32.unpack(_F32.pack(value))[0])


def f32_cosine_distance(a: bytes, b: bytes) -> float | None:
    """The cosine distance of two stored vectors as sqlite-vec's ``vec_distance_cosine``
    computes it, to the bit: products and running sums rounded to float32 in index order, the
    square roots and the quotient in double, the result rounded to float32.

    Rounding a double result of one +, − or × of two float32 values to float32 gives the float32
    result exactly, so emulating the float32 loop this way is exact. ``None`` where SQLite
    reads NULL: a zero vector (0 / 0), or blobs of different lengths.
    """
    if len(a) != len(b) or len(a) % FLOAT32_BYTES:
        return None
    dot = a_mag = b_mag = 0.0
    for x, y in zip(unpack_f32(a), unpack_f32(b), strict=True):
        dot = _f32(dot + _f32(x * y))
        a_mag = _f32(a_mag + _f32(x * x))
        b_mag = _f32(b_mag + _f32(y * y))
    denominator = math.sqrt(a_mag) * math.sqrt(b_mag)
    if denominator == 0.0:
        return None
    return _f32(1 - (dot / denominator))
