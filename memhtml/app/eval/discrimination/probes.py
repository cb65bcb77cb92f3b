"""Probe queries and the choice of probe targets (docs/evaluation.md §A.2 "Probes").

A query is the target's own claim reduced to content words, so the target is a near-perfect
lexical and vector match, and so is every control: only the flip separates them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, TypeVar

from memhtml.app.eval.discrimination.topics import STOPWORDS

T = TypeVar("T")

QUERY_TOKENS: Final = 12
# `[^\W_]` is a word character that is not `_`: letters and digits in any script, which is
# `[\p{L}\p{N}]` without the `regex` package.
_TOKEN: Final = re.compile(r"[^\W_]+")


def query_tokens(text: str) -> tuple[str, ...]:
    """Lowercased letter/digit runs of ``text``, in order."""
    return tuple(_TOKEN.findall(text.lower()))


def query_of(claim: str) -> str:
    """The first 12 non-stopword tokens of the lowercased claim, space-joined."""
    kept = [token for token in query_tokens(claim) if token not in STOPWORDS]
    return " ".join(kept[:QUERY_TOKENS])


def probe_order(candidates: Sequence[T], probes: int) -> list[T]:
    """Every ⌊n/probes⌋-th candidate first, then the rest in their order.

    Spreading the first picks over the whole list makes the targets span every age of the
    fixture rather than only its oldest memories.
    """
    if not candidates:
        return []
    step = max(1, len(candidates) // max(1, probes))
    first = list(range(0, len(candidates), step))
    chosen = set(first)
    rest = [i for i in range(len(candidates)) if i not in chosen]
    return [candidates[i] for i in [*first, *rest]]


def select_targets(
    candidates: Sequence[T], probes: int, has_control: Callable[[T], bool]
) -> list[T]:
    """Up to ``probes`` candidates in :func:`probe_order` that have a validated control."""
    chosen: list[T] = []
    for candidate in probe_order(candidates, probes):
        if len(chosen) >= probes:
            break
        if has_control(candidate):
            chosen.append(candidate)
    return chosen
