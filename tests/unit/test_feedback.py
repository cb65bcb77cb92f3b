"""Dense pseudo-relevance feedback's pure rule (``domain/feedback.py``): Rocchio on unit vectors."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.feedback import document_direction, rocchio, unit
from memhtml.domain.vectors import cosine_similarity

DIM = 4
components = st.floats(min_value=-10.0, max_value=10.0, allow_nan=False, allow_infinity=False)
vectors = st.lists(components, min_size=DIM, max_size=DIM).filter(lambda v: math.hypot(*v) > 1e-3)
directions = vectors.map(lambda v: unit(v) or ())
weights = st.floats(min_value=0.0, max_value=5.0, allow_nan=False)


def norm(vector: tuple[float, ...]) -> float:
    """Euclidean length."""
    return math.hypot(*vector)


@given(query=vectors, documents=st.lists(directions, max_size=5), weight=weights)
def test_the_fed_back_query_is_a_unit_vector_or_nothing(
    query: list[float], documents: list[tuple[float, ...]], weight: float
) -> None:
    """Whatever the inputs, the result has length 1 (or the sum cancelled out)."""
    moved = rocchio(query, documents, weight)
    assert moved is None or abs(1.0 - norm(moved)) < 1e-9


@given(query=vectors, documents=st.lists(directions, min_size=1, max_size=5), weight=weights)
def test_feedback_moves_the_query_toward_the_documents_centroid(
    query: list[float], documents: list[tuple[float, ...]], weight: float
) -> None:
    """The new query is at least as close to the documents' mean as the old one (β >= 0)."""
    centroid = [math.fsum(column) / len(documents) for column in zip(*documents, strict=True)]
    moved = rocchio(query, documents, weight)
    if moved is None or norm(tuple(centroid)) < 1e-6:
        return
    assert cosine_similarity(moved, centroid) >= cosine_similarity(query, centroid) - 1e-9


@given(query=vectors, documents=st.lists(directions, max_size=5), data=st.data())
def test_the_order_of_the_documents_does_not_matter(
    query: list[float], documents: list[tuple[float, ...]], data: st.DataObject
) -> None:
    """Feedback reads a set of memories: any permutation gives the same vector (to rounding)."""
    shuffled = data.draw(st.permutations(documents))
    first, second = rocchio(query, documents, 0.5), rocchio(query, shuffled, 0.5)
    assert (first is None) == (second is None)
    if first is not None and second is not None:
        assert all(abs(a - b) < 1e-9 for a, b in zip(first, second, strict=True))


@given(query=vectors, documents=st.lists(directions, max_size=5))
def test_weight_zero_or_no_documents_keeps_the_query_direction(
    query: list[float], documents: list[tuple[float, ...]]
) -> None:
    """β = 0, or nothing to feed back, gives the query's own unit vector."""
    assert unit(query) == rocchio(query, documents, 0.0) == rocchio(query, [], 0.7)


def test_a_query_without_direction_gives_nothing() -> None:
    """A zero query vector cannot be moved: no second fusion."""
    assert rocchio([0.0] * DIM, [(1.0, 0.0, 0.0, 0.0)], 0.5) is None


def test_one_document_at_weight_one_lands_halfway() -> None:
    """Orthogonal unit query and document at β = 1 meet at 45 degrees."""
    moved = rocchio([2.0, 0.0], [(0.0, 1.0)], 1.0)
    assert moved is not None
    assert pytest.approx((math.sqrt(0.5), math.sqrt(0.5))) == moved


def test_documents_of_another_width_are_left_out() -> None:
    """A vector from another space cannot move the query."""
    assert (1.0, 0.0) == rocchio([3.0, 0.0], [(0.0, 0.0, 1.0)], 1.0)


def test_nearest_picks_the_chunk_closest_to_the_query() -> None:
    """A memory gives its chunk nearest the query, scaled to length 1."""
    chunks = [(0.0, 5.0), (3.0, 1.0), (-4.0, 0.0)]
    assert unit((3.0, 1.0)) == document_direction((1.0, 0.0), chunks, "nearest")


def test_mean_averages_the_chunks_unit_vectors() -> None:
    """Each chunk counts once whatever its length; the mean is scaled to length 1."""
    chunks = [(0.0, 5.0), (0.5, 0.0)]
    assert pytest.approx((math.sqrt(0.5), math.sqrt(0.5))) == document_direction(
        (1.0, 0.0), chunks, "mean"
    )


def test_chunks_without_direction_give_nothing() -> None:
    """Zero or other-width chunks leave the memory out of feedback; an unknown pick is a bug."""
    assert document_direction((1.0, 0.0), [(0.0, 0.0), (1.0, 0.0, 0.0)], "nearest") is None
    assert document_direction((1.0, 0.0), [(1.0, 0.0), (-1.0, 0.0)], "mean") is None
    with pytest.raises(ValueError, match="unknown feedback pick"):
        document_direction((1.0, 0.0), [(1.0, 0.0)], "best")


@given(query=vectors, chunks=st.lists(vectors, min_size=1, max_size=4))
def test_nearest_is_at_least_as_close_to_the_query_as_every_chunk(
    query: list[float], chunks: list[list[float]]
) -> None:
    """The picked direction has the largest cosine to the query among the memory's chunks."""
    picked = document_direction(query, chunks, "nearest")
    assert picked is not None
    best = max(cosine_similarity(query, chunk) for chunk in chunks)
    assert cosine_similarity(query, picked) >= best - 1e-9
