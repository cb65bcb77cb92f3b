"""Reciprocal rank fusion and the arm registry."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.fusion import (
    RANK_ARMS,
    RRF_K,
    ArmKind,
    ArmNeed,
    ArmSpec,
    Fused,
    active_arms,
)
from memhtml.domain.rrf import fuse
from tests.strategies import ranked_lists, ranking_paths

ARM_NAMES = [arm.name for arm in RANK_ARMS]
QUERY_ARMS = {arm.name for arm in RANK_ARMS if arm.kind is ArmKind.QUERY}
weight_overrides = st.dictionaries(
    st.sampled_from(ARM_NAMES), st.floats(0, 3, allow_nan=False), max_size=len(ARM_NAMES)
)


def formula_score(
    rankings: dict[str, list[str]], path: str, weights: dict[str, float], k: float
) -> float:
    """The fused sum written out independently: registry order, one term per arm."""
    total = 0.0
    for arm in RANK_ARMS:
        paths = rankings.get(arm.name, [])
        if path in paths:
            total += weights.get(arm.name, arm.weight) / (paths.index(path) + 1 + k)
    return total


def test_registry_holds_the_seed_arms_in_fold_order() -> None:
    """The registry is fts, context, vector, recency, salience: the original tool's arms and weights
    except vector, halved on our LoCoMo runs (docs/decisions.md §12), plus the contextual full-text
    arm (docs/ranking.md §2.5); then the opt-in entity arm (issue 15) at 1, the opt-in session arm
    (§2.9) at 0.25, the time arm (§2.8) at 1.5 and its word-ranked twin at 1, and the graph arm
    at 0.5, last because it starts from the others."""
    expected = [
        ("fts", 1.0),
        ("context", 1.0),
        ("vector", 0.5),
        ("recency", 0.5),
        ("salience", 0.4),
        ("entity", 1.0),
        ("session", 0.25),
        ("time", 1.5),
        ("time_words", 1.0),
        ("graph", 0.5),
    ]
    assert expected == [(arm.name, arm.weight) for arm in RANK_ARMS]


def test_each_arm_declares_what_it_needs() -> None:
    """Both full-text arms and the session arm need terms, vector a query vector, salience the
    state plane, entity the query's entities, time the query's day windows (the planner offers
    them only beside a vector or terms), time_words the windows, the terms and the vector (without
    a vector the time arm ranks by the terms itself), recency nothing; graph needs another query
    arm to seed it."""
    expected = {
        "fts": (frozenset({ArmNeed.QUERY_TERMS}), False),
        "context": (frozenset({ArmNeed.QUERY_TERMS}), False),
        "vector": (frozenset({ArmNeed.QUERY_VECTOR}), False),
        "recency": (frozenset(), False),
        "salience": (frozenset({ArmNeed.STATE}), False),
        "entity": (frozenset({ArmNeed.QUERY_ENTITIES}), False),
        "session": (frozenset({ArmNeed.QUERY_TERMS}), False),
        "time": (frozenset({ArmNeed.QUERY_WINDOWS}), False),
        "time_words": (
            frozenset({ArmNeed.QUERY_WINDOWS, ArmNeed.QUERY_VECTOR, ArmNeed.QUERY_TERMS}),
            False,
        ),
        "graph": (frozenset(), True),
    }
    assert expected == {arm.name: (arm.needs, arm.seeded) for arm in RANK_ARMS}


def test_rrf_constant_is_twenty() -> None:
    """The damping constant is 20, chosen on LoCoMo over the original tool's 60
    (docs/decisions.md §12)."""
    assert 20 == RRF_K


def test_active_arms_drop_an_arm_whose_input_is_missing() -> None:
    """Without a query vector the vector arm leaves the fold and the rest keep registry order."""
    available = {ArmNeed.QUERY_TERMS, ArmNeed.STATE}
    expected = ["fts", "context", "recency", "salience", "graph"]
    assert expected == [a.name for a in active_arms(available)]


def test_the_entity_arm_fires_only_when_selected() -> None:
    """The entity arm is opt-in: with every input present the default set is the eight
    evaluated arms (graph and both time arms among them since they were measured), and naming
    it in the selection adds it."""
    everything = set(ArmNeed)
    assert (
        ["fts", "context", "vector", "recency", "salience", "time", "time_words", "graph"],
        ["fts", "entity", "graph"],
    ) == (
        [a.name for a in active_arms(everything)],
        [a.name for a in active_arms(everything, selection=["graph", "entity", "fts"])],
    )


def test_active_arms_with_nothing_available_keep_recency() -> None:
    """Recency needs no input, so it is the one arm that always fires; the graph arm has no
    seeds without a query arm and stays out."""
    assert ["recency"] == [a.name for a in active_arms(set())]


def test_the_graph_arm_needs_a_query_arm_beside_it() -> None:
    """Selected alone, or beside priors only, the graph arm has nothing to start from."""
    everything = set(ArmNeed)
    assert ([], ["recency"], ["entity", "graph"]) == (
        [a.name for a in active_arms(everything, selection=["graph"])],
        [a.name for a in active_arms(everything, selection=["graph", "recency"])],
        [a.name for a in active_arms(everything, selection=["graph", "entity"])],
    )


def test_active_arms_honour_the_callers_selection() -> None:
    """A selection narrows the firing arms but cannot revive one whose input is missing."""
    selected = active_arms({ArmNeed.QUERY_TERMS}, selection=["vector", "fts"])
    assert ["fts"] == [a.name for a in selected]


def test_active_arms_refuse_an_unknown_name() -> None:
    """A typo in the arm selection is refused rather than silently dropping an arm."""
    with pytest.raises(InvalidInput, match="vektor"):
        active_arms(set(ArmNeed), selection=["vektor"])


def test_a_new_arm_joins_by_registry_entry() -> None:
    """An extra registry entry fires and fuses with no other change."""
    extra = ArmSpec(name="extra", weight=0.3, kind=ArmKind.QUERY, needs=frozenset())
    arms = (*RANK_ARMS, extra)
    fired = [a.name for a in active_arms(set(), arms=arms)]
    fused = fuse({"extra": ["a"]}, arms=arms)
    # A new query arm also seeds the graph arm, which is in the default set.
    expected = ["recency", "graph", "extra"]
    assert (expected, (Fused(path="a", score=0.3 / 21, ranks=(("extra", 1),)),)) == (
        fired,
        fused,
    )


def test_fuse_sums_weighted_reciprocal_ranks() -> None:
    """A path ranked 1 by fts and 2 by recency scores 1/21 + 0.5/22."""
    fused = fuse({"fts": ["a", "b"], "recency": ["b", "a"]})
    expected = (
        Fused(path="a", score=1 / 21 + 0.5 / 22, ranks=(("fts", 1), ("recency", 2))),
        Fused(path="b", score=1 / 22 + 0.5 / 21, ranks=(("fts", 2), ("recency", 1))),
    )
    assert expected == fused


def test_equal_scores_break_by_plain_string_order() -> None:
    """Two paths with the same sum come out in str order, uppercase before lowercase."""
    fused = fuse({"fts": ["b"], "vector": ["B"]}, weights={"vector": 1.0})
    assert ["B", "b"] == [f.path for f in fused]


def test_empty_arm_set_gives_an_empty_result() -> None:
    """No arm fired means no candidates, never an error."""
    assert () == fuse({})


def test_weight_and_k_overrides_apply() -> None:
    """Per-arm weights and the RRF constant can be overridden (docs/decisions.md §12)."""
    fused = fuse({"fts": ["a"], "vector": ["a"]}, weights={"vector": 2.0}, k=60)
    assert [1.0 / 61 + 2.0 / 61] == [f.score for f in fused]


def test_limit_keeps_the_best() -> None:
    """A limit cuts the ordered list, never reorders it."""
    assert ["a"] == [f.path for f in fuse({"fts": ["a", "b", "c"]}, limit=1)]


def test_gated_priors_drop_paths_no_query_arm_found() -> None:
    """Gated, a recency-only path is dropped and the prior renumbers over the query's candidates."""
    fused = fuse({"fts": ["a"], "recency": ["z", "a"]}, gate_priors=True)
    expected = (Fused(path="a", score=1 / 21 + 0.5 / 21, ranks=(("fts", 1), ("recency", 1))),)
    assert expected == fused


