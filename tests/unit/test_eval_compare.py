"""Comparing two LoCoMo runs question by question."""

from __future__ import annotations

import pytest

from memhtml.app.eval.compare import compare_runs, questions_of
from memhtml.domain.errors import InvalidInput


def run(turn_r10: list[float], categories: list[int] | None = None) -> dict[str, object]:
    """A run's data with one question per score (other metrics 0)."""
    cats = categories or [1] * len(turn_r10)
    return {
        "questions": [
            {
                "conversation": "conv-1",
                "qa": i,
                "category": cats[i],
                "turn": {"recall5": 0.0, "recall10": value, "mrr": 0.0, "ndcg10": 0.0},
                "session": {"recall5": 0.0, "mrr": 0.0},
            }
            for i, value in enumerate(turn_r10)
        ]
    }


def test_a_gain_on_every_question_is_supported_and_category_five_is_left_out() -> None:
    """+1 turn R@10 on each scored question: delta 1, supported; adversarial not counted."""
    base = questions_of(run([0.0] * 30 + [1.0], [2] * 30 + [5]), "base")
    variant = questions_of(run([1.0] * 30 + [0.0], [2] * 30 + [5]), "variant")
    report = compare_runs(base, variant)
    overall = report["overall"]
    assert isinstance(overall, dict)
    assert 30 == report["questions"]
    assert (0.0, 1.0, 1.0, True) == tuple(
        overall["turn"]["recall10"][key] for key in ("base", "variant", "delta", "supported")
    )
    assert {} == report["byCategory"]["1"]  # type: ignore[index]


def test_runs_over_different_questions_are_refused() -> None:
    """Pairing needs the same questions on both sides."""
    with pytest.raises(InvalidInput):
        compare_runs(questions_of(run([1.0, 0.0]), "a"), questions_of(run([1.0]), "b"))


def test_a_run_without_per_question_rankings_is_refused() -> None:
    """A run written without --out cannot be paired; the message says how to get one."""
    with pytest.raises(InvalidInput, match="--out"):
        questions_of({"metrics": {}}, "old.json")
