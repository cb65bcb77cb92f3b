"""The fused SQL statement against its pure twin, ``domain.rrf.fuse`` (issue 5, the heart).

Hypothesis builds small corpora and queries. The twin's per-arm inputs are computed in Python
from the same rows: the fts order from a separate bm25 query, vector distances with the domain's
cosine, recency and salience with the domain formulas; the scope with ``scope_admits``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from datetime import date
from typing import Final

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.arm_sql import (
    ArmHoles,
)
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.fused_search import run_fusion
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.adapters.sqlite.vector_preselect import VectorPreselector
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.domain.entities import entity_key, entity_ranking, tag_key
from memhtml.domain.fts_query import fts_query_forms
from memhtml.domain.fusion import (
    RANK_ARMS,
    ArmKind,
    ArmNeed,
    ArmSpec,
    Fused,
    active_arms,
    arm_named,
)
from memhtml.domain.graph import GraphEdge, GraphVia, graph_ranking, session_edges
from memhtml.domain.lexical_context import context_documents, previous_in_session
from memhtml.domain.query_dates import DateWindow
from memhtml.domain.reinforce import AccessRow
from memhtml.domain.rrf import fuse
from memhtml.domain.scope import SearchScope, scope_admits
from memhtml.domain.vectors import cosine_distance
from tests.fakes.retrieval_rows import (
    TEST_SPACE,
    ChunkRow,
    EdgeRow,
    MemoryRow,
    load_rows,
    open_index,
    scope_facts,
)
from tests.fakes.salience_twin import salience_order
from tests.fakes.session_twin import context_facts, session_order

VOCAB: Final = ("cache", "drain", "vip", "deploy", "merge", "tuesday")
PATHS: Final = (
    "areas/a.html",
    "areas/B.html",
    "areas/é.html",
    "projects/ws-a/c.html",
    "projects/ws-b/d.html",
    "resources/people/e.html",
    "resources/f.html",
    "archive/2025/g.html",
)
# Stamps julianday() reads (zones, fractions, a rolled-over day) and ones it cannot.
STAMPS: Final = (
    "2026-01-01T00:00:00Z",
    "2026-03-01T12:00:00Z",
    "2026-09-14T07:02:11Z",
    "2026-09-14 09:02:11.5+02:00",
    "2026-02-30T00:00:00Z",
    "2027-01-01",
    "soon",
    # Decays that round to 0 and overflow to infinity: the salience arm's cut gives way there.
    "1990-01-01T00:00:00Z",
    "2099-06-01T00:00:00Z",
)
NOW_STAMPS: Final = ("2026-10-01T00:00:00Z", "2026-09-14T07:02:11Z", "2025-01-01T00:00:00Z")
ENTITIES: Final = (("person", "Sasha"), ("service", "api"), ("concept", "drain"))
TAGS: Final = ("ops", "Billing")
# Day windows around the stamps above: single days, a span across them, one past the end.
WINDOWS: Final = (
    DateWindow(start=date(2026, 3, 1), end=date(2026, 3, 1)),
    DateWindow(start=date(2026, 9, 7), end=date(2026, 9, 21)),
    DateWindow(start=date(2026, 1, 1), end=date(2026, 12, 31)),
    DateWindow(start=date(2026, 12, 25), end=date(2027, 1, 8)),
)
# Keys as the planner hands them over; "tag:ops" and "person:sasha" fold to what rows hold.
ENTITY_KEYS: Final = ("person:sasha", "service:api", "concept:drain", "tag:ops", "tag:billing")


def _separated_pool() -> tuple[tuple[tuple[float, ...], ...], tuple[tuple[float, ...], ...]]:
    """Query vectors, and chunk vectors whose distances to each query differ by over 1e-3.

    sqlite-vec computes in float32 and the twin in doubles, so two different vectors a hair
    apart could rank in either order; with every distinct distance well separated, only equal
    vectors tie, and those tie exactly on both sides. Small integers are exact in float32.
    """
    rng = random.Random(20261129)
    queries = tuple(tuple(float(rng.randint(-3, 3)) for _ in range(6)) for _ in range(3))
    pool: list[tuple[float, ...]] = [(0.0,) * 6]
    while len(pool) < 10:
        candidate = tuple(float(rng.randint(-3, 3)) for _ in range(6))
        if all(
            abs(cosine_distance(candidate, q) - cosine_distance(v, q)) > 1e-3
            for q in queries
            for v in pool
        ):
            pool.append(candidate)
    return queries, tuple(pool)


QUERY_VECTORS, CHUNK_VECTORS = _separated_pool()


@st.composite
def memory_rows(draw: st.DrawFn) -> tuple[MemoryRow, ...]:
    """Up to eight memories over overlapping words, stamps, types and vectors."""
    paths = draw(st.lists(st.sampled_from(PATHS), unique=True, max_size=len(PATHS)))
    rows = []
    for path in paths:
        words = draw(st.lists(st.sampled_from(VOCAB), max_size=5))
        chunks = draw(
            st.lists(
                st.builds(
                    ChunkRow,
                    text=st.just("chunk"),
                    vector=st.one_of(st.none(), st.sampled_from(CHUNK_VECTORS)),
                ),
                max_size=3,
            )
        )
        rows.append(
            MemoryRow(
                path=path,
                memory_type=draw(st.sampled_from(["semantic", "episodic", "task", "arc"])),
                entities=frozenset(draw(st.lists(st.sampled_from(ENTITIES), max_size=2))),
                tags=frozenset(draw(st.lists(st.sampled_from(TAGS), max_size=2))),
                body_text=" ".join(words),
                fts_text=" ".join(words),
                workspace=path.split("/")[1] if path.startswith("projects/") else None,
                created_at=draw(st.sampled_from(STAMPS)),
                updated_at=draw(st.sampled_from(STAMPS)),
                event_at=draw(st.one_of(st.none(), st.sampled_from(STAMPS))),
                session_id=draw(st.sampled_from((None, "chat-1", "chat-2"))),
                chunks=tuple(chunks),
            )
        )
    return tuple(rows)


# Links among the fixture's paths (some dangle: a path the rows may not hold).
edge_rows = st.lists(
    st.builds(
        EdgeRow,
        src_path=st.sampled_from(PATHS),
        rel=st.sampled_from(["fixes", "supports", "caused_by", "relates_to", "blocks"]),
        dst_path=st.sampled_from(PATHS),
    ).filter(lambda e: e.src_path != e.dst_path),
    unique_by=lambda e: (e.src_path, e.rel, e.dst_path),
    max_size=14,
)

access_rows = st.lists(
    st.builds(
        AccessRow,
        path=st.sampled_from(PATHS),
        access_count=st.integers(0, 50),
        reinforcement_count=st.just(0),
        outcome_score=st.sampled_from([-1.0, -0.3, 0.0, 0.3, 1.0]),
        last_accessed_at=st.one_of(st.none(), st.sampled_from(STAMPS)),
        updated_at=st.just("2026-01-01T00:00:00Z"),
    ),
    unique_by=lambda a: a.path,
    max_size=6,
)

# Mostly wide scopes, so most examples rank something; narrow ones still come up.
scopes = st.one_of(
    st.just(SearchScope()),
    st.just(SearchScope(include_archived=True)),
    st.builds(
        SearchScope,
        workspace=st.one_of(st.none(), st.sampled_from(["ws-a", "ws-b"])),
        memory_types=st.one_of(st.just(()), st.lists(st.sampled_from(["semantic", "task", "arc"]))),
        include_archived=st.booleans(),
        entity=st.sampled_from([None, None, "person:SASHA"]),
    ),
)

weights = st.dictionaries(
    st.sampled_from([arm.name for arm in RANK_ARMS]), st.sampled_from([0.0, 0.25, 0.4, 1.0, 2.0])
)


_BM25_SQL: Final = {
    "fts": "SELECT f.path, bm25(files_fts) FROM files_fts "
    "JOIN files f ON f.rowid = files_fts.rowid WHERE files_fts MATCH ?",
    "context": "SELECT x.path, bm25(context_fts) FROM context_fts "
    "JOIN file_context x ON x.rowid = context_fts.rowid WHERE context_fts MATCH ?",
}


def _bm25_order(db: Database, match: str, admitted: set[str], arm: str = "fts") -> list[str]:
    """A full-text arm's order from a separate query: bm25 per path, then (score, path)."""
    rows = db.all(_BM25_SQL[arm], (match,))
    scored = [(float(str(score)), str(path)) for path, score in rows if path in admitted]
    return [path for _, path in sorted(scored)]


