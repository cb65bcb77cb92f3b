""" "Did you mean": the registered names closest to what the caller typed."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Final

MAX_SUGGESTIONS: Final = 3
# The distance limit is max(MIN_DISTANCE_LIMIT, ⌈len/2⌉) of the typed text: short names still
# tolerate two slips, long phrases tolerate proportionally more.
MIN_DISTANCE_LIMIT: Final = 2


def levenshtein(a: str, b: str) -> int:
    """The number of single-character insertions, deletions and substitutions from a to b."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(
                min(
                    previous[j] + 1,
                    current[j - 1] + 1,
                    previous[j - 1] + (char_a != char_b),
                )
            )
        previous = current
    return previous[-1]


def distance_limit(typed: str) -> int:
    """The largest distance at which a name still counts as what ``typed`` meant."""
    return max(MIN_DISTANCE_LIMIT, math.ceil(len(typed) / 2))


def suggest(typed_words: Sequence[str], names: Iterable[str]) -> tuple[str, ...]:
    """Up to three registered names within the distance limit, nearest first, ties by name.

    A name of several words (``index rebuild``) is compared as one phrase against as many typed
    words, so ``indx rebuild`` finds it while ``indx`` alone is compared with one-word names.

    Args:
        typed_words: What the caller typed, split into words (a command path, or one flag).
        names: Registered names, each one or more space-separated words.

    Returns:
        The chosen names, at most ``MAX_SUGGESTIONS``.
    """
    scored: set[tuple[int, str]] = set()
    for name in names:
        typed = " ".join(typed_words[: len(name.split(" "))])
        distance = levenshtein(typed, name)
        if distance <= distance_limit(typed):
            scored.add((distance, name))
    return tuple(name for _, name in sorted(scored)[:MAX_SUGGESTIONS])
