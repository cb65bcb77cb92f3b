"""The salience arm in SQL (docs/ranking.md §2.4): the twin of ``domain.reinforce``.

A memory's salience is ``exp(−0.01 · hours) + ln(1 + access_count) + max(outcome_score, 0)``,
``hours`` running from its last access, else its ``updated_at``, to the search's instant. The
arm ranks every eligible in-scope memory by it and keeps the best ``?2``. Computed for every
row, that decay was most of the arm: ~1.4 ms per search at 1,000 memories and ten times that at
10,000, though few memories have ever been read.

So the rows are taken in two parts, with the same answer:

- **read memories** (a ``state.access`` row): scored in full, starting from the access table;
- **never-read memories**: their salience is the decay alone, which only grows with
  ``updated_at``. Migration 0010 indexes ``updated_at``'s milliseconds, newest first, so the
  best ``?2`` of them are the first ``?2`` the index yields.

Why that cut is exact. Inside :data:`SAFE_HOURS` of the instant the decay is a normal double
and two stamps a millisecond apart decay to different values (the exponent moves by ~3e-9,
far above a double's resolution), so a never-read memory past the cut scores below the last
one kept, or equal to it with a later path. Beyond that window the decay rounds to 0 (a stamp
over ~8.5 years old), overflows to infinity (over ~8 years ahead), or is 0 for a stamp SQLite
cannot read: there many memories tie and path decides, which the index order does not follow.
When the last kept memory is outside the window, or fewer than ``?2`` are eligible, the arm
takes every never-read memory instead, and answers as the full scan did.

The read memories are cut too (state migration S0002). A read memory's salience is its
*static part* ``ln(1 + access_count) + max(outcome_score, 0)`` plus its decay. Let ``T`` be the
``?2``-th best static part among the eligible read memories: each of those ``?2`` scores at
least ``T``. A memory last read more than :data:`RECENT_DAYS` days before the instant decays to
less than :data:`OLD_DECAY_BOUND`, so when its static part is below ``T`` by more than that (and
a margin far above float rounding) it cannot rank. The arm therefore scores only the rows at
the top of the static index, plus every row whose ``last_accessed_at`` is missing (the file's
``updated_at`` stands in) or may be recent: its text sorts at or after the date
:data:`RECENT_DAYS` days before the instant (a later instant, or one ahead of the search, whose
decay is not bounded by 1), or before ``"0"`` (where a signed number that ``julianday()`` might
read sorts). Any other text is an ISO date (of any offset) or a Julian day number older than
``RECENT_DAYS − 1`` days, or unreadable (decay 0). In a store where a fifth of 10,000 memories
were read, over two years, that is about one read row in ten (BENCHMARKS.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

from memhtml.adapters.sqlite.instant_sql import MS_PER_HOUR, stamp_ms_sql
from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain.instants import instant_ms
from memhtml.domain.reinforce import (
    SALIENCE_DECAY_PER_HOUR,
    SALIENCE_EXCLUDED_PREFIX,
    SALIENCE_EXCLUDED_TYPE,
)

SAFE_HOURS: Final = 70_000
"""How far from the instant (either way) a stamp's decay stays a normal, strictly monotone
double: ``exp(−700)`` is ~1e-304 and ``exp(700)`` ~1e304, inside both limits (``exp(−708.4)``
leaves the normal range, ``exp(709.8)`` overflows)."""

_SAFE_MS: Final = SAFE_HOURS * MS_PER_HOUR
# State migration S0002 indexes this expression; SQLite uses an expression index only for the
# same text. access_count and outcome_score are NOT NULL, so no coalesce is needed.
STATIC_SQL: Final = "(ln(1 + a.access_count) + max(a.outcome_score, 0.0))"
RECENT_DAYS: Final = 30
"""Read memories last read within this many days of the instant are always scored."""
OLD_DECAY_BOUND: Final = math.exp(-SALIENCE_DECAY_PER_HOUR * (RECENT_DAYS - 1) * 24)
"""The decay of a stamp whose date sorts before the recent window's first day: at least
``RECENT_DAYS − 1`` days old, a day of slack for a stamp's UTC offset (at most 14 hours)."""
# Far above the rounding of a sum of three doubles under 1e3, far below any real gap.
_STATIC_MARGIN: Final = OLD_DECAY_BOUND + 1e-9
_WINDOW_MS: Final = RECENT_DAYS * 24 * MS_PER_HOUR


def salience_now_ms(now: str) -> int:
    """The salience instant in Unix milliseconds (bound, or inlined by an arm alone).

    Raises:
        ValueError: ``now`` is unreadable: the clock never hands one over, so it is a bug.
    """
    now_ms = instant_ms(now)
    if now_ms is None:
        raise ValueError(f"the salience instant is unreadable: {now!r}")
    return now_ms