def _vector_order(rows: Sequence[MemoryRow], query: tuple[float, ...]) -> list[str]:
    nearest = {
        row.path: min(cosine_distance(c.vector, query) for c in row.chunks if c.vector is not None)
        for row in rows
        if any(c.vector is not None for c in row.chunks)
    }
    return sorted(nearest, key=lambda p: (nearest[p], p))


def _time_order(
    db: Database,
    rows: Sequence[MemoryRow],
    query: tuple[float, ...] | None,
    any_match: str,
    windows: Sequence[DateWindow],
) -> list[str]:
    """Among the memories whose event (else creation) day is in a window: the vector order, or
    without a query vector the fts arm's bm25 order under the any-term form."""
    inside = [
        row
        for row in rows
        if any(
            w.holds(row.event_at if row.event_at is not None else row.created_at) for w in windows
        )
    ]
    if query is None:
        return _bm25_order(db, any_match, {row.path for row in inside}, "fts")
    return _vector_order(inside, query)


def _entity_order(rows: Sequence[MemoryRow], keys: Sequence[str], arm_limit: int) -> list[str]:
    held = {
        row.path: {entity_key(k, n) for k, n in row.entities} | {tag_key(t) for t in row.tags}
        for row in rows
    }
    return entity_ranking(held, keys, scope_size=len(rows), arm_limit=arm_limit)


