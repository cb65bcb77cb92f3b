"""Negation markers and the near-twin demotion between fusion and MMR."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.polarity import (
    NEGATION_MARKERS,
    POLARITY_DEMOTION,
    TWIN_COSINE,
    PolarityCandidate,
    PolarityScored,
    is_negated,
    polarity_scored,
    polarity_tokens,
)
from memhtml.domain.vectors import cosine_similarity
from tests.strategies import gist_stems, optional_vectors

# Copied verbatim from docs/decisions.md §9, so a drift in either place shows up here.
DECISION_9_MARKERS = (
    "not no never none cannot without neither nor avoid disallow disallowed forbidden "
    "unsafe invalid false fail fails failed deny denied reject rejected"
)
SAME = (1.0, 0.0, 0.0)
NEAR = (0.98, 0.15, 0.0)  # cosine with SAME ≈ 0.9885, a twin
APART = (0.0, 1.0, 0.0)

# (stem, negated, vector) rows; a pool is a list of them in fused order.
rows = st.lists(st.tuples(gist_stems, st.booleans(), optional_vectors), max_size=8)


def gist(stem: str, negated: bool) -> str:
    """A gist that reads negated exactly when asked."""
    return f"{stem} not" if negated else stem


def pool_of(spec: list[tuple[str, bool, tuple[float, ...] | None]]) -> list[PolarityCandidate]:
    """Candidates p0, p1, … in fused order."""
    return [
        PolarityCandidate(path=f"p{i}", gist=gist(stem, neg), vector=vector)
        for i, (stem, neg, vector) in enumerate(spec)
    ]


def paths(candidates: tuple[PolarityScored, ...]) -> list[str]:
    """The path order of a scored result."""
    return [c.path for c in candidates]


def test_marker_set_is_exactly_decision_nine() -> None:
    """The marker list is docs/decisions.md §9's, word for word."""
    assert set(DECISION_9_MARKERS.split()) == NEGATION_MARKERS


def test_constants_match_the_seed() -> None:
    """Twins sit at cosine 0.9 or above and a demoted twin takes half its anchor's score."""
    assert (0.9, 0.5) == (TWIN_COSINE, POLARITY_DEMOTION)


def test_tokens_expand_contractions_and_keep_versions() -> None:
    """n't becomes not (ASCII or typographic apostrophe) and 1.2.3 stays one token."""
    expected = ("it", "does", "not", "merge", "v1.2.3", "ca", "not")
    assert expected == polarity_tokens("It DOESN'T merge v1.2.3, can\u2019t")


def test_contraction_with_typographic_apostrophe_is_negated() -> None:
    """ "doesn’t" (U+2019) reads negated like "doesn't"."""
    assert (True, True) == (is_negated("X doesn’t merge"), is_negated("X doesn't merge"))


def test_markers_match_whole_tokens_only() -> None:
    """ "note", "know" and "failure" hold marker letters but are not markers."""
    assert False is is_negated("a note about know-how and failure modes")


def test_nfc_and_case_are_folded_before_matching() -> None:
    """Uppercase markers count; normalisation runs before lowercasing."""
    assert True is is_negated("NEVER deploy on FRIDAY")


def test_outcome_words_read_as_negated() -> None:
    """The original tool's trade-off: "deploy without downtime" reads negated."""
    assert True is is_negated("deploy without downtime")


def test_disagreeing_twin_drops_below_its_agreeing_twin() -> None:
    """An affirmative query moves the negated twin ranked first below the affirmative one."""
    pool = pool_of([("x merges", True, SAME), ("x merges", False, NEAR), ("other", False, APART)])
    scored = polarity_scored(pool, "does x merge intervals")
    demoted = next(s for s in scored if s.path == "p0")
    assert (["p1", "p2", "p0"], 0.5 * 0.5, True) == (paths(scored), demoted.score, demoted.demoted)


def test_step_is_symmetric_in_the_query() -> None:
    """A negated query demotes the affirmative twin instead."""
    pool = pool_of([("x merges", False, SAME), ("x merges", True, NEAR)])
    assert ["p1", "p0"] == paths(polarity_scored(pool, "why does x not merge"))


def test_lone_negation_stays_where_fusion_put_it() -> None:
    """A negated memory with no affirmative near-copy is not penalised."""
    pool = pool_of([("x merges", True, SAME), ("other", False, APART)])
    assert ["p0", "p1"] == paths(polarity_scored(pool, "does x merge"))


def test_twin_already_below_is_left_alone() -> None:
    """A disagreeing twin fusion already ranked below every agreeing copy keeps its place."""
    pool = pool_of([("x merges", False, SAME), ("y", False, APART), ("x merges", True, NEAR)])
    scored = polarity_scored(pool, "does x merge")
    assert (["p0", "p1", "p2"], False) == (paths(scored), scored[2].demoted)


def test_demotion_anchors_on_the_lowest_ranked_agreeing_twin() -> None:
    """With two agreeing twins the demoted one lands below the later of them."""
    pool = pool_of(
        [
            ("x", True, SAME),
            ("x", False, SAME),
            ("y", False, APART),
            ("x", False, NEAR),
            ("z", False, APART),
        ]
    )
    scored = polarity_scored(pool, "x")
    expected = (["p1", "p2", "p3", "p4", "p0"], (1 / 4) * POLARITY_DEMOTION)
    assert expected == (paths(scored), next(s.score for s in scored if s.path == "p0"))


