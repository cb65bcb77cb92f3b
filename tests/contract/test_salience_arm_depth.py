"""The salience arm's statement against its pure twin where its cut matters (issue 17).

The statement scores the read memories in full and takes the never-read ones from an index in
``updated_at`` order, cut at the arm's budget (``salience_sql.py``). The fused twin test holds at
most eight memories; here up to ninety, many never read, with stamps that tie, stamps so old
their decay rounds to 0, stamps so far ahead it overflows, and stamps SQLite cannot read, so
the cut is taken, widened and given up on, against ``salience_score`` over every row.
"""

from __future__ import annotations

from typing import Final

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.fused_search import run_fusion
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan
from memhtml.adapters.sqlite.salience_sql import salience_arm_sql
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.domain.fusion import RANK_ARMS, Fused
from memhtml.domain.reinforce import AccessRow
from memhtml.domain.rrf import fuse
from memhtml.domain.scope import SearchScope, scope_admits
from tests.fakes.retrieval_rows import MemoryRow, load_rows, open_index, scope_facts
from tests.fakes.salience_twin import salience_order

NOW: Final = "2026-10-01T00:00:00Z"
# Ordinary stamps (two of them equal to the millisecond), stamps whose decay is 0 or infinite,
# and ones julianday() cannot read.
STAMPS: Final = (
    "2026-09-30T23:00:00Z",
    "2026-09-14T07:02:11Z",
    "2026-09-14 09:02:11+02:00",
    "2026-01-01T00:00:00Z",
    "2026-10-02T00:00:00Z",
    "1990-01-01T00:00:00Z",
    "1985-06-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
    "2099-06-01T00:00:00Z",
    "soon",
)
ORDINARY: Final = STAMPS[:5]
# When a memory was last read: also long enough ago that only its static part can rank it
# (salience_sql.RECENT_DAYS), and just inside that window under a far western offset.
READ_STAMPS: Final = (
    "2025-03-01T00:00:00Z",
    "2026-08-20T00:00:00Z",
    "2026-09-02T00:00:00Z",
    "2026-09-01T12:00:00-14:00",
)
FOLDERS: Final = ("areas/", "projects/ws-a/", "resources/people/", "archive/2025/")
TYPES: Final = ("semantic", "episodic", "semantic", "task")
SALIENCE_ARM: Final = tuple(arm for arm in RANK_ARMS if arm.name == "salience")


@st.composite
def memories(draw: st.DrawFn) -> tuple[tuple[MemoryRow, ...], tuple[AccessRow, ...]]:
    """Up to ninety memories and access rows for a few of them (some for absent paths)."""
    count = draw(st.integers(0, 90) | st.integers(40, 90))
    # Most examples keep to ordinary stamps so the cut is taken; the rest mix in saturated ones.
    stamps = draw(st.sampled_from((ORDINARY, STAMPS)))
    rows = []
    for index in range(count):
        folder = draw(st.sampled_from(FOLDERS))
        rows.append(
            MemoryRow(
                path=f"{folder}m{index:02d}.html",
                memory_type=draw(st.sampled_from(TYPES)),
                workspace="ws-a" if folder.startswith("projects/") else None,
                updated_at=draw(st.sampled_from(stamps)),
            )
        )
    # Up to forty read rows with a wide spread of static parts, so the read cut is taken.
    read = draw(st.lists(st.integers(0, 99), unique=True, max_size=40))
    access = tuple(
        AccessRow(
            path=f"{FOLDERS[n % 2]}m{n:02d}.html",
            access_count=draw(st.integers(0, 9) | st.integers(0, 60)),
            reinforcement_count=0,
            outcome_score=draw(st.sampled_from([-1.0, 0.0, 0.4, 1.0])),
            last_accessed_at=draw(st.one_of(st.none(), st.sampled_from(stamps + READ_STAMPS))),
            updated_at=NOW,
        )
        for n in read
    )
    return tuple(rows), access


scopes = st.sampled_from(
    (
        SearchScope(),
        SearchScope(include_archived=True),
        SearchScope(workspace="ws-a"),
        SearchScope(memory_types=("episodic",)),
    )
)