def test_gate_passes_priors_when_no_query_arm_ran() -> None:
    """A query with no terms and no vector still gets the priors' list under the gate."""
    rankings = {"recency": ["z", "a"], "salience": ["a"]}
    assert fuse(rankings) == fuse(rankings, gate_priors=True)


def test_gate_with_an_empty_query_arm_empties_the_result() -> None:
    """A query arm that ran and found nothing gates every prior-only path away."""
    assert () == fuse({"fts": [], "recency": ["z"]}, gate_priors=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda: fuse({"bm25": ["a"]}),
        lambda: fuse({"fts": ["a"]}, weights={"nope": 1.0}),
        lambda: fuse({"fts": ["a"]}, weights={"fts": -1.0}),
        lambda: fuse({"fts": ["a"]}, weights={"fts": math.nan}),
        lambda: fuse({"fts": ["a"]}, k=-1),
        lambda: fuse({"fts": ["a"]}, k=math.inf),
        lambda: fuse({"fts": ["a"]}, limit=-1),
        lambda: fuse({"fts": ["a", "a"]}),
    ],
    ids=["arm", "weight-arm", "negative-weight", "nan-weight", "k", "inf-k", "limit", "dup"],
)
def test_fuse_refuses_malformed_options(call: Callable[[], object]) -> None:
    """Unknown arms, bad weights, bad k, a negative limit and a repeated path are refused."""
    with pytest.raises(InvalidInput):
        call()


