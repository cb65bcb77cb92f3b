"""The fused retrieval statement, one CTE per arm beside the registry (docs/ranking.md §1–§4).

Every arm of :data:`memhtml.domain.fusion.RANK_ARMS` has a SQL template here returning exactly
``(path, rank)`` with rank from 1, and :func:`build_rrf_sql` folds the active arms into one
statement. The pure twin is :func:`memhtml.domain.fusion.fuse`; the contract suite checks that
both return the same paths in the same order with the same scores.

Placeholders are numbered and fixed: ``?1`` the MATCH text, ``?2`` the per-arm limit, ``?3`` the
final limit, ``?4`` the query vector, ``?5`` the query's entity keys (a JSON array), scope values
from ``?6``. Fixed numbers keep every scope value in place whichever arms fire. Weights, the RRF
constant and the vector space are inlined literals: trusted configuration, never caller text. The
salience instant is bound after everything else (``?N``, the last placeholder), so the statement's
text does not change from one search to the next and the driver's statement cache keeps it
prepared: compiling the fused statement costs a few milliseconds, a warm search's largest
fixed cost after the arms themselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import attrs

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.salience_sql import salience_arm_sql, salience_now_ms
from memhtml.adapters.sqlite.scope_sql import (
    ALIAS_TOKEN,
    AssembledScope,
    superseded_by_sql,
    text_literal,
)
from memhtml.adapters.sqlite.session_sql import session_arm_sql
from memhtml.domain.entities import WEIGHT_UNITS
from memhtml.domain.fts_query import ALL_JOINER, ANY_JOINER
from memhtml.domain.fusion import (
    DEFAULT_ARM_LIMIT,
    RANK_ARMS,
    RRF_K,
    ArmKind,
    ArmSpec,
    Fused,
    prior_ceiling,
)
from memhtml.domain.graph import (
    GRAPH_EDGE_CLASS,
    GRAPH_SEEDS,
    INBOUND,
    OUTBOUND,
    REL_WEIGHTS,
    SESSION_REL,
    SESSION_WEIGHT,
    GraphVia,
)
from memhtml.domain.scope import ENTITY_SEPARATOR

PARAM_QUERY: Final = 1
PARAM_ARM_LIMIT: Final = 2
PARAM_FINAL_LIMIT: Final = 3
PARAM_QUERY_VECTOR: Final = 4
PARAM_QUERY_ENTITIES: Final = 5
FIXED_PARAMS: Final = 5
"""``?1``–``?5``; the scope's values start right after them."""


@attrs.frozen(kw_only=True)
class ArmHoles:
    """What an arm template is filled with; assembled, never bound.

    Attributes:
        file_filter: The scope filter with ``{alias}`` still in it.
        gate: ``AND {alias}.path IN (…)``, restricting a prior to the query arms' candidates;
            ``""`` for a query arm or when the gate is off.
        embed_model: The configured vector space, inlined into the vector arm.
        now: The instant salience decays to, from the clock port (docs/decisions.md §3).
        vector_max_distance: The vector arm keeps only files nearer than this (cosine
            distance), inlined; ``None`` keeps its whole top list.
        seed_ctes: The CTEs of the query arms a seeded (graph) arm starts from.
        vector_ranked: The placeholder holding the vector arm's list, ranked already (a JSON
            array of paths, best first; ``vector_preselect``), or ``None`` to scan.
        windows: The placeholder holding the query's day windows (a JSON array of
            ``start|end`` ISO dates, ``DateWindow.as_text``), or ``None`` when ``time`` is off.
        time_by_vector: The time arm ranks by the query vector; ``False`` by the own text's
            bm25 (a query without a vector).
        now_param: The placeholder holding ``now`` in Unix milliseconds, or ``None`` to inline
            the instant as a literal (an arm compiled on its own).
        shared_matches: The CTE holding every in-scope own-text match of ``?1`` with its bm25
            (:data:`SHARED_MATCHES_CTE`), when the fts and session arms both read them; ``None``
            when each arm matches on its own.
    """

    file_filter: str
    gate: str
    embed_model: str
    now: str
    vector_max_distance: float | None = None
    seed_ctes: tuple[str, ...] = ()
    vector_ranked: int | None = None
    windows: int | None = None
    time_by_vector: bool = True
    now_param: int | None = None
    shared_matches: str | None = None

    def scope(self, alias: str) -> str:
        """The scope filter and the prior gate, written against ``alias``."""
        return f"{self.file_filter} {self.gate}".rstrip().replace(ALIAS_TOKEN, alias)


