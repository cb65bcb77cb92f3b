"""The numpy cosine table against the pure cosines it replaces: same values, same picks.

Vectors have small integer components, so every dot product and squared norm is exact in both
paths (and in float32 storage) and a tie in the pure path is a real tie the table must break
the same way.
"""

from __future__ import annotations

import importlib
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.numpy.cosine_table import (
    PURE_PRODUCTS_WORTH_AN_IMPORT,
    NumpyPairwiseCosine,
    cosine_table,
    table_pays_off,
)
from memhtml.app.retrieval.polarity_pool import PolarityPool, polarity_pool
from memhtml.domain.fusion import Fused
from memhtml.domain.mmr import mmr_select
from memhtml.domain.vectors import cosine_similarity, pack_f32
from memhtml.ports.candidate_store import CandidateRow

# Components in -3..3 make zero vectors, exact duplicates, opposite and orthogonal pairs, and
# cosines on both sides of the 0.9 twin line common.
IntVector = tuple[float, ...]
pools = st.integers(1, 4).flatmap(
    lambda dim: st.lists(
        st.one_of(
            st.none(),
            st.tuples(*[st.integers(-3, 3).map(float)] * dim),
        ),
        max_size=12,
    )
)
# (negated?, vector, has a candidate row?) per fused path, best first.
fused_specs = pools.flatmap(
    lambda vectors: st.tuples(
        *[st.tuples(st.booleans(), st.just(v), st.booleans()) for v in vectors]
    ).map(list)
)
lambdas = st.sampled_from([0.0, 0.25, 0.5, 0.75, 0.9])


def candidate(gist: str, vector: IntVector | None) -> CandidateRow:
    """A candidate row as the index stores it: the vector as a float32 blob."""
    return CandidateRow(
        title=gist,
        gist=gist,
        memory_type="fact",
        confidence=1.0,
        updated_at="2026-01-01T00:00:00Z",
        disclosure_text=gist,
        vector_blob=None if vector is None else pack_f32(vector),
        superseded_by=None,
    )


# No deadline: whichever example first builds a table pays numpy's lazy import (~0.2 s).
@settings(deadline=None)
@given(pools)
@example([(1.0, 2.0, 3.0), (0.0, 0.0, 0.0), (-1.0, -2.0, -3.0), None, (3.0, 2.0, 1.0)])
def test_every_cell_equals_the_pure_cosine(vectors: list[IntVector | None]) -> None:
    """Each vector pair's table cell is bit for bit what cosine_similarity gives."""
    table = cosine_table([None if v is None else pack_f32(v) for v in vectors])
    if sum(v is not None for v in vectors) < 2:
        assert table is None
        return
    assert table is not None
    pairs = [
        (i, j, a, b)
        for i, a in enumerate(vectors)
        for j, b in enumerate(vectors)
        if a is not None and b is not None
    ]
    assert [cosine_similarity(a, b) for _, _, a, b in pairs] == [
        table(i, j) for i, j, _, _ in pairs
    ]


@settings(deadline=None)
@given(fused_specs, st.booleans(), lambdas, st.one_of(st.none(), st.integers(0, 12)))
@example(
    [
        (True, (3.0, 1.0), True),
        (False, (3.0, 0.0), True),
        (False, (0.0, 1.0), True),
        (False, (0.0, 1.0), True),
    ],
    False,
    0.5,
    None,
)
def test_the_table_fed_steps_pick_exactly_what_the_pure_steps_pick(
    spec: list[tuple[bool, IntVector | None, bool]],
    negated_query: bool,
    lambda_: float,
    limit: int | None,
) -> None:
    """Polarity then MMR through the table give the pure path's scores, order and picks."""
    fused = [Fused(path=f"p{i}", score=1.0, ranks=()) for i in range(len(spec))]
    candidates = {
        f"p{i}": candidate("x not" if negated else "x", vector)
        for i, (negated, vector, has_row) in enumerate(spec)
        if has_row
    }
    query = "q not" if negated_query else "q"
    tabled = polarity_pool(
        fused, candidates, query, similarity=NumpyPairwiseCosine(), force_table=True
    )
    pure = polarity_pool(fused, candidates, query, similarity=None)
    with_vectors = sum(c.vector_blob is not None for c in candidates.values())
    assert (with_vectors > 1, pure.scored, picks(pure, lambda_, limit)) == (
        tabled.mmr_similarity is not None,
        tabled.scored,
        picks(tabled, lambda_, limit),
    )


