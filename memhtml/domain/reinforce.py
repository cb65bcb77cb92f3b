"""The state plane's arithmetic: cooldown, outcome EWMA, salience, import merge
(docs/ranking.md §2.4, §9).

Each function here is the pure twin of a SQL expression the adapter runs (the conditional upsert,
the salience arm, the import upsert), and the contract suite pins the two together, so the
arithmetic is written in the same order the SQL evaluates it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import StrEnum
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput
from memhtml.domain.instants import instant_ms

REINFORCE_COOLDOWN_S: Final = 900
"""A path is bumped again only once its last access is at least this many seconds old.

Bounds one query replayed in a loop inside a session; without it an agent stuck on one question
would rewrite the corpus's salience ranking in minutes.
"""

OUTCOME_EWMA_ALPHA: Final = 0.3
"""The weight a new outcome signal carries; the remaining 0.7 keeps the prior score."""

SALIENCE_DECAY_PER_HOUR: Final = 0.01
"""Rate of the recency term ``exp(-0.01 · hours)``: about 0.37 after four days unread."""

SALIENCE_EXCLUDED_TYPE: Final = "task"
"""The memory type the salience arm never ranks: salience over working state rewards staleness."""

SALIENCE_EXCLUDED_PREFIX: Final = "resources/people/"
"""The path prefix the salience arm never ranks: person records, where decay is the wrong model."""


class Signal(StrEnum):
    """What a reinforce call asserts about a memory."""

    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"


SIGNAL_VALUE: Final[Mapping[Signal, float]] = {
    Signal.POSITIVE: 1.0,
    Signal.NEGATIVE: -1.0,
    Signal.NEUTRAL: 0.0,
}
"""The number each signal feeds the outcome average."""


@attrs.frozen(kw_only=True)
class AccessRow:
    """One path's durable access bookkeeping, a ``state.access`` row.

    Attributes:
        path: Repo path of the memory; no foreign key, an archive move rewrites it.
        access_count: Bumps past the cooldown, of any signal.
        reinforcement_count: Bumps with a positive or negative signal.
        outcome_score: EWMA of the non-neutral signals, within [-1, 1].
        last_accessed_at: Instant of the last bump, None before the first.
        last_reinforced_at: Instant of the last non-neutral bump, None before the first.
        updated_at: Instant the row last changed.
    """

    path: str
    access_count: int = 0
    reinforcement_count: int = 0
    outcome_score: float = 0.0
    last_accessed_at: str | None = None
    last_reinforced_at: str | None = None
    updated_at: str


@attrs.frozen(kw_only=True)
class ReinforceResult:
    """Which paths a reinforce call bumped and which were still cooling down, each in call order."""

    bumped: tuple[str, ...]
    cooled_down: tuple[str, ...]


def is_cooling_down(
    last_accessed_at: str | None, now: str, cooldown_s: int = REINFORCE_COOLDOWN_S
) -> bool:
    """True while a bump at ``now`` must be refused: the last access is under ``cooldown_s`` old.

    Exactly ``cooldown_s`` elapsed bumps (the boundary is inclusive). A missing or unreadable
    ``last_accessed_at`` never cools down; the SQL guard needs ``OR julianday(last) IS NULL``
    for the same reading, or a row with a broken stamp would refuse every bump forever.

    Raises:
        InvalidInput: ``now`` is not a readable instant (it comes from the clock, so a bug).
    """
    now_ms = instant_ms(now)
    if now_ms is None:
        raise InvalidInput(f"not a readable instant: {now!r}")
    last_ms = None if last_accessed_at is None else instant_ms(last_accessed_at)
    return last_ms is not None and now_ms - last_ms < cooldown_s * 1000


def ewma(old: float, signal: Signal, *, first: bool, alpha: float = OUTCOME_EWMA_ALPHA) -> float:
    """The outcome score after ``signal``: the EWMA of non-neutral signals, clamped to [-1, 1].

    A neutral signal moves nothing: being read is evidence of relevance, not of correctness.
    ``first`` (no row existed yet) takes the signal's value outright.

    Written ``old + α·(value − old)``, not ``(1 − α)·old + α·value``: equal on paper, but in
    doubles the second form can land one ulp outside [old, value] (``0.9999999999999999``
    moves *down* on a positive signal). The SQL upsert must spell it the same way.
    """
    if signal is Signal.NEUTRAL:
        return old
    value = SIGNAL_VALUE[signal]
    if first:
        return value
    return min(1.0, max(-1.0, old + alpha * (value - old)))


def reinforce_step(
    path: str,
    existing: AccessRow | None,
    signal: Signal,
    now: str,
    *,
    cooldown_s: int = REINFORCE_COOLDOWN_S,
) -> AccessRow | None:
    """The row a reinforce of ``path`` at ``now`` leaves behind, or None when it cooled down.

    The pure twin of the adapter's conditional upsert. A bump past the cooldown raises
    ``access_count`` and stamps ``last_accessed_at``; a non-neutral signal also raises
    ``reinforcement_count``, stamps ``last_reinforced_at`` and moves the outcome (:func:`ewma`)
    — always, inside the cooldown too: the cooldown limits how often plain access counts, never
    an explicit judgement (an agent reads a memory, then judges it). ``None`` only for a
    neutral bump inside the cooldown. A path's first row takes the signal's value as its
    outcome ("first row ±1").
    """
    moves = signal is not Signal.NEUTRAL
    if existing is None:
        return AccessRow(
            path=path,
            access_count=1,
            reinforcement_count=1 if moves else 0,
            outcome_score=ewma(0.0, signal, first=True),
            last_accessed_at=now,
            last_reinforced_at=now if moves else None,
            updated_at=now,
        )
    cooling = is_cooling_down(existing.last_accessed_at, now, cooldown_s)
    if cooling and not moves:
        return None
    accessed = (
        existing
        if cooling
        else attrs.evolve(existing, access_count=existing.access_count + 1, last_accessed_at=now)
    )
    if not moves:
        return attrs.evolve(accessed, updated_at=now)
    return attrs.evolve(
        accessed,
        reinforcement_count=existing.reinforcement_count + 1,
        outcome_score=ewma(existing.outcome_score, signal, first=False),
        last_reinforced_at=now,
        updated_at=now,
    )


def salience_applies(path: str, memory_type: str) -> bool:
    """False for the rows the salience arm emits nothing for: tasks and person records.

    Such a row keeps its other ranks; it is left out rather than given a zero count, which would
    still rank it by write time and count the recency arm twice.
    """
    return memory_type != SALIENCE_EXCLUDED_TYPE and not path.startswith(SALIENCE_EXCLUDED_PREFIX)


def salience_hours(now: str, last_accessed_at: str | None, updated_at: str) -> float:
    """Hours from the last access (else the last update) to ``now`` (docs/decisions.md §3).

    The stamp is chosen by presence, as ``coalesce`` chooses; if it (or ``now``) is unreadable
    the memory is infinitely old, its decay term 0, never an error.
    """
    stamp_ms = instant_ms(last_accessed_at if last_accessed_at is not None else updated_at)
    now_ms = instant_ms(now)
    if stamp_ms is None or now_ms is None:
        return math.inf
    return (now_ms - stamp_ms) / 3_600_000


def salience_score(hours: float, access_count: int, outcome_score: float) -> float:
    """``exp(-0.01·hours) + ln(1 + access_count) + max(outcome_score, 0)``.

    A negative outcome earns no boost and takes no penalty here: the retention scorer owns
    punishment, and applying it twice would let one bad outcome bury the best answer.
    """
    try:
        decay = math.exp(-SALIENCE_DECAY_PER_HOUR * hours)
    except OverflowError:  # a stamp far in the future; SQLite's exp() yields +Inf there too
        decay = math.inf
    return decay + math.log(1 + access_count) + max(outcome_score, 0.0)


def merge_access(existing: AccessRow | None, imported: AccessRow) -> AccessRow:
    """One path's row after ``state import`` replays ``imported`` over ``existing``
    (docs/decisions.md §16).

    Counts and timestamps take the larger side (timestamps as strings, None below any value).
    The outcome comes from the side reinforced later, the imported row on a tie: a maximum of
    outcomes would turn a restored negative outcome positive again on every round trip.

    Raises:
        InvalidInput: The two rows name different paths.
    """
    if existing is None:
        return imported
    if existing.path != imported.path:
        raise InvalidInput("cannot merge access rows of two different paths")
    later = (
        existing if _later(existing.last_reinforced_at, imported.last_reinforced_at) else imported
    )
    return AccessRow(
        path=imported.path,
        access_count=max(existing.access_count, imported.access_count),
        reinforcement_count=max(existing.reinforcement_count, imported.reinforcement_count),
        outcome_score=later.outcome_score,
        last_accessed_at=_max_stamp(existing.last_accessed_at, imported.last_accessed_at),
        last_reinforced_at=_max_stamp(existing.last_reinforced_at, imported.last_reinforced_at),
        updated_at=max(existing.updated_at, imported.updated_at),
    )


def _later(a: str | None, b: str | None) -> bool:
    """True when ``a`` is strictly later than ``b``; None is earlier than any stamp."""
    return a is not None and (b is None or a > b)


def _max_stamp(a: str | None, b: str | None) -> str | None:
    return b if a is None else a if b is None else max(a, b)