SHARED_MATCHES_CTE: Final = "own_matches"
"""Every in-scope file whose own text matches ``?1``, with its session key, type and bm25: read
by the fts and session arms when ``?1`` is the any-term form, so FTS5 scores each match once."""


def _shared_matches_sql(scope: AssembledScope) -> str:
    # The fts arm's own rows (a query arm has no prior gate), before its order and LIMIT.
    return (
        "SELECT f.path AS path, f.session_id AS sid, f.archived AS arch, "
        "f.memory_type AS mtype, bm25(files_fts) AS score "
        "FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        f"WHERE files_fts MATCH ?{PARAM_QUERY} {scope.for_alias('f')}"
    )


def _fts_sql(holes: ArmHoles) -> str:
    # bm25 order, path for ties, numbered after the LIMIT so rank counts the kept rows only.
    if holes.shared_matches is not None:
        return (
            "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
            f"SELECT path, score FROM {holes.shared_matches} "
            f"ORDER BY score, path LIMIT ?{PARAM_ARM_LIMIT})"
        )
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
        "SELECT f.path AS path, bm25(files_fts) AS score "
        "FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        f"WHERE files_fts MATCH ?{PARAM_QUERY} {holes.scope('f')} "
        f"ORDER BY score, f.path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def _context_sql(holes: ArmHoles) -> str:
    # The fts arm over the contextual documents (context_sql.py): same MATCH, same ordering.
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
        "SELECT f.path AS path, bm25(context_fts) AS score FROM context_fts "
        "JOIN file_context x ON x.rowid = context_fts.rowid JOIN files f ON f.path = x.path "
        f"WHERE context_fts MATCH ?{PARAM_QUERY} {holes.scope('f')} "
        f"ORDER BY score, f.path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def vector_distances_sql(holes: ArmHoles, *, within: int | None = None) -> str:
    """``(path, dist)``: the in-scope files nearest ``?4``, nearest first, at most ``?2``.

    A file's distance is its nearest chunk's, so a three-chunk file takes one rank, not three.
    ``within`` names a placeholder holding a JSON array of chunk ids to look at instead of
    every vector of the space (``vector_preselect`` re-scores its candidates exactly with it).
    """
    # `+e.model` keeps the one-key model index out of the plan, so SQLite starts from the scope.
    # A zero vector has no cosine (sqlite-vec says NULL); 1.0 is the domain's convention for it.
    # A floor on similarity drops files whose nearest chunk is farther than the bound, so in a
    # small store the exact scan stops ranking everything (a deep rank is not evidence).
    having = (
        ""
        if holes.vector_max_distance is None
        else f"HAVING dist <= {_number(holes.vector_max_distance)} "
    )
    among = "" if within is None else f"AND e.chunk_id IN (SELECT value FROM json_each(?{within})) "
    return (
        "SELECT c.path AS path, "
        f"min(coalesce(vec_distance_cosine(e.vec, ?{PARAM_QUERY_VECTOR}), 1.0)) AS dist "
        "FROM files f JOIN chunks c ON c.path = f.path "
        "JOIN embeddings e ON e.chunk_id = c.chunk_id "
        f"WHERE +e.model = {text_literal(holes.embed_model)} {among}"
        f"{holes.scope('f')} "
        f"GROUP BY c.path {having}ORDER BY dist, c.path LIMIT ?{PARAM_ARM_LIMIT}"
    )


def _vector_sql(holes: ArmHoles) -> str:
    if holes.vector_ranked is not None:
        # Ranked before the statement, inside the same scope and bound (vector_preselect).
        return f"SELECT value, key + 1 FROM json_each(?{holes.vector_ranked})"
    return (
        f"SELECT path, ROW_NUMBER() OVER (ORDER BY dist, path) FROM ({vector_distances_sql(holes)})"
    )


