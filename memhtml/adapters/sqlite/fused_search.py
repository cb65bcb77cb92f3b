"""Running the fused statement: its values bound in placeholder order, its rows read as the
twin's :class:`memhtml.domain.fusion.Fused` values (docs/ranking.md §4).

The statement's text comes from :mod:`memhtml.adapters.sqlite.retrieval_sql`; this module
checks that each firing arm has its input, binds the fixed prefix, the scope's values and
whatever ranked lists, windows and instant follow them, and reads each row's score, per-arm
ranks and graph step.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import attrs

from memhtml.adapters.sqlite.arm_sql import (
    FIXED_PARAMS,
    PARAM_FINAL_LIMIT,
    PARAM_QUERY_ENTITIES,
    PARAM_QUERY_VECTOR,
)
from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan, build_rrf_sql
from memhtml.adapters.sqlite.salience_sql import salience_now_ms
from memhtml.adapters.sqlite.scope_sql import AssembledScope
from memhtml.domain.fts_query import ALL_JOINER
from memhtml.domain.fusion import DEFAULT_ARM_LIMIT, Fused, ranks_windows
from memhtml.domain.graph import GraphVia


def bound_params(
    prefix: Sequence[SqlValue],
    scope: AssembledScope,
    used: int,
    after: Sequence[SqlValue] = (),
) -> tuple[SqlValue, ...]:
    """The values to bind: the fixed prefix (``?1``–``?5``), then the scope's, then ``after``.

    The driver insists on exactly as many values as the highest placeholder number, so the
    prefix is cut to ``used`` (the highest fixed number referenced) when nothing follows it.
    """
    padded = (tuple(prefix) + (None,) * FIXED_PARAMS)[:FIXED_PARAMS]
    if scope.params or after:
        return padded + scope.params + tuple(after)
    return padded[:used]


def run_fusion(
    db: Database,
    plan: FusionPlan,
    scope: AssembledScope,
    *,
    match: str | None,
    vector: bytes | None,
    limit: int,
    arm_limit: int = DEFAULT_ARM_LIMIT,
    entities: Sequence[str] = (),
    vector_ranked: Sequence[str] | None = None,
    fts_ranked: Sequence[str] | None = None,
    windows: Sequence[str] = (),
) -> tuple[Fused, ...]:
    """Run the fused statement and read its rows as the twin's :class:`Fused` values.

    Args:
        db: The index, with the state plane attached when salience is among the arms.
        plan: The arms and switches.
        scope: The assembled scope.
        match: The MATCH text (``?1``); required when ``fts`` fires.
        vector: The packed query vector (``?4``); required when ``vector`` fires.
        limit: How many fused candidates to keep (``?3``).
        arm_limit: Each arm's candidate budget (``?2``).
        entities: The query's entity keys (``?5``); required when ``entity`` fires.
        vector_ranked: The vector arm's list, ranked already inside the same scope, bound and
            space (``vector_preselect``); ``None`` scans the vectors in the statement.
        fts_ranked: The fts arm's list, ranked already by a statement of that arm alone with
            the same MATCH text, scope and ``arm_limit`` (the feedback word pass); ``None``
            matches inside the statement. Read only when ``fts`` fires.
        windows: The query's day windows as ``start|end`` texts; required when ``time`` or
            ``time_words`` fires.

    Raises:
        ValueError: A firing arm's input is missing (a caller bug, not a user error).
        StorageFailure: The statement fails.
    """
    names = [arm.name for arm in plan.arms]
    if {"fts", "context"} & set(names) and not match:
        raise ValueError("the full-text arms need a non-empty MATCH text")
    if "vector" in names and vector is None:
        raise ValueError("the vector arm needs a query vector")
    if "time" in names and (not windows or (vector is None and not match)):
        raise ValueError("the time arm needs the query's windows and a vector or MATCH text")
    if "time_words" in names and (not windows or not match):
        raise ValueError("the time_words arm needs the query's windows and MATCH text")
    if "entity" in names and not entities:
        raise ValueError("the entity arm needs the query's entities")
    if vector_ranked is not None:
        plan = attrs.evolve(plan, vector_ranked=True)
    if fts_ranked is not None and "fts" in names:
        plan = attrs.evolve(plan, fts_ranked=True)
    plan = attrs.evolve(
        plan,
        time_by_vector=vector is not None,
        any_form=match is not None and ALL_JOINER not in match,
    )
    sql = build_rrf_sql(plan, scope)
    if sql is None:
        return ()
    used = PARAM_FINAL_LIMIT
    if "vector" in names or ("time" in names and vector is not None):
        used = PARAM_QUERY_VECTOR
    if "entity" in names:
        used = PARAM_QUERY_ENTITIES
    keys = json.dumps(list(entities)) if entities else None
    after: tuple[SqlValue, ...] = (
        () if vector_ranked is None else (json.dumps(list(vector_ranked)),)
    )
    if plan.fts_ranked and fts_ranked is not None:
        after += (json.dumps(list(fts_ranked)),)
    if ranks_windows(plan.arms):
        after += (json.dumps(list(windows)),)
    if "salience" in names:
        after += (salience_now_ms(plan.now),)
    params = bound_params((match, arm_limit, limit, vector, keys), scope, used, after)
    rows = db.all(sql, params, operation="fused search")
    fused = []
    end = 2 + len(names)
    for row in rows:
        ranks = tuple(
            (name, int(rank))
            for name, rank in zip(names, row[2:end], strict=True)
            if rank is not None
        )
        score = row[1]
        if not isinstance(score, float | int):  # pragma: no cover - the sum is never NULL
            raise TypeError("fused score is not a number")
        via = None
        if len(row) > end and row[end] is not None:
            seed, rel, direction = row[end:]
            via = GraphVia(path=str(seed), rel=str(rel), direction=str(direction))
        fused.append(Fused(path=str(row[0]), score=float(score), ranks=ranks, via=via))
    return tuple(fused)
