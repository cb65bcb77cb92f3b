"""The warm vector arm (``vector_preselect``) against the scan inside the statement.

The preselector scores the held matrix, re-scores its nearest chunks in SQLite and answers only
when it can vouch for the answer; otherwise it hands back ``None`` and the statement scans.
Whatever it answers must be the scan's list exactly: same files, same order, under random
scopes, bounds, budgets, multi-chunk files, zero vectors and exact ties. And a held matrix must
never outlive the vectors it was loaded from.
"""

from __future__ import annotations

import random
from typing import Final

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.arm_sql import (
    PARAM_QUERY_VECTOR,
    ArmHoles,
    vector_distances_sql,
)
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.fused_search import bound_params
from memhtml.adapters.sqlite.scope_sql import AssembledScope, assemble_scope
from memhtml.adapters.sqlite.vector_preselect import (
    HOLD_FROM_SEARCH,
    PRESELECT_PER_SLOT,
    VectorPreselector,
)
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.domain.scope import SearchScope
from tests.fakes.retrieval_rows import TEST_SPACE, ChunkRow, MemoryRow, load_rows, open_index

DIM: Final = 6
PATHS: Final = tuple(
    f"{folder}/m{i:03d}.html"
    for i, folder in enumerate(["areas", "projects/ws-a", "resources", "archive/2025"] * 30)
)


