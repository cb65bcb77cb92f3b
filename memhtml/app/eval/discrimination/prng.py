"""SplitMix64: the gate's one source of randomness, written out so every Python draws alike.

``random.Random`` is not promised to produce the same sequence across Python versions for
every method, and a fixture that changed under a new interpreter would make two runs of the
same seed disagree. SplitMix64 is a few integer operations on a 64-bit state, stable by
construction.
"""

from __future__ import annotations

from typing import Final

MASK64: Final = (1 << 64) - 1
GOLDEN_GAMMA: Final = 0x9E3779B97F4A7C15
_MIX1: Final = 0xBF58476D1CE4E5B9
_MIX2: Final = 0x94D049BB133111EB
_FLOAT_BITS: Final = 53


class SplitMix64:
    """A SplitMix64 stream; the state is the only thing a draw changes."""

    def __init__(self, seed: int) -> None:
        self._state = seed & MASK64

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self._state = (self._state + GOLDEN_GAMMA) & MASK64
        z = self._state
        z = ((z ^ (z >> 30)) * _MIX1) & MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        return z ^ (z >> 31)

    def next_float(self) -> float:
        """A float in [0, 1) from the top 53 bits, exact in binary64."""
        return (self.next_u64() >> (64 - _FLOAT_BITS)) / (1 << _FLOAT_BITS)

    def below(self, bound: int) -> int:
        """An integer in ``[0, bound)``; the float-scaling bias is negligible for small bounds.

        Raises:
            ValueError: ``bound`` is not positive.
        """
        if bound <= 0:
            raise ValueError("bound must be positive")
        return int(self.next_float() * bound)


def access_seed(seed: int) -> int:
    """The access stream's seed: a fixed transform of the run's seed (docs/evaluation.md §A.2).

    A separate stream means adding a jitter draw never shifts the salience rows, and the
    other way round.
    """
    return ((seed & MASK64) * GOLDEN_GAMMA + 0xACCE55) & MASK64