@given(ranked_lists(ARM_NAMES))
def test_output_is_a_permutation_of_the_union(rankings: dict[str, list[str]]) -> None:
    """Every path any arm returned appears exactly once."""
    union = sorted({p for paths in rankings.values() for p in paths})
    assert union == sorted(f.path for f in fuse(rankings))


@given(ranked_lists(ARM_NAMES))
def test_gated_output_drops_exactly_the_prior_only_paths(rankings: dict[str, list[str]]) -> None:
    """Under the gate the output is the union minus paths only prior arms returned."""
    union = {p for paths in rankings.values() for p in paths}
    found = {p for name, paths in rankings.items() if name in QUERY_ARMS for p in paths}
    expected = found if any(name in QUERY_ARMS for name in rankings) else union
    assert sorted(expected) == sorted(f.path for f in fuse(rankings, gate_priors=True))


@given(ranked_lists(ARM_NAMES), weight_overrides, st.sampled_from([0, 1, 20, 60]))
@example({"fts": ["a"], "vector": ["b"]}, {}, 60)
def test_order_is_score_descending_then_path(
    rankings: dict[str, list[str]], weights: dict[str, float], k: int
) -> None:
    """Results are sorted by score descending and equal scores by path ascending."""
    keys = [(-f.score, f.path) for f in fuse(rankings, weights=weights, k=k)]
    assert sorted(keys) == keys


@given(ranked_lists(ARM_NAMES), weight_overrides, st.sampled_from([0, 1, 20, 60]))
def test_score_equals_the_formula(
    rankings: dict[str, list[str]], weights: dict[str, float], k: int
) -> None:
    """Each score is exactly Σ weight / (rank + k) summed in registry order."""
    fused = fuse(rankings, weights=weights, k=k)
    expected = {f.path: formula_score(rankings, f.path, weights, k) for f in fused}
    assert expected == {f.path: f.score for f in fused}


@given(ranked_lists(ARM_NAMES))
def test_ranks_report_each_arms_position(rankings: dict[str, list[str]]) -> None:
    """A hit's ranks name every arm that returned it, with its 1-based position there."""
    fused = fuse(rankings)
    expected = {
        f.path: tuple(
            (arm.name, rankings[arm.name].index(f.path) + 1)
            for arm in RANK_ARMS
            if f.path in rankings.get(arm.name, [])
        )
        for f in fused
    }
    assert expected == {f.path: f.ranks for f in fused}