def _vectors(seed: int, count: int) -> list[tuple[float, ...]]:
    """Small-integer vectors (exact in float32), many repeated, so exact ties come up."""
    rng = random.Random(seed)
    pool = [tuple(float(rng.randint(-3, 3)) for _ in range(DIM)) for _ in range(count // 3 + 1)]
    pool.append((0.0,) * DIM)
    return [rng.choice(pool) for _ in range(count)]


def _corpus(seed: int, files: int) -> list[MemoryRow]:
    rng = random.Random(seed)
    vectors = iter(_vectors(seed, files * 3))
    rows = []
    for path in PATHS[:files]:
        chunks = tuple(
            ChunkRow(text="chunk", vector=next(vectors) if rng.random() > 0.1 else None)
            for _ in range(rng.randint(1, 3))
        )
        rows.append(
            MemoryRow(
                path=path,
                memory_type=rng.choice(["semantic", "episodic", "procedural"]),
                workspace="ws-a" if path.startswith("projects/") else None,
                chunks=chunks,
            )
        )
    return rows


def _warm(db: Database) -> VectorPreselector:
    """A preselector past the process's first vector search, which always leaves it to the scan."""
    preselector = VectorPreselector(db)
    scope = assemble_scope(SearchScope())
    first = preselector.ranked(
        _holes(scope, None), scope, vector=pack_f32((1.0,) * DIM), arm_limit=1
    )
    assert first is None
    return preselector


def _holes(scope: AssembledScope, bound: float | None) -> ArmHoles:
    return ArmHoles(
        file_filter=scope.file_filter,
        gate="",
        embed_model=TEST_SPACE,
        now="2026-10-01T00:00:00Z",
        vector_max_distance=bound,
    )


def _scanned(
    db: Database, holes: ArmHoles, scope: AssembledScope, query: bytes, limit: int
) -> list[str]:
    """The statement's own scan: every vector of the space inside the scope."""
    params = bound_params((None, limit, None, query), scope, PARAM_QUERY_VECTOR)
    return [str(row[0]) for row in db.all(vector_distances_sql(holes), params)]


scopes = st.sampled_from(
    [
        SearchScope(),
        SearchScope(include_archived=True),
        SearchScope(workspace="ws-a"),
        SearchScope(memory_types=("episodic",)),
        SearchScope(memory_types=("semantic", "procedural"), include_archived=True),
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    files=st.integers(1, len(PATHS)),
    scope=scopes,
    bound=st.sampled_from([None, None, 0.2, 0.6, 1.0]),
    limit=st.integers(1, 6),
    query_seed=st.integers(0, 50),
)
def test_the_preselected_list_is_the_scan_whenever_one_is_given(
    seed: int,
    files: int,
    scope: SearchScope,
    bound: float | None,
    limit: int,
    query_seed: int,
) -> None:
    """Any answer the matrix gives equals the in-statement scan; ``None`` only means "scan"."""
    db = open_index(state=False)
    load_rows(db, _corpus(seed, files))
    assembled = assemble_scope(scope)
    holes = _holes(assembled, bound)
    query = pack_f32(_vectors(query_seed, 1)[0])
    answer = _warm(db).ranked(holes, assembled, vector=query, arm_limit=limit)
    if answer is not None:
        assert _scanned(db, holes, assembled, query, limit) == answer


def test_a_wide_store_is_answered_from_the_matrix_not_the_scan() -> None:
    """With far more chunks than the first preselection, the matrix answers, and exactly."""
    db = open_index(state=False)
    load_rows(db, _corpus(7, len(PATHS)))
    assembled = assemble_scope(SearchScope(include_archived=True))
    holes = _holes(assembled, None)
    query = pack_f32((1.0, 2.0, 0.0, -1.0, 3.0, 1.0))
    limit = 3
    assert len(PATHS) > limit * PRESELECT_PER_SLOT
    answer = _warm(db).ranked(holes, assembled, vector=query, arm_limit=limit)
    assert (answer, len(answer or ())) == (_scanned(db, holes, assembled, query, limit), limit)


def test_a_held_matrix_is_reloaded_after_any_change_to_the_vectors() -> None:
    """Rewriting the newest vector in place (same row, same count) is still seen."""
    db = open_index(state=False)
    rows = [
        MemoryRow(
            path=f"areas/v{i:03d}.html",
            chunks=(ChunkRow(text="c", vector=(1.0, float(i), 0, 0, 0, 0)),),
        )
        for i in range(60)
    ]
    load_rows(db, rows)
    assembled = assemble_scope(SearchScope())
    holes = _holes(assembled, None)
    preselector = _warm(db)
    query = pack_f32((0.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    before = preselector.ranked(holes, assembled, vector=query, arm_limit=1)
    newest = "areas/v059.html"
    db.write_all(
        [
            (
                "UPDATE embeddings SET vec = ? WHERE chunk_id IN "
                "(SELECT chunk_id FROM chunks WHERE path = ?)",
                (pack_f32((0.0, 0.0, 0.0, 0.0, 0.0, 1.0)), newest),
            )
        ],
        operation="rewrite one vector",
    )
    after = preselector.ranked(holes, assembled, vector=query, arm_limit=1)
    assert (before != [newest], after) == (True, [newest])
    assert after == _scanned(db, holes, assembled, query, 1)


def test_vectors_of_mixed_sizes_leave_the_arm_to_the_scan() -> None:
    """A space holding two vector sizes is not held as a matrix: the statement scans."""
    db = open_index(state=False)
    rows = [
        MemoryRow(path=f"areas/s{i:03d}.html", chunks=(ChunkRow(text="c", vector=(1.0,) * DIM),))
        for i in range(40)
    ]
    load_rows(db, rows)
    db.write_all(
        [
            (
                "UPDATE embeddings SET vec = ?, dim = 2 WHERE chunk_id IN "
                "(SELECT chunk_id FROM chunks WHERE path = 'areas/s000.html')",
                (pack_f32((1.0, 0.0)),),
            )
        ],
        operation="one short vector",
    )
    assembled = assemble_scope(SearchScope())
    answer = _warm(db).ranked(
        _holes(assembled, None), assembled, vector=pack_f32((1.0,) * DIM), arm_limit=1
    )
    assert answer is None


def test_a_tie_at_the_edge_of_the_preselection_is_left_to_the_scan() -> None:
    """Every vector equal and the held order unlike path order: the nearest chunks the matrix
    picks are not the smallest paths, so it must not answer with them."""
    db = open_index(state=False)
    rows = [
        MemoryRow(path=f"areas/t{i:03d}.html", chunks=(ChunkRow(text="c", vector=(1.0,) * DIM),))
        for i in range(100)
    ]
    load_rows(db, rows)
    # Chunk ids that sort against their paths (the held matrix follows chunk id order).
    renumber = "printf('%04d', 9999 - c.rowid)"
    db.write_all(
        [
            ("PRAGMA defer_foreign_keys = ON", ()),
            (
                f"UPDATE embeddings SET chunk_id = (SELECT {renumber} FROM chunks c "
                "WHERE c.chunk_id = embeddings.chunk_id)",
                (),
            ),
            (
                f"UPDATE chunks SET chunk_id = (SELECT {renumber} FROM chunks c "
                "WHERE c.rowid = chunks.rowid)",
                (),
            ),
        ],
        operation="renumber chunks",
    )
    assembled = assemble_scope(SearchScope())
    holes = _holes(assembled, None)
    query = pack_f32((1.0,) * DIM)
    answer = _warm(db).ranked(holes, assembled, vector=query, arm_limit=3)
    scanned = _scanned(db, holes, assembled, query, 3)
    assert (answer in (None, scanned), scanned) == (
        True,
        ["areas/t000.html", "areas/t001.html", "areas/t002.html"],
    )


def test_a_one_shot_process_never_loads_the_matrix() -> None:
    """The first vector search of a process scans (loading costs more than one scan)."""
    db = open_index(state=False)
    load_rows(db, _corpus(3, len(PATHS)))
    assembled = assemble_scope(SearchScope())
    preselector = VectorPreselector(db)
    query = pack_f32((1.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    answers = [
        preselector.ranked(_holes(assembled, None), assembled, vector=query, arm_limit=2)
        for _ in range(HOLD_FROM_SEARCH)
    ]
    assert (answers[0], answers[-1]) == (
        None,
        _scanned(db, _holes(assembled, None), assembled, query, 2),
    )
