"""The retrieval port's request values: the ablation switches and limits they accept."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.fusion import RANK_ARMS
from memhtml.ports.retrieval import (
    MAX_SEARCH_LIMIT,
    RankingOptions,
    RecallRequest,
    SearchRequest,
)

ARM_NAMES = [arm.name for arm in RANK_ARMS]


def test_the_defaults_are_the_ungated_fold_with_our_constants() -> None:
    """No switch set: every arm, no gate, k = 20, registry weights, stopwords dropped."""
    options = RankingOptions()
    assert (None, False, 20, (), True) == (
        options.arms,
        options.gate_priors,
        options.rrf_k,
        options.weights,
        options.fts_stopwords,
    )


@given(
    weights=st.dictionaries(st.sampled_from(ARM_NAMES), st.floats(0, 10, allow_nan=False)),
    reverse=st.booleans(),
)
def test_weights_are_kept_in_registry_order(weights: dict[str, float], reverse: bool) -> None:
    """However they are given, overrides come out in registry order, so the SQL text is stable."""
    items = sorted(weights.items(), reverse=reverse)
    expected = tuple((name, weights[name]) for name in ARM_NAMES if name in weights)
    assert expected == RankingOptions(weights=items).weights
    assert expected == RankingOptions(weights=dict(items)).weights


@pytest.mark.parametrize(
    "kwargs",
    [
        {"arms": ("fts", "vectro")},
        {"weights": {"bm25": 1.0}},
        {"weights": {"fts": -0.5}},
        {"weights": {"fts": math.inf}},
        {"weights": {"fts": math.nan}},
        {"rrf_k": -1},
        {"rrf_k": math.inf},
        {"prf_depth": -1},
        {"prf_depth": 51},
        {"prf_depth": 2.5},
        {"prf_depth": True},
        {"prf_weight": -0.1},
        {"prf_weight": math.nan},
        {"prf_pick": "best"},
        {"prf_source": "vector"},
    ],
)
def test_a_bad_switch_is_refused(kwargs: dict[str, object]) -> None:
    """An unknown arm, a negative or non-finite weight or constant never reaches the SQL."""
    with pytest.raises(InvalidInput):
        RankingOptions(**kwargs)  # type: ignore[arg-type]


def test_feedback_reads_the_words_top_three_by_default_and_keeps_what_it_is_given() -> None:
    """The default (BENCHMARKS.md, issue 13): the own-text arm's top 3, β 0.5, each memory's
    chunk nearest the query; a valid depth, weight, pick and source are kept as given."""
    assert (3, 0.5, "nearest", "words") == (
        RankingOptions().prf_depth,
        RankingOptions().prf_weight,
        RankingOptions().prf_pick,
        RankingOptions().prf_source,
    )
    options = RankingOptions(prf_depth=50, prf_weight=0, prf_pick="mean", prf_source="fused")
    assert (50, 0.0, "mean", "fused") == (
        options.prf_depth,
        options.prf_weight,
        options.prf_pick,
        options.prf_source,
    )


def test_an_arm_selection_keeps_first_mentions_once() -> None:
    """A repeated arm name selects it once."""
    assert ("vector", "fts") == RankingOptions(arms=["vector", "fts", "vector"]).arms


@pytest.mark.parametrize("limit", [0, MAX_SEARCH_LIMIT + 1, -3])
def test_a_search_limit_outside_one_to_two_hundred_is_refused(limit: int) -> None:
    """docs/cli-contract.md §3.3 bounds --limit to 1–200; the value refuses anything else."""
    with pytest.raises(InvalidInput):
        SearchRequest(query="x", limit=limit)


def test_a_negative_recall_budget_is_refused() -> None:
    """A budget below zero cannot be spent; zero is a valid (index-lines-only) budget."""
    assert 0 == RecallRequest(query="x", budget_chars=0).budget_chars
    with pytest.raises(InvalidInput):
        RecallRequest(query="x", budget_chars=-1)
