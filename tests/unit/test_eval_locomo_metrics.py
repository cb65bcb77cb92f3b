"""LoCoMo ranking metrics (docs/evaluation.md §B.4): ranges, monotonicity, hand-computed values, the
session mapping and nearest-rank percentiles."""

from __future__ import annotations

import math

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.eval.locomo.metrics import (
    RankingScores,
    first_occurrences,
    hit_at,
    mean_scores,
    ndcg_at,
    nearest_rank,
    recall_at,
    reciprocal_rank,
    score_ranking,
)

# Items from a small alphabet so gold and rankings overlap often; rankings are distinct.
ITEMS = st.sampled_from([f"D{s}:{t}" for s in range(1, 4) for t in range(1, 6)])
rankings = st.lists(ITEMS, unique=True, max_size=15)
golds = st.lists(ITEMS, unique=True, min_size=1, max_size=6)


@given(rankings, golds, st.integers(min_value=1, max_value=20))
def test_every_metric_lies_between_zero_and_one(ranked: list[str], gold: list[str], k: int) -> None:
    """Recall, hit, reciprocal rank and nDCG stay in [0, 1] whatever the ranking and k."""
    for value in (
        recall_at(ranked, gold, k),
        hit_at(ranked, gold, k),
        reciprocal_rank(ranked, gold),
        ndcg_at(ranked, gold, k),
    ):
        assert 0.0 <= value <= 1.0 + 1e-12


@given(rankings, golds, st.integers(min_value=1, max_value=15))
def test_recall_and_hit_never_fall_as_k_grows(ranked: list[str], gold: list[str], k: int) -> None:
    """Looking at one more hit can only find more gold."""
    assert recall_at(ranked, gold, k) <= recall_at(ranked, gold, k + 1)
    assert hit_at(ranked, gold, k) <= hit_at(ranked, gold, k + 1)


@given(rankings, golds, st.integers(min_value=1, max_value=15))
def test_hit_is_one_exactly_when_recall_is_positive(
    ranked: list[str], gold: list[str], k: int
) -> None:
    """Hit@k is the any-gold indicator of the same top k."""
    assert (hit_at(ranked, gold, k) == 1.0) == (recall_at(ranked, gold, k) > 0)


@given(golds, rankings)
def test_gold_ranked_first_in_order_scores_perfectly(gold: list[str], tail: list[str]) -> None:
    """Every gold item at the top, whatever follows: nDCG@10 = 1 and MRR = 1."""
    ranked = gold + [item for item in tail if item not in gold]
    assert math.isclose(1.0, ndcg_at(ranked, gold, 10))
    assert 1.0 == reciprocal_rank(ranked, gold)


def test_hand_computed_values() -> None:
    """Gold {a, b} ranked at 2 and 4 of five: the formulas of docs/evaluation.md §B.4 by hand."""
    ranked = ["x", "a", "y", "b", "z"]
    gold = ["a", "b"]
    assert 0.5 == recall_at(ranked, gold, 2)
    assert 1.0 == recall_at(ranked, gold, 5)
    assert 0.0 == hit_at(ranked, gold, 1)
    assert 0.5 == reciprocal_rank(ranked, gold)
    expected = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert math.isclose(expected, ndcg_at(ranked, gold, 10))


def test_reciprocal_rank_stops_at_its_cutoff() -> None:
    """The first gold item at position 11 earns nothing under MRR@10."""
    ranked = [f"n{i}" for i in range(10)] + ["gold"]
    assert 0.0 == reciprocal_rank(ranked, ["gold"])
    assert math.isclose(1 / 11, reciprocal_rank(ranked, ["gold"], cutoff=11))


def test_ideal_dcg_counts_at_most_k_gold_items() -> None:
    """With more gold than k, a top k made only of gold is still perfect."""
    gold = [f"g{i}" for i in range(12)]
    assert math.isclose(1.0, ndcg_at(gold[:10], gold, 10))


def test_unscorable_inputs_are_refused() -> None:
    """No gold, a ranking that repeats an item, or a cutoff of 0 raises instead of scoring."""
    with pytest.raises(ValueError, match="without gold"):
        recall_at(["a"], [], 5)
    with pytest.raises(ValueError, match="distinct"):
        ndcg_at(["a", "a"], ["a"], 10)
    with pytest.raises(ValueError, match="cutoff"):
        ndcg_at(["a"], ["a"], 0)


@given(st.lists(st.integers(min_value=1, max_value=6), max_size=20))
@example([3, 1, 3, 2, 1])
def test_session_mapping_keeps_first_occurrences(sessions: list[int]) -> None:
    """Each session appears once, where its best-ranked turn was, in that order."""
    mapped = first_occurrences(sessions)
    assert len(set(mapped)) == len(mapped)
    assert set(sessions) == set(mapped)
    assert [sessions.index(s) for s in mapped] == sorted(sessions.index(s) for s in mapped)


def test_session_mapping_example() -> None:
    """Turn ranks [s3, s1, s3, s2, s1] rank the sessions 3, 1, 2."""
    assert (3, 1, 2) == first_occurrences([3, 1, 3, 2, 1])


@given(rankings, golds)
def test_score_ranking_gathers_the_single_metrics(ranked: list[str], gold: list[str]) -> None:
    """The per-query block is exactly the six single metrics."""
    assert RankingScores(
        recall5=recall_at(ranked, gold, 5),
        recall10=recall_at(ranked, gold, 10),
        hit5=hit_at(ranked, gold, 5),
        hit10=hit_at(ranked, gold, 10),
        mrr=reciprocal_rank(ranked, gold),
        ndcg10=ndcg_at(ranked, gold, 10),
    ) == score_ranking(ranked, gold)


def test_mean_scores_weighs_each_query_the_same() -> None:
    """The mean of a perfect and an empty query is one half everywhere; no query, no mean."""
    perfect = score_ranking(["a"], ["a"])
    empty = score_ranking(["b"], ["a"])
    mean = mean_scores([perfect, empty])
    assert mean is not None
    assert {0.5} == set(attrs.asdict(mean).values())
    assert mean_scores([]) is None


@given(
    st.lists(st.floats(min_value=0, max_value=1e4), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=99),
)
def test_nearest_rank_returns_an_observed_value_and_grows_with_p(
    values: list[float], percent: int
) -> None:
    """A percentile is one of the values, and a higher percentile is never smaller."""
    low, high = nearest_rank(values, percent), nearest_rank(values, percent + 1)
    assert low in values
    assert high is not None
    assert low is not None
    assert low <= high
    assert max(values) == nearest_rank(values, 100)


def test_nearest_rank_examples() -> None:
    """p50 of 1..4 is 2 and p95 of 1..20 is 19 (rank ⌈p·n/100⌉); no values give None."""
    assert 2 == nearest_rank([4, 1, 3, 2], 50)
    assert 19 == nearest_rank([float(v) for v in range(1, 21)], 95)
    assert nearest_rank([], 50) is None
    with pytest.raises(ValueError, match="percent"):
        nearest_rank([1.0], 0)
