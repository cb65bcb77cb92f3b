"""SplitMix64, the gate's only randomness: known outputs, determinism and ranges."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.eval.discrimination.prng import MASK64, SplitMix64, access_seed

# Computed with an independent C implementation of Vigna's reference (uint64_t arithmetic),
# not with the module under test.
SEED_0_FIRST_OUTPUTS = (
    0xE220A8397B1DCDAF,
    0x6E789E6AA1B965F4,
    0x06C45D188009454F,
    0xF88BB8A8724C81EC,
)
DEFAULT_SEED_FIRST_OUTPUTS = (0x8EDCBCAEE541DC2E, 0x141C011313BC1558)

seeds = st.integers(min_value=0, max_value=MASK64)


def test_seed_zero_matches_the_reference_outputs() -> None:
    """Seed 0 yields SplitMix64's published first four outputs."""
    stream = SplitMix64(0)
    assert SEED_0_FIRST_OUTPUTS == tuple(stream.next_u64() for _ in range(4))


def test_default_seed_matches_the_reference_outputs() -> None:
    """The gate's default seed 20260802 yields the reference implementation's outputs."""
    stream = SplitMix64(20260802)
    assert DEFAULT_SEED_FIRST_OUTPUTS == (stream.next_u64(), stream.next_u64())


@given(seed=seeds, count=st.integers(min_value=1, max_value=50))
def test_same_seed_same_stream(seed: int, count: int) -> None:
    """Two streams from one seed agree draw for draw."""
    a, b = SplitMix64(seed), SplitMix64(seed)
    assert [a.next_u64() for _ in range(count)] == [b.next_u64() for _ in range(count)]


@given(seed=seeds, bound=st.integers(min_value=1, max_value=1000))
def test_draws_stay_in_range(seed: int, bound: int) -> None:
    """Outputs fit 64 bits, floats lie in [0, 1), ``below`` in [0, bound)."""
    stream = SplitMix64(seed)
    u64, u, k = stream.next_u64(), stream.next_float(), stream.below(bound)
    assert (True, True, True) == (0 <= u64 <= MASK64, 0.0 <= u < 1.0, 0 <= k < bound)


@given(seed=seeds)
def test_access_stream_is_a_different_stream(seed: int) -> None:
    """The access stream's seed is a fixed transform that never equals the jitter seed."""
    # s * G + C == s has no solution mod 2**64 (G - 1 is even, C odd), and SplitMix64's first
    # output is a bijection of the seed, so the two first draws always differ.
    assert access_seed(seed) == access_seed(seed)
    assert SplitMix64(seed).next_u64() != SplitMix64(access_seed(seed)).next_u64()