def _time_sql(holes: ArmHoles) -> str:
    # The twin is MemoryRankStore._time: the memories whose event time (else creation time)
    # falls inside a window the query names, ranked by the query vector when there is one, else
    # by the own text's bm25 under the any-term form (`replace` turns the all-terms form's
    # joiner back; a term is a lowercased token or quoted phrase, so never holds " AND ").
    # Days compare as text: the stamp's first ten characters against ISO bounds
    # (domain.query_dates.DateWindow.holds). The set of files inside some window is computed
    # once, each window a range of migration 0012's index on that very expression.
    if holes.windows is None:
        raise ValueError("the time arm needs the query's windows")
    inside = (
        f"f.rowid IN (SELECT g.rowid FROM json_each(?{holes.windows}) w JOIN files g "
        "ON substr(coalesce(g.event_at, g.created_at), 1, 10) "
        "BETWEEN substr(w.value, 1, 10) AND substr(w.value, 12))"
    )
    if not holes.time_by_vector:
        return (
            "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
            "SELECT f.path AS path, bm25(files_fts) AS score "
            "FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
            f"WHERE files_fts MATCH replace(?{PARAM_QUERY}, {text_literal(ALL_JOINER)}, "
            f"{text_literal(ANY_JOINER)}) AND {inside} {holes.scope('f')} "
            f"ORDER BY score, f.path LIMIT ?{PARAM_ARM_LIMIT})"
        )
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY dist, path) FROM ("
        "SELECT c.path AS path, "
        f"min(coalesce(vec_distance_cosine(e.vec, ?{PARAM_QUERY_VECTOR}), 1.0)) AS dist "
        "FROM files f JOIN chunks c ON c.path = f.path "
        "JOIN embeddings e ON e.chunk_id = c.chunk_id "
        f"WHERE +e.model = {text_literal(holes.embed_model)} AND {inside} {holes.scope('f')} "
        f"GROUP BY c.path ORDER BY dist, c.path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def _recency_sql(holes: ArmHoles) -> str:
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY at DESC, path) FROM ("
        "SELECT f.path AS path, coalesce(f.event_at, f.updated_at) AS at FROM files f "
        f"WHERE 1 {holes.scope('f')} "
        f"ORDER BY at DESC, f.path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def _salience_sql(holes: ArmHoles) -> str:
    # The twin is domain.reinforce.salience_score (salience_sql.py).
    now = str(salience_now_ms(holes.now)) if holes.now_param is None else f"?{holes.now_param}"
    return salience_arm_sql(holes.scope, now=now, limit_param=PARAM_ARM_LIMIT)


def _entity_sql(holes: ArmHoles) -> str:
    # The twin is domain.entities.entity_ranking. `held` is every in-scope (memory, query
    # entity) pair; an entity's holders are counted inside the scope, so is N. The weight is
    # summed in whole millionths (exact in any order) and a memory ranks only when one of its
    # entities is held by no more memories than the arm ranks (`min(df) <= ?2`).
    scope = holes.scope("f")
    held = (
        "SELECT DISTINCT t.path AS path, t.entity_key AS entity_key FROM entity_terms t "
        "JOIN files f ON f.path = t.path "
        f"WHERE t.entity_key IN (SELECT value FROM json_each(?{PARAM_QUERY_ENTITIES})) {scope}"
    )
    weight = f"CAST(ln(1.0 + (n.total - d.df + 0.5) / (d.df + 0.5)) * {WEIGHT_UNITS} AS INTEGER)"
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score DESC, path) FROM ("
        f"SELECT h.path AS path, sum({weight}) AS score FROM ({held}) h "
        f"JOIN (SELECT entity_key, count(*) AS df FROM ({held}) GROUP BY entity_key) d "
        "ON d.entity_key = h.entity_key "
        f"CROSS JOIN (SELECT count(*) AS total FROM files f WHERE 1 {scope}) n "
        f"GROUP BY h.path HAVING min(d.df) <= ?{PARAM_ARM_LIMIT} "
        f"ORDER BY score DESC, h.path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def _session_sql(holes: ArmHoles) -> str:
    # The twin is domain.session_documents.session_ranking (session_sql.py).
    return session_arm_sql(
        holes.scope("f"),
        query_param=PARAM_QUERY,
        limit_param=PARAM_ARM_LIMIT,
        shared_matches=holes.shared_matches,
    )


GRAPH_SEEDS_CTE: Final = "graph_seeds"
GRAPH_STEPS_CTE: Final = "graph_steps"


def graph_ctes(holes: ArmHoles) -> tuple[str, ...]:
    """The graph arm's seeds and one-hop steps, each materialized once for the arm and its
    ``via`` (:data:`VIA_CTE`) to read; none without a query arm to seed from.

    A step is ``(path reached, seed, rel, dir, evidence × weight)``. The twin is
    domain.graph.graph_ranking. A seed's evidence is ``GRAPH_SEEDS + 1 − rank`` summed over the
    query arms that rank it in their top GRAPH_SEEDS; integers, so sums are exact whatever
    order SQLite adds them in.
    """
    if not holes.seed_ctes:
        return ()
    ranked = " UNION ALL ".join(
        f"SELECT path, rank FROM {cte} WHERE rank <= {GRAPH_SEEDS}" for cte in holes.seed_ctes
    )
    seeds = f"SELECT path, sum({GRAPH_SEEDS + 1} - rank) AS evidence FROM ({ranked}) GROUP BY path"
    weight = (
        "CASE e.rel "
        + " ".join(f"WHEN {text_literal(rel)} THEN {w}" for rel, w in REL_WEIGHTS.items())
        + " END"
    )
    memory = text_literal(GRAPH_EDGE_CLASS)
    session = text_literal(SESSION_REL)
    # CROSS JOIN keeps the few seeds outer: each step is an index probe from a seed.
    s = f"{GRAPH_SEEDS_CTE} s CROSS JOIN"
    steps = (
        f"SELECT e.dst_path AS path, s.path AS seed, e.rel AS rel, {text_literal(OUTBOUND)} "
        f"AS dir, s.evidence * {weight} AS score FROM {s} "
        f"edges e ON e.src_path = s.path AND e.edge_class = {memory} "
        f"UNION ALL SELECT e.src_path, s.path, e.rel, {text_literal(INBOUND)}, "
        f"s.evidence * {weight} FROM {s} "
        f"edges e ON e.dst_path = s.path AND e.edge_class = {memory} "
        # The implicit session edges: a context row's neighbour precedes it (domain/graph).
        f"UNION ALL SELECT c.path, s.path, {session}, {text_literal(OUTBOUND)}, "
        f"s.evidence * {SESSION_WEIGHT} FROM {s} "
        "file_context c ON c.prev_path = s.path "
        f"UNION ALL SELECT c.prev_path, s.path, {session}, {text_literal(INBOUND)}, "
        f"s.evidence * {SESSION_WEIGHT} FROM {s} "
        "file_context c ON c.path = s.path WHERE c.prev_path IS NOT NULL"
    )
    return (
        f"{GRAPH_SEEDS_CTE}(path, evidence) AS MATERIALIZED ({seeds})",
        f"{GRAPH_STEPS_CTE}(path, seed, rel, dir, score) AS MATERIALIZED ({steps})",
    )


def _graph_sql(holes: ArmHoles) -> str:
    # Without a query arm beside it (a plan active_arms would not make) the arm ranks nothing;
    # the empty form still names the scope, so its placeholders are in the statement.
    if not holes.seed_ctes:
        return f"SELECT f.path, 1 FROM files f WHERE 0 {holes.scope('f')}"
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score DESC, path) FROM ("
        f"SELECT g.path AS path, sum(g.score) AS score FROM {GRAPH_STEPS_CTE} g "
        f"CROSS JOIN files f ON f.path = g.path WHERE 1 {holes.scope('f')} "
        f"GROUP BY g.path ORDER BY score DESC, g.path LIMIT ?{PARAM_ARM_LIMIT})"
    )


