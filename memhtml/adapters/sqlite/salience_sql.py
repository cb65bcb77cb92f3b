"""The salience arm's template: exact, without computing every file's decay on each search.

salience = ``exp(-λ·hours) + ln(1 + access_count) + max(outcome, 0)`` (twin:
:func:`memhtml.domain.reinforce.salience_score`), hours counted from the last access, else
the last update. Computed for every in-scope file, it cost a date parse and an ``exp`` per
file per search: most of a lexical search at 10,000 memories.

A file with no row in the state plane (most of them: a row appears on the first
reinforcement) scores its decay alone, ``D(updated)``, and ``D`` only grows with the update
instant. So the arm reads those files newest first through the ``files_updated_ms`` index
(migration 0009), and scores the files with state (few) whole. The window: every file updated
after the budget-th file's instant (the cut), plus the budget's worth with the smallest paths
of those updated at the cut (they share one decay, so no other of them can rank). Why it is
exact: every file left out either sits in the cut's run behind those, or was updated before the
cut, no later than the newest such file (read from the index just below the cut), so its
decay is at most that file's (``exp`` is monotone to within an ulp, hence the relative
margin). When that decay is below the budget-th best in the window, nothing left out could
enter the arm's list. Otherwise (files older than ``exp`` can tell apart, stamps far in the
future, unreadable stamps) the arm scores every file as before. Both branches sit in the one
statement, each behind a one-row gate, so the one ruled out costs nothing.
"""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.arm_holes import (
    MS_PER_HOUR,
    PARAM_ARM_LIMIT,
    ArmHoles,
    stamp_ms_sql,
)
from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain.instants import instant_ms
from memhtml.domain.reinforce import (
    SALIENCE_DECAY_PER_HOUR,
    SALIENCE_EXCLUDED_PREFIX,
    SALIENCE_EXCLUDED_TYPE,
)

ULP_MARGIN: Final = 1e-9
"""How much larger the budget-th decay must be than the window's last: far more than the
few ulps by which two ``exp`` results may disagree with their inputs' order."""

UPDATED_MS_INDEX: Final = "files_updated_ms"
"""The index of migration 0009 the window is read through."""

UPDATED_MS_SQL: Final = stamp_ms_sql("updated_at")
"""The update instant as ``files_updated_ms`` indexes it; a query must write it the same way
(with its table's alias) for SQLite to walk that index."""


def _decay(holes: ArmHoles, stamp_ms: str) -> str:
    now_ms = instant_ms(holes.now)
    if now_ms is None:
        raise ValueError(f"the salience instant is unreadable: {holes.now!r}")
    hours = f"(({now_ms} - {stamp_ms}) / {MS_PER_HOUR}.0)"
    # An unreadable stamp gives NULL, which coalesce turns into a decay of 0: infinitely old,
    # never an error (docs/decisions.md §3).
    return f"coalesce(exp(-{SALIENCE_DECAY_PER_HOUR!r} * {hours}), 0.0)"


def salience_sql(holes: ArmHoles) -> str:
    """``(path, rank)``: the in-scope files by salience, highest first, ties by path."""
    prefix = text_literal(SALIENCE_EXCLUDED_PREFIX)
    # The exclusions live in this arm only: an excluded row keeps its other ranks. substr, not
    # LIKE, because LIKE folds case and reads `_` as a wildcard.
    kept = (
        f"f.memory_type <> {text_literal(SALIENCE_EXCLUDED_TYPE)} "
        f"AND substr(f.path, 1, {len(SALIENCE_EXCLUDED_PREFIX)}) <> {prefix} {holes.scope('f')}"
    )
    stateless = "NOT EXISTS (SELECT 1 FROM state.access a WHERE a.path = f.path)"
    with_state = (
        "SELECT f.path AS path, "
        f"{_decay(holes, stamp_ms_sql('coalesce(a.last_accessed_at, f.updated_at)'))} "
        "+ ln(1 + coalesce(a.access_count, 0)) + max(coalesce(a.outcome_score, 0.0), 0.0) "
        # CROSS JOIN keeps the (usually short) state plane as the outer loop.
        f"AS salience FROM state.access a CROSS JOIN files f ON f.path = a.path WHERE {kept}"
    )
    at = _updated_ms("f")
    # Named, because without statistics SQLite may prefer a smaller partial index and sort.
    of = f"FROM files f INDEXED BY {UPDATED_MS_INDEX} WHERE {stateless} AND {kept}"
    # The cut: the update instant of the budget-th file, newest first. The window is every file
    # updated after it, and the first files by path of those updated at it: those share one
    # decay, so only the budget's worth with the smallest paths can rank.
    cut = f"SELECT {at} AS u {of} ORDER BY {at} DESC, f.path LIMIT 1 OFFSET ?{PARAM_ARM_LIMIT} - 1"
    window = (
        f"SELECT f.path AS path, {_decay(holes, at)} AS salience {of} "
        f"AND {at} > (SELECT u FROM c) "
        f"UNION ALL SELECT path, salience FROM (SELECT f.path AS path, {_decay(holes, at)} "
        f"AS salience {of} AND {at} = (SELECT u FROM c) "
        f"ORDER BY f.path LIMIT ?{PARAM_ARM_LIMIT}) "
        # No cut (fewer files than the budget, or unreadable stamps within it): every file.
        f"UNION ALL SELECT f.path, {_decay(holes, at)} "
        f"{_only_if('NOT EXISTS (SELECT 1 FROM c WHERE u IS NOT NULL)')} {stateless} AND {kept}"
    )
    # The newest instant left out, read from the index just below the cut.
    below = f"SELECT {at} AS u {of} AND {at} < (SELECT u FROM c) ORDER BY {at} DESC LIMIT 1"
    budget_th = (
        f"(SELECT salience FROM w ORDER BY salience DESC LIMIT 1 OFFSET ?{PARAM_ARM_LIMIT} - 1)"
    )
    exact = (
        f"((SELECT u FROM c) IS NULL OR ({budget_th} > 0.0 AND ((SELECT u FROM n) IS NULL "
        f"OR (SELECT {_decay(holes, 'u')} FROM n) * (1.0 + {ULP_MARGIN!r}) < {budget_th})))"
    )
    every = (
        f"SELECT f.path AS path, {_decay(holes, at)} AS salience "
        f"{_only_if('NOT (SELECT ok FROM x)')} {stateless} AND {kept}"
    )
    return (
        f"WITH c AS MATERIALIZED ({cut}), w AS MATERIALIZED ({window}), "
        f"n AS MATERIALIZED ({below}), x AS MATERIALIZED (SELECT {exact} AS ok) "
        "SELECT path, ROW_NUMBER() OVER (ORDER BY salience DESC, path) FROM ("
        f"SELECT path, salience FROM ({with_state} "
        "UNION ALL SELECT path, salience FROM (SELECT 1 WHERE (SELECT ok FROM x)) CROSS JOIN w "
        f"UNION ALL {every}) "
        f"ORDER BY salience DESC, path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def _only_if(condition: str) -> str:
    """``FROM files f WHERE``, behind a one-row gate that is empty unless ``condition`` holds.

    A condition without a column is still tested once per row when it holds a subquery;
    ``CROSS JOIN`` keeps the gate as the outer loop, so an empty one skips the scan outright.
    """
    return f"FROM (SELECT 1 WHERE {condition}) CROSS JOIN files f WHERE"


def _updated_ms(alias: str) -> str:
    return UPDATED_MS_SQL.replace("updated_at", f"{alias}.updated_at")