@settings(max_examples=150, deadline=None)
@given(drawn=memories(), scope=scopes, arm_limit=st.sampled_from([40, 20, 7, 1]))
def test_salience_arm_equals_its_twin(
    drawn: tuple[tuple[MemoryRow, ...], tuple[AccessRow, ...]], scope: SearchScope, arm_limit: int
) -> None:
    """Same paths, same order, whichever side of the cut the rows fall."""
    rows, access = drawn
    db = open_index()
    load_rows(db, rows, access=access)
    admitted = [row for row in rows if scope_admits(scope, scope_facts(row))]
    actual = run_fusion(
        db,
        FusionPlan(arms=SALIENCE_ARM, now=NOW),
        assemble_scope(scope),
        match=None,
        vector=None,
        limit=100,
        arm_limit=arm_limit,
    )
    expected = fuse({"salience": salience_order(admitted, access, NOW)[:arm_limit]}, limit=100)
    assert [(f.path, f.ranks) for f in actual] == [(f.path, f.ranks) for f in expected]


def salience_arm_alone(db: Database, *, arm_limit: int) -> tuple[Fused, ...]:
    """The salience arm's list through the fused statement, unscoped, as the store runs it."""
    return run_fusion(
        db,
        FusionPlan(arms=SALIENCE_ARM, now=NOW),
        assemble_scope(SearchScope()),
        match=None,
        vector=None,
        limit=100,
        arm_limit=arm_limit,
    )


def test_old_memories_past_the_cut_tie_at_zero_and_are_ordered_by_path() -> None:
    """Fifty memories decayed to 0 tie; the arm keeps the first forty by path, not by stamp."""
    rows = tuple(
        MemoryRow(path=f"areas/m{n:02d}.html", updated_at=f"{1950 + n}-01-01T00:00:00Z")
        for n in range(50)
    )
    db = open_index()
    load_rows(db, rows)
    found = salience_arm_alone(db, arm_limit=40)
    assert [f.path for f in found] == [f"areas/m{n:02d}.html" for n in range(40)]


@pytest.mark.parametrize(
    ("last_read", "updated_at", "count", "outcome"),
    [
        ("2026-09-30T23:00:00Z", "2020-01-01T00:00:00Z", 11, 0.4),  # read an hour ago
        ("2026-10-20T00:00:00Z", "2020-01-01T00:00:00Z", 11, 0.4),  # read after the instant
        (None, "2026-09-30T23:00:00Z", 11, 0.4),  # never stamped: the file's update stands in
        # 28 days ago (a far western date inside the window): a decay of 0.0012 outweighs a
        # static part 0.0005 below the cut.
        ("2026-09-02T10:00:00-14:00", "2020-01-01T00:00:00Z", 20, 0.3995),
        # Dated before the window's first day, yet 29 days 10 hours old under its offset: a
        # decay of 0.00086 outweighs 0.0008, which is why the bound allows a day of slack.
        ("2026-08-31T23:59:59-14:00", "2020-01-01T00:00:00Z", 20, 0.3992),
    ],
)
def test_a_recent_read_lifts_a_memory_past_the_static_cut(
    last_read: str | None, updated_at: str, count: int, outcome: float
) -> None:
    """Ten memories read often but long ago set the cut's static part; one read less often
    but recently scores above them all the same, so the cut must not drop it."""
    rows = [
        MemoryRow(path=f"areas/old{n}.html", updated_at="2020-01-01T00:00:00Z") for n in range(10)
    ]
    rows.append(MemoryRow(path="areas/recent.html", updated_at=updated_at))
    access = [
        AccessRow(
            path=f"areas/old{n}.html",
            access_count=20,
            reinforcement_count=0,
            outcome_score=0.4,
            last_accessed_at="2024-01-01T00:00:00Z",
            updated_at=NOW,
        )
        for n in range(10)
    ]
    access.append(
        AccessRow(
            path="areas/recent.html",
            access_count=count,
            reinforcement_count=0,
            outcome_score=outcome,
            last_accessed_at=last_read,
            updated_at=NOW,
        )
    )
    db = open_index()
    load_rows(db, tuple(rows), access=tuple(access))
    found = salience_arm_alone(db, arm_limit=10)
    expected = salience_order(rows, tuple(access), NOW)[:10]
    assert "areas/recent.html" == expected[0]
    assert expected == [f.path for f in found]


def test_never_read_memories_are_read_from_the_salience_index() -> None:
    """The plan walks migration 0010's index for never-read memories and state migration
    S0002's for read ones, so the arm does not decay every row."""
    db = open_index()
    sql = salience_arm_sql(lambda alias: f"AND {alias}.archived = 0", now="?1", limit_param=2)
    plan = " | ".join(str(row[3]) for row in db.all(f"EXPLAIN QUERY PLAN {sql}", (0, 40)))
    assert "SCAN f USING INDEX files_salience_order" in plan
    assert "SCAN g USING INDEX files_salience_order" in plan
    # The read cut's budget-th static part comes from S0002's index, in its order.
    assert "SCAN a USING INDEX access_static" in plan