def _graph_via_sql(holes: ArmHoles) -> str:
    """``(path, seed, rel, dir)``: each reached path's strongest step (ties: seed, rel, dir)."""
    if not holes.seed_ctes:
        return "SELECT NULL, NULL, NULL, NULL WHERE 0"
    return (
        "SELECT path, seed, rel, dir FROM (SELECT g.path AS path, g.seed AS seed, g.rel AS rel, "
        "g.dir AS dir, ROW_NUMBER() OVER (PARTITION BY g.path "
        "ORDER BY g.score DESC, g.seed, g.rel, g.dir) AS pick "
        f"FROM {GRAPH_STEPS_CTE} g) WHERE pick = 1"
    )


VIA_CTE: Final = "graph_via"
"""The CTE naming each graph-ranked path's step; its columns follow the rank columns."""

ARM_SQL: Final[Mapping[str, Callable[[ArmHoles], str]]] = {
    "fts": _fts_sql,
    "context": _context_sql,
    "vector": _vector_sql,
    "recency": _recency_sql,
    "salience": _salience_sql,
    "entity": _entity_sql,
    "session": _session_sql,
    "time": _time_sql,
    "graph": _graph_sql,
}
"""Per registry arm, its ``(path, rank)`` template. A new arm adds an entry here and there."""