def picks(pool: PolarityPool, lambda_: float, limit: int | None) -> list[str]:
    """The paths MMR picks from a polarity pool, through whatever similarity the pool carries."""
    picked = mmr_select(pool.scored, lambda_=lambda_, limit=limit, similarity=pool.mmr_similarity)
    return [s.path for s in picked]


def test_blobs_of_different_widths_get_no_table() -> None:
    """A corrupt index (mixed widths) falls back to the pure path and its length error."""
    assert cosine_table([pack_f32((1.0, 0.0)), pack_f32((1.0, 0.0, 0.0))]) is None


def test_a_table_pays_off_only_past_the_import_cost_while_numpy_is_not_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without numpy in memory a pool needs pairs × width past the threshold to build a table."""
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    width = 1024
    pairs_needed = -(-PURE_PRODUCTS_WORTH_AN_IMPORT // width)
    count = next(n for n in range(2, 10_000) if n * (n - 1) // 2 >= pairs_needed)
    blob = pack_f32([1.0] * width)
    assert (False, True, False) == (
        table_pays_off([blob] * (count - 1)),
        table_pays_off([blob] * count),
        table_pays_off([blob, None, None]),
    )


def test_with_numpy_loaded_any_pair_pays_off() -> None:
    """Once numpy is in memory the import is paid, so two vectors are enough."""
    importlib.import_module("numpy")
    blob = pack_f32((1.0, 0.0))
    assert (True, False) == (table_pays_off([blob, blob]), table_pays_off([blob, None]))


class CountingCosine:
    """The numpy port, counting the tables it is asked for."""

    def __init__(self) -> None:
        self.tables = 0

    def table(self, vectors: list[bytes | None], *, force: bool = False) -> object:
        self.tables += 1
        return NumpyPairwiseCosine().table(vectors, force=True)


def test_no_table_is_built_until_polarity_or_mmr_asks_for_a_cosine() -> None:
    """With every gist agreeing with the query and MMR off, a search pays for no table; the
    first cosine MMR asks for builds it once, and it agrees with the pure path."""
    vectors = [(1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    fused = [Fused(path=f"p{i}", score=1.0, ranks=()) for i in range(3)]
    rows = {f"p{i}": candidate("x", v) for i, v in enumerate(vectors)}
    counting = CountingCosine()
    pool = polarity_pool(fused, rows, "q", similarity=counting)  # type: ignore[arg-type]
    assert (counting.tables, mmr_select(pool.scored, lambda_=1.0, limit=2)) == (
        0,
        pool.scored[:2],
    )
    assert pool.mmr_similarity is not None
    similarities = [pool.mmr_similarity(0, 1), pool.mmr_similarity(1, 2)]
    assert (counting.tables, similarities) == (
        1,
        [cosine_similarity(vectors[0], vectors[1]), cosine_similarity(vectors[1], vectors[2])],
    )


def test_a_candidate_that_disagrees_with_the_query_builds_the_table_for_polarity() -> None:
    """A negated near-twin of an agreeing candidate is compared, so the table is built once."""
    fused = [Fused(path=f"p{i}", score=1.0, ranks=()) for i in range(2)]
    rows = {"p0": candidate("x not", (1.0, 0.0)), "p1": candidate("x", (1.0, 0.0))}
    counting = CountingCosine()
    pool = polarity_pool(fused, rows, "q", similarity=counting)  # type: ignore[arg-type]
    assert (counting.tables, [s.path for s in pool.scored]) == (1, ["p1", "p0"])
