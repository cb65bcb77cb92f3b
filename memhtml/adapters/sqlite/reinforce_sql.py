"""Reinforcement as one conditional upsert per batch of paths (docs/ranking.md §9).

The database decides bumped versus cooling down at the instant of the write, and ``RETURNING``
names the rows that moved. Reading ``last_accessed_at`` first and deciding in Python would race a
concurrent reinforce and report a bump that never happened. The pure twin is
:func:`memhtml.domain.reinforce.reinforce_step`; the contract suite replays random signal and
instant sequences through both, the cooldown boundary included.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.instant_sql import stamp_ms_sql
from memhtml.domain.errors import InvalidInput
from memhtml.domain.instants import instant_ms
from memhtml.domain.reinforce import (
    OUTCOME_EWMA_ALPHA,
    REINFORCE_COOLDOWN_S,
    SIGNAL_VALUE,
    ReinforceResult,
    Signal,
)

REINFORCE_PATH_BATCH: Final = 500
"""Paths bound into one upsert.

Five shared values plus this many paths stays under SQLite's smallest bound-variable ceiling
(999 in older builds), so the split is a correctness guard, not a tuning knob.
"""

_SHARED_PARAMS: Final = 5


def reinforce_sql(batch_size: int, *, moves: bool, cooldown_s: int = REINFORCE_COOLDOWN_S) -> str:
    """The conditional upsert for ``batch_size`` paths.

    Shared values: ``?1`` now, ``?2`` the EWMA weight, ``?3`` the signal's value, ``?4`` the
    reinforced stamp (NULL when neutral), ``?5`` 1 when the signal moves the outcome; the paths
    bind from ``?6``. The EWMA is spelled ``old + α·(value − old)`` and clamped exactly as
    :func:`memhtml.domain.reinforce.ewma`; the other spelling can land one ulp outside [old, value].
    A last access ``julianday()`` cannot read never cools down, or a broken stamp would refuse
    every bump forever. A non-neutral signal always lands (issue 14): only the access count
    and its stamp wait for the cooldown.

    Args:
        batch_size: Paths in this statement, 1 to :data:`REINFORCE_PATH_BATCH`.
        moves: Whether the signal is non-neutral (moves the count, stamp and outcome).
        cooldown_s: Seconds a path must rest after a bump; the domain's constant by default.
    """
    rows = ", ".join(
        f"(?{_SHARED_PARAMS + 1 + i}, 1, ?5, ?3, ?1, ?4, ?1)" for i in range(batch_size)
    )
    elapsed_ms = f"{stamp_ms_sql('?1')} - {stamp_ms_sql('a.last_accessed_at')}"
    rested = f"(julianday(a.last_accessed_at) IS NULL OR {elapsed_ms} >= {int(cooldown_s) * 1000})"
    insert = (
        "INSERT INTO state.access AS a (path, access_count, reinforcement_count, outcome_score, "
        f"last_accessed_at, last_reinforced_at, updated_at) VALUES {rows} "
    )
    if not moves:
        # Plain access: counted at most once per cooldown.
        return (
            f"{insert}ON CONFLICT (path) DO UPDATE SET access_count = a.access_count + 1, "
            f"last_accessed_at = ?1, updated_at = ?1 WHERE {rested} RETURNING path"
        )
    # A judgement is never dropped: the outcome always moves; only the access count and its
    # stamp wait for the cooldown (every SET expression reads the old row).
    return (
        f"{insert}ON CONFLICT (path) DO UPDATE SET "
        f"access_count = a.access_count + CASE WHEN {rested} THEN 1 ELSE 0 END, "
        "reinforcement_count = a.reinforcement_count + 1, "
        "outcome_score = min(1.0, max(-1.0, a.outcome_score + ?2 * (?3 - a.outcome_score))), "
        "last_reinforced_at = ?1, "
        f"last_accessed_at = CASE WHEN {rested} THEN ?1 ELSE a.last_accessed_at END, "
        "updated_at = ?1 RETURNING path"
    )


def reinforce_paths(
    db: Database,
    paths: Sequence[str],
    signal: Signal,
    now: str,
    *,
    cooldown_s: int = REINFORCE_COOLDOWN_S,
) -> ReinforceResult:
    """Bump every path of ``paths`` past its cooldown at ``now``; a repeated path counts once.

    Args:
        db: The index with the state plane attached; without one nothing is bumped.
        paths: The paths to bump, in call order.
        signal: What the caller asserts; only a non-neutral one moves the outcome.
        now: The instant of the bump, as stored (``YYYY-MM-DDTHH:MM:SSZ`` from the clock).
        cooldown_s: The cooldown in seconds.

    Returns:
        The bumped and the cooling-down paths, each in call order.

    Raises:
        InvalidInput: ``now`` is not an instant ``julianday()`` reads.
        StorageFailure: The upsert fails.
    """
    if instant_ms(now) is None:
        raise InvalidInput(f"not a readable instant: {now!r}")
    unique = tuple(dict.fromkeys(paths))
    if not unique or not db.has_state:
        return ReinforceResult(bumped=(), cooled_down=())
    moves = signal is not Signal.NEUTRAL
    shared: tuple[SqlValue, ...] = (
        now,
        OUTCOME_EWMA_ALPHA,
        SIGNAL_VALUE[signal],
        now if moves else None,
        1 if moves else 0,
    )
    bumped: set[str] = set()
    for start in range(0, len(unique), REINFORCE_PATH_BATCH):
        batch = unique[start : start + REINFORCE_PATH_BATCH]
        sql = reinforce_sql(len(batch), moves=moves, cooldown_s=cooldown_s)
        rows = db.all(sql, shared + batch, operation="reinforce")
        bumped.update(str(row[0]) for row in rows)
    return ReinforceResult(
        bumped=tuple(p for p in unique if p in bumped),
        cooled_down=tuple(p for p in unique if p not in bumped),
    )


def unknown_paths(db: Database, paths: Sequence[str]) -> tuple[str, ...]:
    """The paths of ``paths`` the index does not hold, in call order, each once.

    Raises:
        StorageFailure: The lookup fails.
    """
    unique = tuple(dict.fromkeys(paths))
    if not unique:
        return ()
    rows = db.all(
        "SELECT value FROM json_each(?1) WHERE value NOT IN (SELECT path FROM files)",
        (json.dumps(unique),),
        operation="look up reinforce paths",
    )
    missing = {str(row[0]) for row in rows}
    return tuple(p for p in unique if p in missing)
