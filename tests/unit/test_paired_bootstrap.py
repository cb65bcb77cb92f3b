"""The paired bootstrap's interval: where it lies, how it moves, when it refuses."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.paired_bootstrap import paired_bootstrap

scores = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=40)


@settings(max_examples=60)
@given(values=scores)
def test_identical_runs_give_a_zero_interval(values: list[float]) -> None:
    """No difference on any question: mean, low and high are all 0."""
    interval = paired_bootstrap(values, values, resamples=50)
    assert (0.0, 0.0, 0.0, False) == (
        interval.mean,
        interval.low,
        interval.high,
        interval.excludes_zero,
    )


@settings(max_examples=60)
@given(
    pairs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=40),
    seed=st.integers(0, 10),
)
def test_the_interval_holds_the_mean_within_the_range_of_differences(
    pairs: list[tuple[float, float]], seed: int
) -> None:
    """low ≤ high, both inside [min Δ, max Δ], whatever the seed."""
    base, variant = [a for a, _ in pairs], [b for _, b in pairs]
    deltas = [b - a for a, b in pairs]
    interval = paired_bootstrap(base, variant, resamples=200, seed=seed)
    assert min(deltas) - 1e-12 <= interval.low <= interval.high <= max(deltas) + 1e-12


def test_a_consistent_gain_excludes_zero_and_noise_does_not() -> None:
    """Every question better by 0.1 is supported; an even split of ±1 is not."""
    base = [0.5] * 200
    better = [0.6] * 200
    noisy = [1.0 if i % 2 else 0.0 for i in range(200)]
    assert paired_bootstrap(base, better).excludes_zero is True
    assert paired_bootstrap(base, noisy).excludes_zero is False


def test_the_same_seed_gives_the_same_interval() -> None:
    """Seeded: a report reproduces exactly."""
    base = [float(i % 3) for i in range(50)]
    variant = [float(i % 5) for i in range(50)]
    assert paired_bootstrap(base, variant, seed=7) == paired_bootstrap(base, variant, seed=7)


@pytest.mark.parametrize(
    ("base", "variant", "kwargs"),
    [([], [], {}), ([1.0], [1.0, 2.0], {}), ([1.0], [1.0], {"resamples": 0}),
     ([1.0], [1.0], {"confidence": 1.0})],
)  # fmt: skip
def test_malformed_input_is_refused(
    base: list[float], variant: list[float], kwargs: dict[str, float]
) -> None:
    """Unpaired, empty, no resamples or a degenerate confidence: InvalidInput."""
    with pytest.raises(InvalidInput):
        paired_bootstrap(base, variant, **kwargs)  # type: ignore[arg-type]