def _decay_sql(now: str, stamp_ms: str) -> str:
    # An unreadable stamp gives NULL, which coalesce turns into a decay of 0: infinitely old,
    # never an error (docs/decisions.md §3).
    hours = f"(({now} - {stamp_ms}) / {MS_PER_HOUR}.0)"
    return f"coalesce(exp(-{SALIENCE_DECAY_PER_HOUR!r} * {hours}), 0.0)"


def _eligible_sql(scope: Callable[[str], str], alias: str) -> str:
    # The exclusions live in this arm only: an excluded row keeps its other ranks. substr, not
    # LIKE, because LIKE folds case and reads `_` as a wildcard.
    prefix = text_literal(SALIENCE_EXCLUDED_PREFIX)
    return (
        f"{alias}.memory_type <> {text_literal(SALIENCE_EXCLUDED_TYPE)} "
        f"AND substr({alias}.path, 1, {len(SALIENCE_EXCLUDED_PREFIX)}) <> {prefix} "
        f"{scope(alias)}"
    )


def salience_arm_sql(scope: Callable[[str], str], *, now: str, limit_param: int) -> str:
    """The arm's ``(path, rank)`` rows: highest salience first, ties by path.

    Args:
        scope: The scope filter (and prior gate) written against a given table alias.
        now: SQL for the instant in Unix milliseconds: a placeholder or a literal.
        limit_param: The placeholder of the arm's budget.
    """
    limit = f"?{limit_param}"
    never_read = "NOT EXISTS (SELECT 1 FROM state.access r WHERE r.path = {0}.path)"
    # The never-read memory the cut would keep last; NULL when fewer are eligible.
    last_kept = (
        f"(SELECT {stamp_ms_sql('g.updated_at')} AS ms FROM files g "
        f"WHERE {_eligible_sql(scope, 'g')} AND {never_read.format('g')} "
        f"ORDER BY ms DESC, g.path LIMIT 1 OFFSET {limit} - 1)"
    )
    # LIMIT -1 is no limit: outside the window the cut is not exact, so every row is scored.
    cut = (
        f"CASE WHEN {last_kept} BETWEEN {now} - {_SAFE_MS} AND {now} + {_SAFE_MS} "
        f"THEN {limit} ELSE -1 END"
    )
    read_salience = (
        f"{_decay_sql(now, stamp_ms_sql('coalesce(a.last_accessed_at, f.updated_at)'))} "
        "+ ln(1 + coalesce(a.access_count, 0)) + max(coalesce(a.outcome_score, 0.0), 0.0)"
    )
    # CROSS JOIN keeps the access table outer: its rows, not every file, are what is scored.
    # The budget-th best static part among eligible read memories, from the static index;
    # NULL when fewer are eligible, and then every read row is scored.
    static_cut = (
        f"(SELECT {STATIC_SQL} AS s FROM state.access a CROSS JOIN files f ON f.path = a.path "
        f"WHERE {_eligible_sql(scope, 'f')} ORDER BY s DESC LIMIT 1 OFFSET {limit} - 1)"
    )
    # The recent window's first day as an ISO date; '' (every text sorts after it) when
    # date() cannot say, so every row is scored then.
    first_day = f"coalesce(date(({now} - {_WINDOW_MS}) / 1000.0, 'unixepoch'), '')"
    may_rank = (
        f"({STATIC_SQL} >= coalesce({static_cut} - {_STATIC_MARGIN!r}, -1e308) "
        f"OR a.last_accessed_at IS NULL OR a.last_accessed_at >= {first_day} "
        "OR a.last_accessed_at < '0')"
    )
    read = (
        f"SELECT f.path AS path, {read_salience} AS salience "
        "FROM state.access a CROSS JOIN files f ON f.path = a.path "
        f"WHERE {may_rank} AND {_eligible_sql(scope, 'f')}"
    )
    unread = (
        f"SELECT path, {_decay_sql(now, 'ms')} AS salience FROM ("
        f"SELECT f.path AS path, {stamp_ms_sql('f.updated_at')} AS ms FROM files f "
        f"WHERE {_eligible_sql(scope, 'f')} AND {never_read.format('f')} "
        f"ORDER BY ms DESC, f.path LIMIT {cut})"
    )
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY salience DESC, path) FROM ("
        f"SELECT path, salience FROM ({read} UNION ALL {unread}) "
        f"ORDER BY salience DESC, path LIMIT {limit})"
    )
