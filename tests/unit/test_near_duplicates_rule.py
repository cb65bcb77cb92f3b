"""The near-duplicate keep rule (``domain/near_duplicates.ranked_near``): floor, order, cap,
exclusion."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.near_duplicates import ranked_near


@attrs.frozen(kw_only=True)
class Neighbour:
    """A scored neighbour as the rule sees one."""

    path: str
    similarity: float


paths = st.sampled_from([f"areas/x/m{i}.html" for i in range(12)])
similarities = st.floats(-1.0, 1.0, allow_nan=False)
neighbours = st.lists(
    st.builds(Neighbour, path=paths, similarity=similarities),
    max_size=20,
    unique_by=lambda n: n.path,
)
floors = st.floats(-1.0, 1.0, allow_nan=False)
limits = st.integers(-2, 25)


@given(neighbours, floors, limits)
def test_every_kept_neighbour_is_at_or_above_the_floor(
    scored: list[Neighbour], floor: float, limit: int
) -> None:
    """Nothing under the floor is kept."""
    kept = ranked_near(scored, floor=floor, limit=limit)
    assert [] == [n for n in kept if n.similarity < floor]


@given(neighbours, floors, limits)
def test_kept_are_most_similar_first_then_by_path(
    scored: list[Neighbour], floor: float, limit: int
) -> None:
    """The order is similarity descending, path ascending on ties."""
    kept = ranked_near(scored, floor=floor, limit=limit)
    expected = sorted(kept, key=lambda n: (-n.similarity, n.path))
    assert expected == list(kept)


@given(neighbours, floors, limits)
def test_the_cap_keeps_the_best_and_only_drops_by_the_cap(
    scored: list[Neighbour], floor: float, limit: int
) -> None:
    """At most ``limit`` are kept; what is dropped above the floor ranks after every kept one."""
    kept = ranked_near(scored, floor=floor, limit=limit)
    eligible = [n for n in scored if n.similarity >= floor]
    assert min(len(eligible), max(limit, 0)) == len(kept)
    dropped = [n for n in eligible if n not in kept]
    for lost in dropped:
        assert all((-k.similarity, k.path) < (-lost.similarity, lost.path) for k in kept)


@given(neighbours, floors, limits, st.sets(paths, max_size=4))
def test_an_excluded_path_is_never_kept_and_frees_its_slot(
    scored: list[Neighbour], floor: float, limit: int, excluded: set[str]
) -> None:
    """Excluding paths is the same as never having scored them."""
    kept = ranked_near(scored, floor=floor, limit=limit, excluded=excluded)
    without = [n for n in scored if n.path not in excluded]
    assert ranked_near(without, floor=floor, limit=limit) == kept
    assert set() == {n.path for n in kept} & excluded


@given(neighbours, floors)
def test_a_larger_cap_extends_the_list_without_reordering_it(
    scored: list[Neighbour], floor: float
) -> None:
    """The answer under cap k is the first k of the answer under a larger cap."""
    full = ranked_near(scored, floor=floor, limit=len(scored) + 1)
    for k in range(len(scored) + 1):
        assert full[:k] == ranked_near(scored, floor=floor, limit=k)


def test_the_floor_is_inclusive() -> None:
    """A neighbour exactly at the floor is kept; one a hair under is not."""
    at = Neighbour(path="a", similarity=0.93)
    under = Neighbour(path="b", similarity=0.9299999)
    assert (at,) == ranked_near([under, at], floor=0.93, limit=5)