if set(ARM_SQL) != {arm.name for arm in RANK_ARMS}:  # pragma: no cover - a wiring bug
    raise ImportError("every ranking arm needs exactly one SQL template")


def _number(value: float) -> str:
    """A trusted number as a SQL literal that parses back to the same double (ints stay ints)."""
    return str(value) if isinstance(value, int) else repr(float(value))


@attrs.frozen(kw_only=True)
class FusionPlan:
    """What one fused statement is built from.

    Attributes:
        arms: The arms that fire, in registry order (``active_arms``).
        weights: Per-arm weight overrides; the rest keep the registry's weight.
        rrf_k: The RRF constant.
        gate_priors: Restrict priors to the query arms' candidates before their LIMIT.
        embed_model: The vector space the vector arm and snippets compare in.
        now: The instant salience is computed at.
        evidence_first: Order candidates a query arm ranked before prior-only ones.
        vector_max_distance: The vector arm's distance bound, or ``None``.
        prior_bound: Priors as a bounded tie-breaker (``domain.fusion.fuse``), or ``None``.
        vector_ranked: The vector arm's list is bound ranked already (``run_fusion``'s
            ``vector_ranked``) instead of scanned inside the statement.
        time_by_vector: The time arm ranks by the query vector (``run_fusion`` sets it from
            whether one is bound), else by the own text's bm25.
        any_form: ``?1`` is the any-term form (``run_fusion`` sets it from the MATCH text), so
            the session arm's own-text matches are the fts arm's and are scored once.
    """

    arms: tuple[ArmSpec, ...]
    weights: tuple[tuple[str, float], ...] = ()
    rrf_k: float = RRF_K
    gate_priors: bool = False
    embed_model: str = ""
    now: str
    evidence_first: bool = False
    vector_max_distance: float | None = None
    prior_bound: float | None = None
    vector_ranked: bool = False
    time_by_vector: bool = True
    any_form: bool = False


def _vector_ranked_param(scope: AssembledScope) -> int:
    """The placeholder of a ranked vector list: the one after the scope's values."""
    return FIXED_PARAMS + len(scope.params) + 1


def _windows_param(plan: FusionPlan, scope: AssembledScope) -> int | None:
    """The placeholder of the time arm's windows: after the scope's values and a ranked list."""
    if not any(arm.name == "time" for arm in plan.arms):
        return None
    return FIXED_PARAMS + len(scope.params) + 1 + int(plan.vector_ranked)


def _now_param(plan: FusionPlan, scope: AssembledScope) -> int | None:
    """The placeholder of the salience instant: the last one, after the time arm's windows."""
    if not any(arm.name == "salience" for arm in plan.arms):
        return None
    windows = int(any(arm.name == "time" for arm in plan.arms))
    return FIXED_PARAMS + len(scope.params) + 1 + int(plan.vector_ranked) + windows


