"""The float32 blob codec and sqlite-vec's distance over it (docs/index-schema.md §3.4)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.vectors import pack_f32, unpack_f32, vector_distance_cos
from memhtml.domain.vectors import cosine_distance
from memhtml.ports.errors import StorageFailure

f32 = st.floats(width=32, allow_nan=False, allow_infinity=False)
f32_vectors = st.lists(f32, max_size=64)
unit_range = st.floats(min_value=-1.0, max_value=1.0, width=32)


@pytest.fixture(scope="module")
def db() -> Iterator[Database]:
    """One in-memory database for the whole module (hypothesis reuses it across examples)."""
    with Database.open(":memory:") as database:
        yield database


@given(vector=f32_vectors)
@example(vector=[-0.0, 3.4028234663852886e38, 1.401298464324817e-45])
def test_pack_then_unpack_returns_the_float32_values(vector: list[float]) -> None:
    """Unpacking a packed vector of float32 values gives the same values back."""
    assert tuple(vector) == unpack_f32(pack_f32(vector))


@given(vector=f32_vectors)
def test_blob_is_four_bytes_per_component(vector: list[float]) -> None:
    """A packed vector is exactly 4 × dim bytes, as the embeddings CHECK demands."""
    assert 4 * len(vector) == len(pack_f32(vector))


@given(blob=f32_vectors.map(pack_f32))
def test_unpack_then_pack_returns_the_same_bytes(blob: bytes) -> None:
    """Re-packing an unpacked blob reproduces it byte for byte."""
    assert blob == pack_f32(unpack_f32(blob))


def test_blob_is_little_endian() -> None:
    """1.0 and -2.0 pack as IEEE float32 little-endian words."""
    assert bytes.fromhex("0000803f000000c0") == pack_f32([1.0, -2.0])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, 1e39])
def test_non_finite_components_are_refused(bad: float) -> None:
    """NaN, infinities and values that overflow float32 cannot be stored."""
    with pytest.raises(ValueError, match="non-finite"):
        pack_f32([0.5, bad])


@pytest.mark.parametrize("length", [1, 2, 3, 5])
def test_unpack_refuses_a_partial_float(length: int) -> None:
    """A blob whose length is not a multiple of 4 is refused."""
    with pytest.raises(ValueError, match="multiple of 4"):
        unpack_f32(bytes(length))


def _same_length_pair(n: int) -> st.SearchStrategy[tuple[list[float], list[float]]]:
    vector = st.lists(unit_range, min_size=n, max_size=n)
    return st.tuples(vector, vector)


# Both vectors of one length, each with a norm well away from zero, so float32 arithmetic in
# sqlite-vec and float64 in the domain agree to a fixed tolerance.
directional_pairs = (
    st.integers(1, 32)
    .flatmap(_same_length_pair)
    .filter(lambda pair: min(math.hypot(*pair[0]), math.hypot(*pair[1])) > 0.1)
)


@settings(max_examples=80, deadline=None)
@given(pair=directional_pairs)
@example(pair=([1.0, 0.0], [-1.0, 0.0]))
def test_vec_distance_cosine_reads_our_blobs(
    db: Database, pair: tuple[list[float], list[float]]
) -> None:
    """sqlite-vec's vec_distance_cosine on our blobs equals 1 − cosine of the vectors."""
    a, b = pair
    row = db.get("SELECT vec_distance_cosine(?, ?)", (pack_f32(a), pack_f32(b)))
    assert row is not None
    assert cosine_distance(a, b) == pytest.approx(row[0], abs=1e-5)


@settings(max_examples=40, deadline=None)
@given(pair=directional_pairs)
def test_compat_function_agrees_with_sqlite_vec(
    db: Database, pair: tuple[list[float], list[float]]
) -> None:
    """vector_distance_cos and vec_distance_cosine give the same distance for the same blobs."""
    blobs = (pack_f32(pair[0]), pack_f32(pair[1]))
    row = db.get("SELECT vector_distance_cos(?, ?), vec_distance_cosine(?, ?)", blobs + blobs)
    assert row is not None
    assert row[1] == pytest.approx(row[0], abs=1e-5)


def test_compat_function_refuses_vectors_of_different_lengths(db: Database) -> None:
    """A length mismatch is an error in SQL, not a silent NULL."""
    with pytest.raises(StorageFailure):
        db.get("SELECT vector_distance_cos(?, ?)", (pack_f32([1.0]), pack_f32([1.0, 0.0])))


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("text", pack_f32([1.0]), None),
        (b"\x00", pack_f32([1.0]), None),
        (pack_f32([0.0, 0.0]), pack_f32([1.0, 0.0]), 1.0),
        (pack_f32([1.0, 0.0]), pack_f32([0.0, 1.0]), 1.0),
        (pack_f32([3.0, 4.0]), pack_f32([3.0, 4.0]), 0.0),
    ],
)
def test_compat_function_conventions(a: object, b: object, expected: float | None) -> None:
    """NULL for anything but two float32 blobs; 1.0 against a zero vector; 0 for itself."""
    assert expected == vector_distance_cos(a, b)


def test_stored_vector_reads_back_and_ranks(db: Database) -> None:
    """Vectors stored in embeddings come back intact and rank by vec_distance_cosine."""
    db.script(
        "INSERT INTO files (path, blob_sha, content_hash, memory_type, title, body_text, para, "
        "created_at, updated_at, indexed_at) VALUES ('areas/a.html', 'b', 'h', 'semantic', 't', "
        "'x', 'areas', 'n', 'n', 'n');"
        "INSERT INTO chunks VALUES ('near', 'areas/a.html', 'h', 0, 'x', 1);"
        "INSERT INTO chunks VALUES ('far', 'areas/a.html', 'h', 1, 'x', 1);"
    )
    vectors = {"near": (0.6, 0.8, 0.0), "far": (0.0, 0.0, 1.0)}
    db.write_all(
        [
            ("INSERT INTO embeddings VALUES (?, 'm@3', 3, ?, 'n')", (cid, pack_f32(v)))
            for cid, v in vectors.items()
        ]
    )
    query = pack_f32((0.6, 0.8, 0.0))
    ranked = db.all(
        "SELECT chunk_id, vec FROM embeddings ORDER BY vec_distance_cosine(vec, ?), chunk_id",
        (query,),
    )
    db.script("DELETE FROM files")
    order = [r[0] for r in ranked]
    stored = [unpack_f32(r[1]) for r in ranked if isinstance(r[1], bytes)]
    assert ["near", "far"] == order
    assert [pytest.approx(vectors["near"]), pytest.approx(vectors["far"])] == stored
