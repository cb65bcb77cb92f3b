"""The shape of the fused statement: arm CTEs, placeholders, inlined weights, vector spaces."""

from __future__ import annotations

import re
from typing import Final

import attrs
import pytest

from memhtml.adapters.sqlite.arm_sql import (
    ARM_SQL,
    ArmHoles,
    graph_ctes,
)
from memhtml.adapters.sqlite.fused_search import run_fusion
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan, build_rrf_sql
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.domain.fusion import RANK_ARMS, arm_named
from memhtml.domain.scope import SearchScope
from tests.fakes.retrieval_rows import (
    DEFAULT_STAMP,
    TEST_SPACE,
    ChunkRow,
    EdgeRow,
    MemoryRow,
    load_rows,
    open_index,
)

NOW: Final = "2026-10-01T00:00:00Z"


def _corpus() -> list[MemoryRow]:
    return [
        MemoryRow(
            path=f"areas/{name}.html",
            fts_text=f"cache {name}",
            updated_at=f"2026-09-0{i}",
            chunks=(ChunkRow(text=name, vector=(float(i), 1.0, 0.0, 0.0, 0.0, 0.0)),),
            tags=frozenset({"ops", name}),
        )
        for i, name in enumerate(("a", "b", "c"), start=1)
    ]


def test_no_firing_arm_builds_no_statement() -> None:
    """No arm: None from the builder and an empty result from the run, never `FROM ()`."""
    plan = FusionPlan(arms=(), now=NOW)
    assert None is build_rrf_sql(plan, assemble_scope())
    assert () == run_fusion(open_index(), plan, assemble_scope(), match=None, vector=None, limit=5)


@pytest.mark.parametrize("name", [arm.name for arm in RANK_ARMS])
def test_each_arm_returns_exactly_path_and_rank_from_one(name: str) -> None:
    """Every arm's CTE has two columns, and its ranks count 1, 2, 3 in row order."""
    db = open_index()
    # The graph arm reaches a, b and c from the seeds (the fts arm's top three) by links.
    edges = [
        EdgeRow(src_path="areas/c.html", rel="fixes", dst_path="areas/a.html"),
        EdgeRow(src_path="areas/c.html", rel="fixes", dst_path="areas/b.html"),
        EdgeRow(src_path="areas/a.html", rel="relates_to", dst_path="areas/c.html"),
    ]
    corpus = _corpus()
    if name == "session":  # the arm ranks only episodic memories of a session
        corpus = [attrs.evolve(row, memory_type="episodic", session_id="chat-1") for row in corpus]
    load_rows(db, corpus, edges=edges)
    seeded = name == "graph"
    holes = ArmHoles(
        file_filter=assemble_scope().file_filter,
        gate="",
        embed_model=TEST_SPACE,
        now=NOW,
        seed_ctes=("arm_fts",) if seeded else (),
        windows=6,
    )
    keys = '["tag:ops", "tag:a", "tag:b", "tag:c"]'
    windows = f'["{DEFAULT_STAMP[:10]}|{DEFAULT_STAMP[:10]}"]'
    params = ("cache", 40, None, pack_f32((1.0, 0.0, 0.0, 0.0, 0.0, 0.0)), keys, windows)
    used = {"vector": 4, "entity": 5, "time": 6, "time_words": 6}.get(name, 2)
    fts = f"arm_fts(path, rank) AS ({ARM_SQL['fts'](holes)})"
    seed = f"WITH {', '.join((fts, *graph_ctes(holes)))} " if seeded else ""
    rows = db.all(f"{seed}SELECT * FROM ({ARM_SQL[name](holes)})", params[:used])
    assert [2] * len(rows) == [len(row) for row in rows]
    assert [1, 2, 3] == [row[1] for row in rows]


def test_weights_and_the_constant_are_inlined_not_bound() -> None:
    """Overrides appear as literals; without a scope the statement names only ?1–?5, the time
    arm's windows right after them, and the salience instant last."""
    plan = FusionPlan(
        arms=RANK_ARMS, weights=(("fts", 0.25),), rrf_k=20, embed_model=TEST_SPACE, now=NOW
    )
    sql = build_rrf_sql(plan, assemble_scope())
    assert sql is not None
    assert "coalesce(0.25 / (arm_fts.rank + 20), 0.0)" in sql
    assert "coalesce(0.4 / (arm_salience.rank + 20), 0.0)" in sql
    assert {"1", "2", "3", "4", "5", "6", "7"} == set(re.findall(r"\?(\d+)", sql))
    assert "((?7 - " in sql


