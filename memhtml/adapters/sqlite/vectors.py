"""The ``embeddings.vec`` blob: dim × float32, little-endian (SCHEMA §3.4).

That is the layout sqlite-vec's ``vec_distance_cosine`` reads directly, so no conversion runs
inside a query. Packing uses the stdlib ``array`` module: numpy stays out of the index path.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Iterable
from typing import Final

from memhtml.domain.vectors import cosine_distance

FLOAT32_BYTES: Final = 4
# The name sqlite-vec's own function would clash with; kept from the original for old queries.
COMPAT_DISTANCE_FUNCTION: Final = "vector_distance_cos"

# array('f') is the platform's C float. Every platform Python supports makes that IEEE binary32;
# checking once here turns a surprise platform into an import error, not corrupt vectors.
if array("f").itemsize != FLOAT32_BYTES:  # pragma: no cover - no such platform in CI
    raise ImportError("array('f') is not 4 bytes wide on this platform")

_BIG_ENDIAN: Final = sys.byteorder == "big"


def pack_f32(values: Iterable[float]) -> bytes:
    """Pack a vector as little-endian float32 bytes.

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


def vector_distance_cos(a: object, b: object) -> float | None:
    """SQL function ``vector_distance_cos(a, b)``: 1 − cosine of two float32 blobs.

    The optional compatibility function of SCHEMA §1; the arms use sqlite-vec's
    ``vec_distance_cosine``. It answers NULL for anything but two well-formed blobs and 1.0 when
    either vector is all zeros, the domain's convention.

    Raises:
        ValueError: When the two vectors differ in length, a caller bug SQLite reports as an
            error instead of hiding it behind NULL.
    """
    if not isinstance(a, bytes) or not isinstance(b, bytes):
        return None
    if len(a) % FLOAT32_BYTES or len(b) % FLOAT32_BYTES:
        return None
    return cosine_distance(unpack_f32(a), unpack_f32(b))