def _recency_order(rows: Sequence[MemoryRow]) -> list[str]:
    by_path = sorted(rows, key=lambda r: r.path)
    # Two stable passes: newest first, path ascending among equal stamps.
    newest = sorted(by_path, key=lambda r: r.event_at or r.updated_at, reverse=True)
    return [row.path for row in newest]


def _assert_same(expected: Sequence[Fused], actual: Sequence[Fused]) -> None:
    assert [(f.path, f.ranks, f.via) for f in expected] == [
        (f.path, f.ranks, f.via) for f in actual
    ]
    for e, a in zip(expected, actual, strict=True):
        assert math.isclose(e.score, a.score, rel_tol=0, abs_tol=1e-9)


def _session_edges(rows: Sequence[MemoryRow], edges: Sequence[EdgeRow]) -> list[GraphEdge]:
    """The implicit session edges, from the context twin: a neighbour is kept on its memory's
    context document, so a memory without one has no edge to its predecessor."""
    facts = context_facts(rows, edges, lambda row: row.fts_text or "")
    documents = context_documents(facts)
    previous = previous_in_session(facts)
    return session_edges({path: prev for path, prev in previous.items() if path in documents})


def _twin(
    db: Database,
    rows: Sequence[MemoryRow],
    access: Sequence[AccessRow],
    edges: Sequence[EdgeRow],
    arms: Sequence[ArmSpec],
    scope: SearchScope,
    inputs: tuple[str, tuple[float, ...] | None, str, tuple[str, ...], tuple[DateWindow, ...], str],
    switches: tuple[bool, dict[str, float], float, int, int],
) -> tuple[Fused, ...]:
    """The twin's answer: per-arm lists computed in Python, folded by ``fuse``."""
    match, query_vector, now, keys, windows, any_match = inputs
    gate_priors, arm_weights, k, arm_limit, limit = switches
    admitted = [row for row in rows if scope_admits(scope, scope_facts(row))]
    full: dict[str, list[str]] = {}
    for arm in arms:
        if arm.name in ("fts", "context"):
            full[arm.name] = _bm25_order(db, match, {row.path for row in admitted}, arm.name)
        elif arm.name == "vector":
            assert query_vector is not None
            full["vector"] = _vector_order(admitted, query_vector)
        elif arm.name == "recency":
            full["recency"] = _recency_order(admitted)
        elif arm.name == "entity":
            full["entity"] = _entity_order(admitted, keys, arm_limit)
        elif arm.name == "time":
            full["time"] = _time_order(db, admitted, query_vector, any_match, windows)
        elif arm.name == "time_words":
            full["time_words"] = _time_order(db, admitted, None, any_match, windows)
        elif arm.name == "session":
            full["session"] = session_order(db, rows, admitted, any_match, arm_limit)
        elif arm.name == "graph":
            continue  # ranked below, from the other query arms' cut lists
        else:
            assert arm.name == "salience"
            full["salience"] = salience_order(admitted, access, now)
    rankings = {name: paths[:arm_limit] for name, paths in full.items()}
    vias: dict[str, GraphVia] = {}
    if any(arm.seeded for arm in arms):
        seeds = [rankings[arm.name] for arm in arms if arm.kind is ArmKind.QUERY and not arm.seeded]
        graph_edges = [
            GraphEdge(
                src=e.src_path,
                rel=e.rel,
                dst=e.dst_path,
                edge_class="task" if e.rel == "blocks" else "memory",
            )
            for e in edges
        ]
        graph_edges += _session_edges(rows, edges)
        ranked, vias = graph_ranking(seeds, graph_edges, {row.path for row in admitted})
        full["graph"] = ranked
        rankings["graph"] = ranked[:arm_limit]
    query_found = {p for arm in arms if arm.kind is ArmKind.QUERY for p in rankings[arm.name]}
    if gate_priors and any(arm.kind is ArmKind.QUERY for arm in arms):
        # The statement gates before each prior's LIMIT; the twin gates what it is handed.
        for arm in arms:
            if arm.kind is ArmKind.PRIOR:
                rankings[arm.name] = [p for p in full[arm.name] if p in query_found][:arm_limit]
    ordered = {arm.name: rankings[arm.name] for arm in arms}
    return fuse(ordered, weights=arm_weights, k=k, gate_priors=gate_priors, limit=limit, vias=vias)


