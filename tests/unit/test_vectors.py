"""Cosine similarity and distance, the vector comparison of polarity and MMR."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.vectors import cosine_distance, cosine_lookup, cosine_similarity
from tests.strategies import small_vectors

wide_vectors = st.lists(
    st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=6
).map(tuple)


def test_parallel_vectors_have_similarity_one() -> None:
    """Two vectors pointing the same way have similarity 1 whatever their lengths."""
    assert 1.0 == pytest.approx(cosine_similarity((1.0, 2.0, 3.0), (2.0, 4.0, 6.0)))


def test_opposite_vectors_have_distance_two() -> None:
    """Opposite directions sit at distance 2."""
    assert 2.0 == pytest.approx(cosine_distance((1.0, -1.0), (-3.0, 3.0)))


def test_orthogonal_vectors_have_similarity_zero() -> None:
    """Perpendicular vectors share nothing."""
    assert 0.0 == cosine_similarity((1.0, 0.0), (0.0, 5.0))


def test_zero_vector_follows_the_sql_convention() -> None:
    """A zero vector has similarity 0 and distance 1, like the SQL UDF (docs/index-schema.md §1)."""
    assert (0.0, 1.0) == (
        cosine_similarity((0.0, 0.0), (1.0, 2.0)),
        cosine_distance((1.0, 2.0), (0.0, 0.0)),
    )


def test_empty_vectors_have_no_direction() -> None:
    """Two empty vectors compare like zero vectors."""
    assert 1.0 == cosine_distance((), ())


def test_length_mismatch_is_refused() -> None:
    """Vectors of different dimensions are a caller bug, not a similarity."""
    with pytest.raises(ValueError, match="lengths differ"):
        cosine_similarity((1.0, 2.0), (1.0, 2.0, 3.0))


def test_huge_components_do_not_overflow() -> None:
    """Components near the float maximum still give the exact cosine of their direction."""
    assert 1.0 == pytest.approx(cosine_similarity((1e308, 1e308), (1e308, 1e308)))


@given(wide_vectors.flatmap(lambda a: st.tuples(st.just(a), st.permutations(a).map(tuple))))
@example(((1.0, 1.0, 1.0), (1.0, 1.0, 1.0)))
def test_similarity_stays_within_minus_one_and_one(pair: tuple[tuple[float, ...], ...]) -> None:
    """Rounding never pushes a similarity outside [-1, 1], even for identical vectors."""
    a, b = pair
    sim = cosine_similarity(a, b)
    assert (True, True) == (-1.0 <= sim, sim <= 1.0)


@given(small_vectors, small_vectors)
def test_similarity_is_symmetric(a: tuple[float, ...], b: tuple[float, ...]) -> None:
    """Swapping the arguments gives the same similarity."""
    assert cosine_similarity(a, b) == cosine_similarity(b, a)


@given(small_vectors, small_vectors)
def test_distance_is_one_minus_similarity(a: tuple[float, ...], b: tuple[float, ...]) -> None:
    """Distance and similarity are one number read two ways."""
    assert 1.0 - cosine_similarity(a, b) == cosine_distance(a, b)


@given(small_vectors, small_vectors, st.floats(0.01, 100))
def test_similarity_ignores_positive_scaling(
    a: tuple[float, ...], b: tuple[float, ...], factor: float
) -> None:
    """Cosine reads direction only: scaling one vector by a positive factor changes nothing."""
    scaled = tuple(x * factor for x in a)
    assert math.isclose(cosine_similarity(a, b), cosine_similarity(scaled, b), abs_tol=1e-9)


@given(small_vectors)
def test_a_nonzero_vector_is_its_own_twin(a: tuple[float, ...]) -> None:
    """Every vector with a direction has similarity 1 with itself; a zero one has 0."""
    expected = 0.0 if not any(a) else 1.0
    assert math.isclose(expected, cosine_similarity(a, a), abs_tol=1e-12)


@given(st.lists(st.one_of(st.none(), wide_vectors.filter(lambda v: len(v) == 3)), max_size=6))
@example([(1e308, 1e308, 1.0), (1e-300, 0.0, 0.0), (0.0, 0.0, 0.0), None])
def test_lookup_is_cosine_similarity_bit_for_bit(
    vectors: list[tuple[float, ...] | None],
) -> None:
    """The indexed lookup with cached norms returns exactly cosine_similarity, every pair."""
    similar = cosine_lookup(vectors)
    pairs = [
        (i, j, a, b)
        for i, a in enumerate(vectors)
        for j, b in enumerate(vectors)
        if a is not None and b is not None
    ]
    assert [cosine_similarity(a, b) for _, _, a, b in pairs] == [
        similar(i, j) for i, j, _, _ in pairs
    ]


def test_lookup_refuses_a_missing_vector_and_a_length_mismatch() -> None:
    """Asking about an index without a vector, or of another length, is a caller bug."""
    similar = cosine_lookup([(1.0, 0.0), None, (1.0, 0.0, 0.0)])
    with pytest.raises(ValueError, match="no vector"):
        similar(0, 1)
    with pytest.raises(ValueError, match="lengths differ"):
        similar(0, 2)
