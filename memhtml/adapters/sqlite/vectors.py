"""The ``embeddings.vec`` blob: dim × float32, little-endian (docs/index-schema.md §3.4).

That is the layout sqlite-vec's ``vec_distance_cosine`` reads directly, so no conversion runs
inside a query. Packing uses the stdlib ``array`` module: numpy stays out of the index path.
"""

from __future__ import annotations

from typing import Final

from memhtml.domain.vectors import FLOAT32_BYTES, cosine_distance, pack_f32, unpack_f32

__all__ = [
    "COMPAT_DISTANCE_FUNCTION",
    "FLOAT32_BYTES",
    "pack_f32",
    "unpack_f32",
    "vector_distance_cos",
]

# The name sqlite-vec's own function would clash with; kept from the original for old queries.
COMPAT_DISTANCE_FUNCTION: Final = "vector_distance_cos"


def vector_distance_cos(a: object, b: object) -> float | None:
    """SQL function ``vector_distance_cos(a, b)``: 1 − cosine of two float32 blobs.

    The optional compatibility function of docs/index-schema.md §1; the arms use sqlite-vec's
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
