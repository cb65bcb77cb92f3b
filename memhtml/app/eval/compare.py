"""Two ``eval locomo --out`` runs compared question by question with a paired bootstrap.

A ranking default changes only when a run shows it: each metric's mean difference over the
same questions, and its 95 % interval from resampling those questions, overall and per
category. A difference whose interval excludes 0 is ``supported``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from memhtml.domain.errors import InvalidInput
from memhtml.domain.paired_bootstrap import paired_bootstrap

METRICS: Final = (
    ("turn R@5", "turn", "recall5"),
    ("turn R@10", "turn", "recall10"),
    ("turn MRR", "turn", "mrr"),
    ("turn nDCG@10", "turn", "ndcg10"),
    ("session R@5", "session", "recall5"),
    ("session MRR", "session", "mrr"),
)
SCORED_CATEGORIES: Final = (1, 2, 3, 4)

Question = Mapping[str, object]


def questions_of(data: Mapping[str, object], where: str) -> dict[tuple[str, int], Question]:
    """The per-question records of one run's ``eval.locomo`` data, by (conversation, qa).

    Raises:
        InvalidInput: The data holds no per-question records (a run without ``--out``).
    """
    raw = data.get("questions")
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(f"{where} holds no per-question rankings; run eval locomo with --out")
    found: dict[tuple[str, int], Question] = {}
    for item in raw:
        if isinstance(item, Mapping):
            found[(str(item.get("conversation")), _int(item.get("qa")))] = item
    return found


def compare_runs(
    base: Mapping[tuple[str, int], Question],
    variant: Mapping[tuple[str, int], Question],
) -> dict[str, object]:
    """Every metric's means, difference and interval, overall and per scored category.

    Raises:
        InvalidInput: The runs did not search the same questions.
    """
    if set(base) != set(variant):
        raise InvalidInput("the two runs did not search the same questions")
    keys = sorted(k for k in base if _int(base[k].get("category")) in SCORED_CATEGORIES)
    by_category = {
        str(category): _metrics(
            [k for k in keys if _int(base[k].get("category")) == category], base, variant
        )
        for category in SCORED_CATEGORIES
    }
    return {
        "questions": len(keys),
        "overall": _metrics(keys, base, variant),
        "byCategory": by_category,
    }


def _metrics(
    keys: Sequence[tuple[str, int]],
    base: Mapping[tuple[str, int], Question],
    variant: Mapping[tuple[str, int], Question],
) -> dict[str, object]:
    report: dict[str, dict[str, object]] = {}
    if not keys:
        return {}
    for _, level, field in METRICS:
        left = [_score(base[k], level, field) for k in keys]
        right = [_score(variant[k], level, field) for k in keys]
        interval = paired_bootstrap(left, right)
        report.setdefault(level, {})[field] = {
            "base": round(sum(left) / len(left), 4),
            "variant": round(sum(right) / len(right), 4),
            "delta": round(interval.mean, 4),
            "low": round(interval.low, 4),
            "high": round(interval.high, 4),
            "supported": interval.excludes_zero,
        }
    return dict(report)


def _score(question: Question, level: str, field: str) -> float:
    scores = question.get(level)
    if not isinstance(scores, Mapping):
        return 0.0
    value = scores.get(field)
    return float(value) if isinstance(value, int | float) else 0.0


def _int(value: object) -> int:
    return value if isinstance(value, int) else -1
