"""The paired bootstrap: is one ranking better than another on the same questions?

Each question gives one difference (variant minus baseline); resampling the questions with
replacement gives the spread of the mean difference. A change is supported when the interval
at the chosen confidence excludes 0. Seeded, so a report can be reproduced exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput

DEFAULT_RESAMPLES: Final = 2_000
DEFAULT_CONFIDENCE: Final = 0.95
DEFAULT_SEED: Final = 20261201


@attrs.frozen(kw_only=True)
class Interval:
    """The mean paired difference and its percentile interval.

    Attributes:
        mean: The observed mean difference (variant − baseline).
        low, high: The interval's bounds at ``confidence``.
        confidence: The interval's coverage, e.g. 0.95.
    """

    mean: float
    low: float
    high: float
    confidence: float

    @property
    def excludes_zero(self) -> bool:
        """The difference is supported: the whole interval lies on one side of 0."""
        return self.low > 0.0 or self.high < 0.0


def paired_bootstrap(
    baseline: Sequence[float],
    variant: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """The mean of ``variant[i] − baseline[i]`` and its bootstrap percentile interval.

    Raises:
        InvalidInput: The two lists differ in length or are empty, ``resamples`` is below 1,
            or ``confidence`` is not inside (0, 1).
    """
    if len(baseline) != len(variant) or not baseline:
        raise InvalidInput("a paired bootstrap needs two equally long, non-empty lists")
    if resamples < 1 or not 0.0 < confidence < 1.0:
        raise InvalidInput("resamples must be at least 1 and confidence inside (0, 1)")
    deltas = [v - b for b, v in zip(baseline, variant, strict=True)]
    n = len(deltas)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(deltas, k=n)) / n for _ in range(resamples))
    tail = (1.0 - confidence) / 2.0
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1.0 - tail) * resamples) - 1)]
    return Interval(mean=sum(deltas) / n, low=low, high=high, confidence=confidence)