def test_the_statement_text_does_not_change_with_the_instant() -> None:
    """The salience instant is bound, not inlined: two searches a second apart compile one
    statement, which the driver's cache keeps prepared."""
    scope = assemble_scope(SearchScope(workspace="ops"))
    sqls = {
        build_rrf_sql(FusionPlan(arms=RANK_ARMS, embed_model=TEST_SPACE, now=now), scope)
        for now in (NOW, "2026-10-01T00:00:01Z", "2027-03-04T05:06:07Z")
    }
    assert 1 == len(sqls)


def test_scope_values_keep_their_numbers_whichever_arms_fire() -> None:
    """With or without the vector and entity arms, the workspace binds at ?6."""
    scope = assemble_scope(SearchScope(workspace="ops"))
    for arms in (RANK_ARMS, (arm_named("recency"),)):
        sql = build_rrf_sql(FusionPlan(arms=arms, embed_model=TEST_SPACE, now=NOW), scope)
        assert sql is not None
        assert "f.workspace = ?6" in sql


def test_the_vector_arm_reads_only_the_configured_space() -> None:
    """Vectors of another space (another width, even) are neither ranked nor an error."""
    db = open_index()
    load_rows(db, _corpus())
    load_rows(
        db,
        [MemoryRow(path="areas/z.html", chunks=(ChunkRow(text="z", vector=(1.0, 0.0)),))],
        model="other@2",
    )
    plan = FusionPlan(arms=(arm_named("vector"),), embed_model=TEST_SPACE, now=NOW)
    fused = run_fusion(
        db,
        plan,
        assemble_scope(),
        match=None,
        vector=pack_f32((1.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
        limit=10,
    )
    assert ["areas/c.html", "areas/b.html", "areas/a.html"] == [f.path for f in fused]


def test_a_zero_vector_sits_at_distance_one() -> None:
    """No direction, no cosine: the domain's convention (distance 1) ranks it, not NULL first."""
    db = open_index()
    rows = [
        MemoryRow(path="areas/zero.html", chunks=(ChunkRow(text="z", vector=(0.0,) * 6),)),
        MemoryRow(path="areas/near.html", chunks=(ChunkRow(text="n", vector=(1.0,) + (0.0,) * 5),)),
        MemoryRow(path="areas/far.html", chunks=(ChunkRow(text="f", vector=(-1.0,) + (0.0,) * 5),)),
    ]
    load_rows(db, rows)
    plan = FusionPlan(arms=(arm_named("vector"),), embed_model=TEST_SPACE, now=NOW)
    fused = run_fusion(
        db, plan, assemble_scope(), match=None, vector=pack_f32((1.0,) + (0.0,) * 5), limit=10
    )
    assert ["areas/near.html", "areas/zero.html", "areas/far.html"] == [f.path for f in fused]


def test_an_unreadable_salience_instant_is_a_bug_not_a_query() -> None:
    """The clock always gives a readable instant; anything else fails before any SQL runs,
    also once the same plan's text was built (and kept) for a readable one."""
    plan = FusionPlan(arms=(arm_named("salience"),), now=NOW)
    assert build_rrf_sql(plan, assemble_scope()) is not None
    with pytest.raises(ValueError, match="unreadable"):
        build_rrf_sql(attrs.evolve(plan, now="yesterday"), assemble_scope())


@pytest.mark.parametrize("by_vector", [True, False])
def test_the_time_arm_reads_its_windows_from_the_day_index(by_vector: bool) -> None:
    """Each window is a range of migration 0012's index on the stamp's day, so a query that
    names a date does not test every file against every window."""
    holes = ArmHoles(
        file_filter=assemble_scope().file_filter,
        gate="",
        embed_model=TEST_SPACE,
        now=NOW,
        windows=6,
        time_by_vector=by_vector,
    )
    params = ("cache", 40, None, pack_f32((1.0, 0.0, 0.0, 0.0, 0.0, 0.0)), "[]", "[]")
    plan = open_index().all(f"EXPLAIN QUERY PLAN {ARM_SQL['time'](holes)}", params)
    assert any("INDEX files_event_day (<expr>>? AND <expr><?)" in str(row[3]) for row in plan), plan
