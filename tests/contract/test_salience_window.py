"""The salience arm's window against its pure twin, on stores larger than the window.

The arm reads state-less files newest first through an index and stops after twice its budget
(adapters/sqlite/salience_sql.py); the fused-statement twin test covers it on eight files. Here
stores of up to 40 files with stamps that tie, underflow ``exp`` to 0, overflow it to +inf or
cannot be read, so both the window and the arm's fallback to scoring every file are exercised,
and each answer must be the twin's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan, run_fusion
from memhtml.adapters.sqlite.salience_sql import UPDATED_MS_SQL
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.domain.fusion import ArmNeed, active_arms
from memhtml.domain.reinforce import (
    AccessRow,
    salience_applies,
    salience_hours,
    salience_score,
)
from memhtml.domain.scope import SearchScope, scope_admits
from tests.fakes.retrieval_rows import TEST_SPACE, MemoryRow, load_rows, open_index, scope_facts

NOW: Final = "2026-10-01T00:00:00Z"
# Recent stamps (some equal), ones so old that exp() gives exactly 0, ones so far ahead that it
# gives +inf, a zone offset, and text julianday() cannot read.
STAMPS: Final = (
    "2026-09-30T23:00:00Z",
    "2026-09-01T00:00:00Z",
    "2026-09-01T02:00:00+02:00",
    "2026-01-01T00:00:00Z",
    "2024-05-05T05:05:05.5Z",
    "2001-01-01T00:00:00Z",
    "1999-12-31T00:00:00Z",
    "2040-01-01T00:00:00Z",
    "2041-01-01T00:00:00Z",
    "someday",
)
TYPES: Final = ("semantic", "episodic", "task")


@st.composite
def stores(draw: st.DrawFn) -> tuple[tuple[MemoryRow, ...], tuple[AccessRow, ...]]:
    """Up to 40 memories over a few stamps, a few of them with a state-plane row."""
    count = draw(st.integers(0, 40))
    names = [f"{('areas', 'projects/ws', 'resources/people', 'archive/2025')[i % 4]}/m{i:02}.html"
             for i in range(count)]  # fmt: skip
    stamp = st.sampled_from(STAMPS)
    rows = tuple(
        MemoryRow(path=name, memory_type=draw(st.sampled_from(TYPES)), updated_at=draw(stamp))
        for name in names
    )
    held = draw(st.lists(st.sampled_from(names), unique=True, max_size=5)) if names else []
    access = tuple(
        AccessRow(
            path=path,
            access_count=draw(st.integers(0, 3)),
            reinforcement_count=0,
            outcome_score=draw(st.sampled_from([-0.5, 0.0, 0.5])),
            last_accessed_at=draw(st.one_of(st.none(), stamp)),
            updated_at=NOW,
        )
        for path in held
    )
    return rows, access


def _twin(rows: Sequence[MemoryRow], access: Sequence[AccessRow], scope: SearchScope) -> list[str]:
    plane = {a.path: a for a in access}
    scores = {}
    for row in rows:
        if not scope_admits(scope, scope_facts(row)):
            continue
        if not salience_applies(row.path, row.memory_type):
            continue
        a = plane.get(row.path)
        hours = salience_hours(NOW, a.last_accessed_at if a else None, row.updated_at)
        scores[row.path] = salience_score(
            hours, a.access_count if a else 0, a.outcome_score if a else 0.0
        )
    return sorted(scores, key=lambda p: (-scores[p], p))


def _arm(db: Database, scope: SearchScope, arm_limit: int) -> list[str]:
    plan = FusionPlan(
        arms=active_arms({ArmNeed.STATE}, selection=["salience"]),
        weights=(),
        rrf_k=20,
        gate_priors=False,
        embed_model=TEST_SPACE,
        now=NOW,
    )
    scoped = assemble_scope(scope)
    fused = run_fusion(db, plan, scoped, match=None, vector=None, limit=200, arm_limit=arm_limit)
    return [f.path for f in fused]


@settings(max_examples=150, deadline=None)
@given(
    store=stores(),
    scope=st.sampled_from([SearchScope(), SearchScope(include_archived=True)]),
    arm_limit=st.integers(1, 12),
)
@example(  # every file older than exp() can tell apart: all tie at 0, the fallback ranks them
    store=(tuple(MemoryRow(path=f"areas/m{i}.html", updated_at=STAMPS[5]) for i in range(9)), ()),
    scope=SearchScope(),
    arm_limit=3,
)
@example(  # every file far in the future: all tie at +inf
    store=(tuple(MemoryRow(path=f"areas/m{i}.html", updated_at=STAMPS[7]) for i in range(9)), ()),
    scope=SearchScope(),
    arm_limit=2,
)
def test_the_arm_ranks_as_the_twin(
    store: tuple[tuple[MemoryRow, ...], tuple[AccessRow, ...]], scope: SearchScope, arm_limit: int
) -> None:
    rows, access = store
    db = open_index()
    load_rows(db, rows, access=access)
    assert _twin(rows, access, scope)[:arm_limit] == _arm(db, scope, arm_limit)


def test_the_index_holds_the_arms_expression() -> None:
    """The migration's index expression is the one the arm orders by, so SQLite walks it."""
    db = open_index()
    (sql,) = db.all("SELECT sql FROM sqlite_master WHERE name = 'files_updated_ms'")[0]
    assert f"{UPDATED_MS_SQL} DESC, path" in str(sql)
    rows = [MemoryRow(path=f"areas/m{i:03}.html", updated_at=STAMPS[i % 5]) for i in range(300)]
    load_rows(db, rows)
    window = (
        f"EXPLAIN QUERY PLAN SELECT path FROM files f "
        f"ORDER BY {UPDATED_MS_SQL.replace('updated_at', 'f.updated_at')} DESC, f.path LIMIT 10"
    )
    plan = " ".join(str(row[-1]) for row in db.all(window))
    assert "files_updated_ms" in plan
    assert "TEMP B-TREE" not in plan