def _cte(arm: ArmSpec) -> str:
    return f"arm_{arm.name}"


def build_rrf_sql(plan: FusionPlan, scope: AssembledScope) -> str | None:
    """The one fused statement, or None when no arm fires (read that as an empty result).

    Columns: ``path``, ``score``, then one rank column per arm of ``plan.arms`` (NULL where the
    arm did not rank the path), then, when a seeded (graph) arm fires, its step's seed, relation
    and direction (NULL where it did not rank the path). The sum is written out in registry
    order, ``0.0 + w/(rank + k) + …``, with ``0.0`` for an arm that did not rank the path:
    adding zero is exact, so the score is the very double the twin computes, and score ties
    (broken by path) fall the same way. A ``SUM`` over ``UNION ALL`` could add in another order
    and split a tie by one ulp.
    """
    if not plan.arms:
        return None
    if any(arm.name == "salience" for arm in plan.arms):
        salience_now_ms(plan.now)  # an unreadable instant fails before any SQL is built
    weights = dict(plan.weights)
    query_ctes = [_cte(arm) for arm in plan.arms if arm.kind is ArmKind.QUERY]
    seed_ctes = tuple(
        _cte(arm) for arm in plan.arms if arm.kind is ArmKind.QUERY and not arm.seeded
    )
    seeded = [arm for arm in plan.arms if arm.seeded]
    gate = ""
    if plan.gate_priors and query_ctes:
        union = " UNION ALL ".join(f"SELECT path FROM {cte}" for cte in query_ctes)
        gate = f"AND {ALIAS_TOKEN}.path IN ({union})"
    ctes = []
    shared = None
    if plan.any_form and {"fts", "session"} <= {arm.name for arm in plan.arms}:
        shared = SHARED_MATCHES_CTE
        ctes.append(f"{shared} AS MATERIALIZED ({_shared_matches_sql(scope)})")
    for arm in plan.arms:
        holes = ArmHoles(
            file_filter=scope.file_filter,
            gate=gate if arm.kind is ArmKind.PRIOR else "",
            embed_model=plan.embed_model,
            now=plan.now,
            vector_max_distance=plan.vector_max_distance,
            seed_ctes=seed_ctes,
            vector_ranked=_vector_ranked_param(scope) if plan.vector_ranked else None,
            windows=_windows_param(plan, scope),
            time_by_vector=plan.time_by_vector,
            now_param=_now_param(plan, scope),
            shared_matches=shared if arm.kind is ArmKind.QUERY else None,
        )
        if arm.seeded:
            ctes.extend(graph_ctes(holes))
        ctes.append(f"{_cte(arm)}(path, rank) AS MATERIALIZED ({ARM_SQL[arm.name](holes)})")
        if arm.seeded:
            ctes.append(f"{VIA_CTE}(path, seed, rel, dir) AS ({_graph_via_sql(holes)})")
    union = " UNION ".join(f"SELECT path FROM {_cte(arm)}" for arm in plan.arms)
    ctes.append(f"candidates(path) AS ({union})")
    k = _number(plan.rrf_k)

    def term(arm: ArmSpec) -> str:
        weight = _number(weights.get(arm.name, arm.weight))
        return f"coalesce({weight} / ({_cte(arm)}.rank + {k}), 0.0)"

    score = "0.0 + " + " + ".join(term(arm) for arm in plan.arms)
    query = [arm for arm in plan.arms if arm.kind is ArmKind.QUERY]
    # With no query arm firing the bound has nothing to bound: the priors are added (fuse).
    if plan.prior_bound is not None and query:
        priors = [arm for arm in plan.arms if arm.kind is ArmKind.PRIOR]
        query_sum = "0.0" + "".join(f" + {term(arm)}" for arm in query)
        prior_max = prior_ceiling(priors, weights, plan.rrf_k)
        score = f"({query_sum})"
        if priors and prior_max > 0.0:
            prior_sum = "0.0" + "".join(f" + {term(arm)}" for arm in priors)
            score = (
                f"({query_sum}) * (1.0 + {_number(plan.prior_bound)} * ({prior_sum}) "
                f"/ {_number(prior_max)})"
            )
    rank_columns = ", ".join(f"{_cte(arm)}.rank" for arm in plan.arms)
    joins = " ".join(
        f"LEFT JOIN {_cte(arm)} ON {_cte(arm)}.path = candidates.path" for arm in plan.arms
    )
    if seeded:
        rank_columns += f", {VIA_CTE}.seed, {VIA_CTE}.rel, {VIA_CTE}.dir"
        joins += f" LEFT JOIN {VIA_CTE} ON {VIA_CTE}.path = {_cte(seeded[0])}.path"
    evidence = ""
    if plan.evidence_first and query_ctes:
        ranked = " OR ".join(f"{cte}.rank IS NOT NULL" for cte in query_ctes)
        evidence = f"CASE WHEN {ranked} THEN 0 ELSE 1 END, "
    return (
        f"WITH {', '.join(ctes)} "
        f"SELECT candidates.path, {score} AS score, {rank_columns} "
        f"FROM candidates {joins} "
        f"ORDER BY {evidence}score DESC, candidates.path LIMIT ?{PARAM_FINAL_LIMIT}"
    )


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
        windows: The query's day windows as ``start|end`` texts; required when ``time``
            fires.

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
    if "entity" in names and not entities:
        raise ValueError("the entity arm needs the query's entities")
    if vector_ranked is not None:
        plan = attrs.evolve(plan, vector_ranked=True)
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
    if "time" in names:
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


