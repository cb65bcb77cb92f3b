"""Greedy maximal marginal relevance over the post-polarity order."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.mmr import MMR_LAMBDA, mmr_select
from memhtml.domain.vectors import cosine_similarity
from tests.strategies import optional_vectors

DIVERSIFYING = 0.5
"""A diversifying λ, for the tests of MMR itself (the product default is off)."""


@attrs.frozen(kw_only=True)
class Cand:
    """A minimal MMR candidate: a name, a relevance and maybe a vector."""

    path: str
    score: float
    vector: tuple[float, ...] | None = None


def ranked(vectors: Sequence[tuple[float, ...] | None]) -> list[Cand]:
    """Candidates in fused order, as the polarity step emits them."""
    return [Cand(path=f"p{i}", score=1 / (i + 1), vector=v) for i, v in enumerate(vectors)]


pools = st.lists(optional_vectors, max_size=10).map(ranked)


def test_diversification_is_off_by_default() -> None:
    """λ = 1 by default, chosen on LoCoMo (issue 13); the original tool's 0.5 is a flag away."""
    assert 1.0 == MMR_LAMBDA


def test_a_near_duplicate_yields_to_a_different_candidate() -> None:
    """The second pick skips a copy of the first in favour of a distinct, slightly worse one."""
    pool = ranked([(1.0, 0.0), (1.0, 0.01), (0.0, 1.0)])
    assert ["p0", "p2", "p1"] == [c.path for c in mmr_select(pool, lambda_=DIVERSIFYING)]


def test_vectorless_candidates_take_no_penalty() -> None:
    """A candidate with no vector is never pushed down by an invented similarity."""
    pool = ranked([(1.0, 0.0), None, (0.0, 1.0)])
    assert ["p0", "p1", "p2"] == [c.path for c in mmr_select(pool, lambda_=DIVERSIFYING)]


def test_limit_caps_the_output() -> None:
    """Only `limit` candidates come back."""
    assert ["p0", "p2"] == [
        c.path
        for c in mmr_select(ranked([(1.0, 0.0)] * 2 + [(0.0, 1.0)]), lambda_=DIVERSIFYING, limit=2)
    ]


def test_lambda_one_returns_unsorted_input_unchanged() -> None:
    """At λ ≥ 1 the input order is returned as given, even when it is not sorted by score."""
    pool = [Cand(path="low", score=0.1), Cand(path="high", score=0.9)]
    assert tuple(pool) == mmr_select(pool, lambda_=1.0)


def test_lambda_zero_prefers_diversity_after_the_first_pick() -> None:
    """With relevance weighted 0 the first pick is the earliest, then the most different."""
    pool = ranked([(1.0, 0.0), (1.0, 0.1), (-1.0, 0.0)])
    assert ["p0", "p2", "p1"] == [c.path for c in mmr_select(pool, lambda_=0.0)]


@pytest.mark.parametrize(
    "call",
    [
        lambda: mmr_select(ranked([None]), lambda_=-0.1),
        lambda: mmr_select(ranked([None]), lambda_=float("nan")),
        lambda: mmr_select(ranked([None]), limit=-1),
    ],
    ids=["negative-lambda", "nan-lambda", "negative-limit"],
)
def test_malformed_options_are_refused(call: Callable[[], object]) -> None:
    """A negative or NaN lambda and a negative limit are refused."""
    with pytest.raises(InvalidInput):
        call()


@given(pools, st.one_of(st.none(), st.integers(0, 12)), st.floats(0, 1))
def test_output_is_a_duplicate_free_subset_of_the_right_length(
    pool: list[Cand], limit: int | None, lambda_: float
) -> None:
    """MMR returns min(limit, n) distinct candidates, all from the input."""
    picked = mmr_select(pool, lambda_=lambda_, limit=limit)
    wanted = len(pool) if limit is None else min(limit, len(pool))
    paths = [c.path for c in picked]
    assert (wanted, len(paths), True) == (
        len(paths),
        len(set(paths)),
        set(picked) <= set(pool),
    )


@given(pools, st.one_of(st.none(), st.integers(0, 12)))
def test_lambda_one_is_the_identity(pool: list[Cand], limit: int | None) -> None:
    """λ = 1 reproduces the fused order (cut to the limit)."""
    assert tuple(pool[:limit]) == mmr_select(pool, lambda_=1.0, limit=limit)


@given(pools, st.floats(0, 0.999))
@example(ranked([(1.0, 0.0, 0.0), None, (0.0, 1.0, 0.0), None]), 0.5)
def test_vectorless_candidates_keep_their_relative_order(pool: list[Cand], lambda_: float) -> None:
    """Candidates without vectors come out in the order fusion gave them."""
    picked = mmr_select(pool, lambda_=lambda_)
    expected = [c.path for c in pool if c.vector is None]
    assert expected == [c.path for c in picked if c.vector is None]


@given(pools.filter(bool), st.floats(0, 0.999))
def test_first_pick_is_the_most_relevant(pool: list[Cand], lambda_: float) -> None:
    """Nothing is selected yet at the first step, so relevance alone decides it."""
    assert pool[0] == mmr_select(pool, lambda_=lambda_)[0]


@given(pools, st.floats(0, 0.999))
def test_full_selection_is_a_permutation(pool: list[Cand], lambda_: float) -> None:
    """Without a limit MMR reorders every candidate and drops none."""
    assert sorted(c.path for c in pool) == sorted(c.path for c in mmr_select(pool, lambda_=lambda_))


def test_a_relevant_neighbour_beats_an_unrelated_tail_candidate() -> None:
    """A related hit at position 2 (cosine 0.6 to the first) is not displaced by position 25.

    Pins the linear rank stand-in: under 1/position relevance the unrelated tail candidate won,
    which pushed the best full-text matches out of the demo's top 10.
    """
    top = (1.0, 0.0, 0.0)
    related = (0.6, 0.8, 0.0)
    unrelated = (0.0, 0.0, 1.0)
    near_copy = (0.7, 0.0, 0.714)
    pool = ranked([top, related, *([near_copy] * 22), unrelated, *([near_copy] * 5)])
    picked = mmr_select(pool, lambda_=DIVERSIFYING, limit=2)
    assert ["p0", "p1"] == [c.path for c in picked]


def test_a_supplied_similarity_replaces_the_cosine() -> None:
    """The similarity source decides redundancy: a table calling p1 a copy of p0 pushes it down."""
    pool = ranked([(1.0, 0.0), (0.0, 1.0), (0.0, 1.0)])

    def similarity(i: int, j: int) -> float:
        return 1.0 if {i, j} == {0, 1} else 0.0

    supplied = [c.path for c in mmr_select(pool, lambda_=DIVERSIFYING, similarity=similarity)]
    default = [c.path for c in mmr_select(pool, lambda_=DIVERSIFYING)]
    assert (["p0", "p2", "p1"], ["p0", "p1", "p2"]) == (supplied, default)


@given(pools, st.one_of(st.none(), st.integers(0, 12)), st.floats(0, 0.999))
def test_a_similarity_source_is_asked_only_about_vector_pairs(
    pool: list[Cand], limit: int | None, lambda_: float
) -> None:
    """Pairs with a vectorless side are never asked about, and the picks match the default."""

    def similarity(i: int, j: int) -> float:
        a, b = pool[i].vector, pool[j].vector
        if a is None or b is None:
            pytest.fail(f"asked about ({i}, {j}), a pair with a vectorless side")
        return cosine_similarity(a, b)

    picked = mmr_select(pool, lambda_=lambda_, limit=limit, similarity=similarity)
    assert mmr_select(pool, lambda_=lambda_, limit=limit) == picked