@given(
    ranked_lists(ARM_NAMES),
    st.sampled_from(ARM_NAMES),
    ranking_paths,
    st.integers(0, 12),
    st.booleans(),
)
def test_adding_a_path_to_an_arm_never_lowers_its_score(
    rankings: dict[str, list[str]], arm: str, path: str, at: int, gated: bool
) -> None:
    """Inserting a path into one more arm's list never lowers that path's fused score."""

    def score_of(lists: dict[str, list[str]]) -> float:
        return next((f.score for f in fuse(lists, gate_priors=gated) if f.path == path), 0.0)

    without = dict(rankings)
    without[arm] = [p for p in rankings.get(arm, []) if p != path]
    grown = dict(without)
    grown[arm] = [*without[arm][:at], path, *without[arm][at:]]
    assert score_of(grown) >= score_of(without)


@given(ranked_lists(ARM_NAMES), st.data(), st.booleans())
def test_result_ignores_dict_insertion_order(
    rankings: dict[str, list[str]], data: st.DataObject, gated: bool
) -> None:
    """The same rankings given in another key order fuse to the same result, bit for bit."""
    names = data.draw(st.permutations(list(rankings)))
    shuffled = {name: rankings[name] for name in names}
    assert fuse(rankings, gate_priors=gated) == fuse(shuffled, gate_priors=gated)


@given(ranked_lists(ARM_NAMES), st.integers(0, 30))
def test_limit_is_a_prefix(rankings: dict[str, list[str]], limit: int) -> None:
    """A limited result is the first `limit` entries of the unlimited one."""
    assert fuse(rankings)[:limit] == fuse(rankings, limit=limit)


@settings(max_examples=300)
@given(
    rankings=ranked_lists([arm.name for arm in RANK_ARMS]),
    bound=st.floats(0, 0.047, allow_nan=False),
    gate=st.booleans(),
)
def test_first_in_every_query_arm_stays_first_under_bounded_priors(
    rankings: dict[str, list[str]], bound: float, gate: bool
) -> None:
    """With priors bounded below 1/(k+1), a path every fired query arm ranks first is first,
    whatever recency and salience say (query evidence first)."""
    query = [a.name for a in RANK_ARMS if a.kind is ArmKind.QUERY and rankings.get(a.name)]
    assume(query)
    top = rankings[query[0]][0]
    for name in query:  # the same path first in every query arm that ranked anything
        rankings[name] = [top, *(path for path in rankings[name] if path != top)]
    fused = fuse(rankings, prior_bound=bound, gate_priors=gate)
    assert top == fused[0].path


@given(rankings=ranked_lists([arm.name for arm in RANK_ARMS]))
def test_bounded_priors_never_lift_a_memory_without_query_evidence(
    rankings: dict[str, list[str]],
) -> None:
    """Prior-only candidates score 0 under a bound, below every query match."""
    assume(any(a.kind is ArmKind.QUERY and a.name in rankings for a in RANK_ARMS))
    queried = {p for a in RANK_ARMS if a.kind is ArmKind.QUERY for p in rankings.get(a.name, [])}
    fused = fuse(rankings, prior_bound=0.04)
    seen_prior_only = False
    for item in fused:
        if item.path in queried:
            assert not seen_prior_only
        else:
            seen_prior_only = True
            assert 0.0 == item.score


@given(rankings=ranked_lists([a.name for a in RANK_ARMS if a.kind is ArmKind.PRIOR]))
def test_a_bound_without_any_query_arm_adds_the_priors(rankings: dict[str, list[str]]) -> None:
    """With only priors firing there is nothing to bound: the fold is the unbounded one."""
    assert fuse(rankings) == fuse(rankings, prior_bound=0.04)


def test_the_word_ranked_time_arm_fires_only_beside_a_vector() -> None:
    """Without a query vector the time arm ranks its windows by the terms itself, so its
    word-ranked twin stays out and the words are not counted twice; with one, both fire."""
    dated = {ArmNeed.QUERY_TERMS, ArmNeed.QUERY_WINDOWS}
    assert (["time"], ["time", "time_words"]) == (
        [a.name for a in active_arms(dated) if a.name.startswith("time")],
        [a.name for a in active_arms(dated | {ArmNeed.QUERY_VECTOR}) if a.name.startswith("time")],
    )