def test_tie_with_a_later_candidate_keeps_fused_order() -> None:
    """A demoted score equal to a later candidate's keeps the earlier fused position first."""
    pool = pool_of([("x", True, SAME), ("x", False, NEAR), ("y", False, None), ("z", False, None)])
    # p0 demoted to 1/2 * 0.5 = 1/4, the same score as p3 at position 4.
    assert ["p1", "p2", "p0", "p3"] == paths(polarity_scored(pool, "x"))


def test_scores_are_reciprocal_ranks_without_demotion() -> None:
    """Each undemoted candidate scores 1/position in the fused order."""
    pool = pool_of([("a", False, None), ("b", True, None), ("c", False, None)])
    assert [1.0, 0.5, 1 / 3] == [s.score for s in polarity_scored(pool, "a")]


@given(rows, st.booleans())
def test_output_is_a_permutation(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """Every candidate comes back exactly once."""
    pool = pool_of(spec)
    assert sorted(c.path for c in pool) == sorted(paths(polarity_scored(pool, gist("q", q))))


@given(rows, st.booleans())
def test_pools_without_vectors_keep_fused_order(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """With no vectors there are no twins, so nothing moves."""
    pool = pool_of([(stem, neg, None) for stem, neg, _ in spec])
    assert [c.path for c in pool] == paths(polarity_scored(pool, gist("q", q)))


@given(rows, st.booleans())
def test_pools_that_all_agree_keep_fused_order(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """When every gist agrees with the query nothing disagrees, so nothing moves."""
    pool = pool_of([(stem, q, vector) for stem, _, vector in spec])
    assert [c.path for c in pool] == paths(polarity_scored(pool, gist("q", q)))


@given(rows, st.booleans())
@example([("x", True, (1.0, 0.0, 0.0)), ("x", False, (0.98, 0.15, 0.0))], False)
def test_flipping_every_polarity_gives_the_same_order(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """Negating the query and every gist together changes nothing."""
    pool = pool_of(spec)
    flipped = pool_of([(stem, not neg, vector) for stem, neg, vector in spec])
    before = polarity_scored(pool, gist("q", q))
    after = polarity_scored(flipped, gist("q", not q))
    assert [(s.path, s.score) for s in before] == [(s.path, s.score) for s in after]


@given(rows, st.booleans())
@example([("x", True, (1.0, 0.0, 0.0)), ("x", False, (0.98, 0.15, 0.0))], False)
def test_a_demoted_candidate_ends_below_an_agreeing_twin(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """Each demoted candidate lands after at least one agreeing near-twin it was above."""
    query = gist("q", q)
    scored = polarity_scored(pool_of(spec), query)
    order = {s.path: i for i, s in enumerate(scored)}
    for s in scored:
        if not s.demoted:
            continue
        twins_above = [
            t
            for t in scored
            if is_negated(t.gist) == is_negated(query)
            and t.vector is not None
            and s.vector is not None
            and cosine_similarity(s.vector, t.vector) >= TWIN_COSINE
            and order[t.path] < order[s.path]
            and t.position > s.position
        ]
        assert [] != twins_above


@given(rows, st.booleans())
def test_only_disagreeing_candidates_with_a_later_twin_are_demoted(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """Demotion needs disagreement, an agreeing near-twin, and that twin ranked lower."""
    query = gist("q", q)
    scored = polarity_scored(pool_of(spec), query)

    def should_demote(s: PolarityScored) -> bool:
        if is_negated(s.gist) == is_negated(query) or s.vector is None:
            return False
        return any(
            is_negated(t.gist) == is_negated(query)
            and t.vector is not None
            and cosine_similarity(s.vector, t.vector) >= TWIN_COSINE
            and t.position > s.position
            for t in scored
        )

    assert [should_demote(s) for s in scored] == [s.demoted for s in scored]


@given(rows, st.booleans())
def test_result_is_sorted_by_score_then_fused_position(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """The re-sort is by score descending, equal scores by fused position."""
    keys = [(-s.score, s.position) for s in polarity_scored(pool_of(spec), gist("q", q))]
    assert sorted(keys) == keys


def test_a_supplied_similarity_decides_who_is_a_twin() -> None:
    """With a similarity source the vectors' own cosine is not consulted: it makes the twins."""
    pool = pool_of([("x", True, APART), ("x", False, SAME), ("y", False, SAME)])
    scored = polarity_scored(pool, "x", similarity=lambda i, j: 1.0 if {i, j} == {0, 1} else 0.0)
    assert (["p1", "p2", "p0"], ["p0", "p1", "p2"]) == (
        paths(scored),
        paths(polarity_scored(pool, "x")),
    )


@given(rows, st.booleans())
def test_only_pairs_with_the_agreeing_side_ranked_lower_are_compared(
    spec: list[tuple[str, bool, tuple[float, ...] | None]], q: bool
) -> None:
    """The step asks (disagreeing i, agreeing j) with j below i and both with vectors, nothing else.

    A twin above i could never move it, so comparing it would be wasted work; the answer must
    still equal the pure default's.
    """
    pool = pool_of(spec)
    query = gist("q", q)
    asked: list[tuple[int, int]] = []

    def similarity(i: int, j: int) -> float:
        asked.append((i, j))
        a, b = pool[i].vector, pool[j].vector
        if a is None or b is None:
            pytest.fail(f"asked about ({i}, {j}), a pair with a vectorless side")
        return cosine_similarity(a, b)

    scored = polarity_scored(pool, query, similarity=similarity)
    wanted = is_negated(query)
    assert (polarity_scored(pool, query), True) == (
        scored,
        all(
            i < j and is_negated(pool[i].gist) != wanted and is_negated(pool[j].gist) == wanted
            for i, j in asked
        ),
    )