def fts_probe_sql(scope: AssembledScope) -> str:
    """Whether any in-scope file holds every term: the all-terms form's MATCH at ``?1``."""
    return (
        "SELECT EXISTS (SELECT 1 FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        f"WHERE files_fts MATCH ?{PARAM_QUERY} {scope.for_alias('f')})"
    )


def snippet_sql(*, with_vector: bool) -> str:
    """Each listed path's best chunk: nearest ``?1`` in space ``?2``, else the lowest ordinal.

    ``?3`` is a JSON array of paths. A chunk without a vector (NULL distance) loses to any
    scored chunk and the ordinal breaks the remaining ties, so the pick is deterministic.
    """
    # sqlite-vec refuses a NULL blob, and the LEFT JOIN yields one for a chunk without a vector.
    distance = (
        "CASE WHEN e.vec IS NULL THEN NULL ELSE vec_distance_cosine(e.vec, ?1) END"
        if with_vector
        else "NULL"
    )
    return (
        "SELECT path, text FROM (SELECT c.path AS path, c.text AS text, ROW_NUMBER() OVER "
        "(PARTITION BY c.path ORDER BY dist IS NULL, dist, c.ordinal) AS pick FROM ("
        f"SELECT c.path, c.text, c.ordinal, {distance} AS dist FROM chunks c "
        "LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.model = ?2 "
        "WHERE c.path IN (SELECT value FROM json_each(?3))) c) WHERE pick = 1"
    )


CANDIDATE_SQL: Final = (
    "SELECT f.path, f.title, f.gist, f.memory_type, f.confidence, f.updated_at, "
    f"f.disclosure_text, e.vec, CASE WHEN f.archived = 1 THEN {superseded_by_sql('f')} END, "
    "f.importance, f.pinned, (SELECT json_group_array(tag) FROM "
    "(SELECT t.tag AS tag FROM file_tags t WHERE t.path = f.path ORDER BY t.tag)) "
    "FROM files f LEFT JOIN chunks c ON c.path = f.path AND c.ordinal = 0 "
    "LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.model = ?2 "
    "WHERE f.path IN (SELECT value FROM json_each(?1))"
)
"""What polarity, MMR and the hits read about candidates (``?1`` a JSON array of paths).

The vector is the ordinal-0 chunk's: the chunk that opens with the claim, whose polarity the
step reads. A mean over every chunk would blur the claim into its details.
"""

ENTITY_SQL: Final = (
    f"SELECT path, entity_type || {text_literal(ENTITY_SEPARATOR)} || entity_name "
    "FROM file_entities "
    "WHERE path IN (SELECT value FROM json_each(?1))"
)
"""Every ``type:name`` reference of the listed paths (``?1`` a JSON array)."""