ARM_SUBSETS: Final = tuple(
    frozenset(arm.name for i, arm in enumerate(RANK_ARMS) if mask >> i & 1)
    for mask in range(1 << len(RANK_ARMS))
)
EVERY_ARM: Final = ARM_SUBSETS[-1]

# Each example runs every arm together plus 16-32 drawn selections, not all 256 (all of them
# cost ~200 s a run on one core): the data is what varies most, and over a run of 120
# examples each selection is still drawn about fifteen times on data of its own (measured:
# ~31 a draw, every selection at least 5 times a run). The hand-written examples run all 256.
arm_selections = st.lists(st.sampled_from(ARM_SUBSETS), min_size=16, max_size=32, unique=True)


@settings(max_examples=120, deadline=None)
@given(
    rows=memory_rows(),
    access=access_rows,
    edges=edge_rows,
    scope=scopes,
    query_words=st.lists(st.sampled_from([*VOCAB, "absent"]), max_size=3),
    every_term=st.booleans(),
    query_vector=st.one_of(st.none(), st.sampled_from(QUERY_VECTORS)),
    query_keys=st.lists(st.sampled_from(ENTITY_KEYS), unique=True, max_size=3).map(sorted),
    query_windows=st.lists(st.sampled_from(WINDOWS), unique=True, max_size=2),
    has_state=st.booleans(),
    arm_weights=weights,
    k=st.sampled_from([60, 0, 20, 7.5]),
    arm_limit=st.sampled_from([40, 3, 1]),
    limit=st.sampled_from([30, 12, 5, 1, 0]),
    now=st.sampled_from(NOW_STAMPS),
    selections=arm_selections,
)
@example(
    rows=(
        MemoryRow(path="areas/a.html", fts_text="cache", updated_at="soon"),
        MemoryRow(path="areas/b.html", fts_text="cache", updated_at="2026-09-14T07:02:11Z"),
    ),
    access=[],
    edges=[],
    scope=SearchScope(),
    query_words=["cache"],
    every_term=False,
    query_vector=None,
    query_keys=[],
    query_windows=[],
    has_state=True,
    arm_weights={},
    k=60,
    arm_limit=1,
    limit=12,
    now=NOW_STAMPS[0],
    selections=list(ARM_SUBSETS),
)
@example(
    # Two memories hold only a tag wider than the arm's budget: neither ranks for it.
    rows=(
        MemoryRow(path="areas/a.html", fts_text="cache", tags=frozenset({"ops"})),
        MemoryRow(path="areas/b.html", fts_text="cache", tags=frozenset({"ops"})),
        MemoryRow(path="areas/c.html", fts_text="drain", entities=frozenset({("service", "api")})),
    ),
    access=[],
    edges=[],
    scope=SearchScope(),
    query_words=[],
    every_term=False,
    query_vector=None,
    query_keys=["tag:ops"],
    query_windows=[],
    has_state=False,
    arm_weights={},
    k=20,
    arm_limit=1,
    limit=12,
    now=NOW_STAMPS[0],
    selections=list(ARM_SUBSETS),
)
@example(
    # Seed a.html reaches B.html through B's link and f.html through its own, equally strong:
    # the tie between them falls by path.
    rows=(
        MemoryRow(path="areas/a.html", fts_text="cache"),
        MemoryRow(path="areas/B.html", fts_text="drain"),
        MemoryRow(path="resources/f.html", fts_text="merge"),
    ),
    access=[],
    edges=[
        EdgeRow(src_path="areas/B.html", rel="fixes", dst_path="areas/a.html"),
        EdgeRow(src_path="areas/a.html", rel="leads_to", dst_path="resources/f.html"),
    ],
    scope=SearchScope(),
    query_words=["cache"],
    every_term=False,
    query_vector=None,
    query_keys=[],
    query_windows=[],
    has_state=False,
    arm_weights={},
    k=20,
    arm_limit=40,
    limit=12,
    now=NOW_STAMPS[0],
    selections=list(ARM_SUBSETS),
)
@example(
    # Two equally strong steps reach f.html from one seed: the smaller relation names the via.
    rows=(
        MemoryRow(path="areas/a.html", fts_text="cache"),
        MemoryRow(path="resources/f.html", fts_text="merge"),
    ),
    access=[],
    edges=[
        EdgeRow(src_path="areas/a.html", rel="fixes", dst_path="resources/f.html"),
        EdgeRow(src_path="resources/f.html", rel="caused_by", dst_path="areas/a.html"),
    ],
    scope=SearchScope(),
    query_words=["cache"],
    every_term=False,
    query_vector=None,
    query_keys=[],
    query_windows=[],
    has_state=False,
    arm_weights={},
    k=20,
    arm_limit=40,
    limit=12,
    now=NOW_STAMPS[0],
    selections=list(ARM_SUBSETS),
)
@example(
    # The time arm: b's event day and c's creation day fall in the window, a's event day does
    # not (its creation day would); b and c are ranked by the vector arm's distance, and b by
    # the words in time_words (the all-terms form "cache AND drain" read as any term).
    rows=(
        MemoryRow(
            path="areas/a.html",
            fts_text="cache",
            created_at="2026-03-01T12:00:00Z",
            event_at="2027-01-01",
            chunks=(ChunkRow(text="chunk", vector=CHUNK_VECTORS[1]),),
        ),
        MemoryRow(
            path="areas/B.html",
            fts_text="drain",
            event_at="2026-03-01T12:00:00Z",
            chunks=(ChunkRow(text="chunk", vector=CHUNK_VECTORS[2]),),
        ),
        MemoryRow(
            path="resources/f.html",
            fts_text="merge",
            created_at="2026-03-01T12:00:00Z",
            chunks=(ChunkRow(text="chunk", vector=CHUNK_VECTORS[3]),),
        ),
    ),
    access=[],
    edges=[],
    scope=SearchScope(),
    query_words=["cache", "drain"],
    every_term=True,
    query_vector=QUERY_VECTORS[0],
    query_keys=[],
    query_windows=[WINDOWS[0]],
    has_state=False,
    arm_weights={},
    k=20,
    arm_limit=40,
    limit=12,
    now=NOW_STAMPS[0],
    selections=list(ARM_SUBSETS),
)
@example(
    # The word-ranked time arm reads the fts arm's scored any-term matches: of the three
    # memories inside the window the best bm25 is the one it keeps at an arm limit of 1; z is
    # outside the window and holds the words too.
    rows=(
        MemoryRow(path="areas/a.html", fts_text="cache", created_at="2026-03-01T12:00:00Z"),
        MemoryRow(
            path="areas/B.html", fts_text="cache drain cache", created_at="2026-03-01T12:00:00Z"
        ),
        MemoryRow(path="resources/f.html", fts_text="drain", created_at="2026-03-01T12:00:00Z"),
        MemoryRow(path="resources/z.html", fts_text="cache drain", created_at="2027-01-01"),
    ),
    access=[],
    edges=[],
    scope=SearchScope(),
    query_words=["cache", "drain"],
    every_term=False,
    query_vector=QUERY_VECTORS[0],
    query_keys=[],
    query_windows=[WINDOWS[0]],
    has_state=False,
    arm_weights={},
    k=20,
    arm_limit=1,
    limit=12,
    now=NOW_STAMPS[0],
    selections=[
        frozenset({"fts", "time_words"}),
        frozenset({"fts", "vector", "time", "time_words"}),
        frozenset({"time_words"}),
    ],
)
def test_sql_fold_equals_the_twin(
    rows: tuple[MemoryRow, ...],
    access: list[AccessRow],
    edges: list[EdgeRow],
    scope: SearchScope,
    query_words: list[str],
    every_term: bool,
    query_vector: tuple[float, ...] | None,
    query_keys: list[str],
    query_windows: list[DateWindow],
    has_state: bool,
    arm_weights: dict[str, float],
    k: float,
    arm_limit: int,
    limit: int,
    now: str,
    selections: list[frozenset[str]],
) -> None:
    """Same paths, order, ranks and scores (1e-9) for each arm selection, gate on and off."""
    db = open_index(state=has_state)
    load_rows(db, rows, access=access if has_state else (), edges=edges)
    forms = fts_query_forms(" ".join(query_words))
    match = forms.all if every_term else forms.any
    available = {ArmNeed.QUERY_TERMS} if match else set()
    if query_vector is not None:
        available.add(ArmNeed.QUERY_VECTOR)
    if has_state:
        available.add(ArmNeed.STATE)
    if query_keys:
        available.add(ArmNeed.QUERY_ENTITIES)
    if query_windows and (query_vector is not None or match):
        available.add(ArmNeed.QUERY_WINDOWS)  # as the planner offers them
    windows = tuple(w.as_text() for w in query_windows)
    assembled = assemble_scope(scope)
    packed = None if query_vector is None else pack_f32(query_vector)
    preselector = VectorPreselector(db)
    if packed is not None:  # past the first vector search, which always scans
        preselector.ranked(
            ArmHoles(file_filter="", gate="", embed_model=TEST_SPACE, now=now),
            assemble_scope(SearchScope()),
            vector=packed,
            arm_limit=arm_limit,
        )
    # Selections that leave the same arms firing (an arm missing its input) run once.
    firing = dict.fromkeys(active_arms(available, selection=s) for s in [EVERY_ARM, *selections])
    for arms in firing:
        for gate_priors in (False, True):
            plan = FusionPlan(
                arms=arms,
                weights=tuple(arm_weights.items()),
                rrf_k=k,
                gate_priors=gate_priors,
                embed_model=TEST_SPACE,
                now=now,
            )
            actual = run_fusion(
                db,
                plan,
                assembled,
                match=match or None,
                vector=packed,
                limit=limit,
                arm_limit=arm_limit,
                entities=query_keys,
                windows=windows,
            )
            expected = _twin(
                db,
                rows,
                access if has_state else [],
                edges,
                arms,
                scope,
                (match, query_vector, now, tuple(query_keys), tuple(query_windows), forms.any),
                (gate_priors, arm_weights, k, arm_limit, limit),
            )
            _assert_same(expected, actual)
            if packed is not None and any(arm.name == "vector" for arm in arms):
                # The warm path: the vector arm's list from the held matrix, bound ranked.
                holes = ArmHoles(
                    file_filter=assembled.file_filter, gate="", embed_model=TEST_SPACE, now=now
                )
                ranked = preselector.ranked(holes, assembled, vector=packed, arm_limit=arm_limit)
                if ranked is not None:
                    warm = run_fusion(
                        db,
                        plan,
                        assembled,
                        match=match or None,
                        vector=packed,
                        limit=limit,
                        arm_limit=arm_limit,
                        entities=query_keys,
                        vector_ranked=ranked,
                        windows=windows,
                    )
                    _assert_same(expected, warm)
            if match and any(arm.name == "fts" for arm in arms):
                # The feedback word pass: the fts arm fused alone, its list bound as the arm.
                words = run_fusion(
                    db,
                    FusionPlan(arms=(arm_named("fts"),), embed_model=TEST_SPACE, now=now),
                    assembled,
                    match=match,
                    vector=None,
                    limit=arm_limit,
                    arm_limit=arm_limit,
                )
                passed = run_fusion(
                    db,
                    plan,
                    assembled,
                    match=match,
                    vector=packed,
                    limit=limit,
                    arm_limit=arm_limit,
                    entities=query_keys,
                    fts_ranked=[f.path for f in words],
                    windows=windows,
                )
                _assert_same(expected, passed)
