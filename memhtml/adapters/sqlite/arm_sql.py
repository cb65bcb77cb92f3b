"""The ranking arms' SQL templates, one per arm of the registry (docs/ranking.md §2).

Each template takes the statement's :class:`ArmHoles` and returns a ``SELECT`` of exactly
``(path, rank)``, rank from 1 counting the kept rows; ``retrieval_sql.build_rrf_sql`` makes each
one a CTE of the fused statement. The placeholders every template may name are fixed here:
``?1`` the MATCH text, ``?2`` the per-arm limit, ``?3`` the final limit, ``?4`` the query
vector, ``?5`` the query's entity keys (a JSON array), scope values from ``?6``. The pure twins
are named in each template's comment; the contract suites hold each arm to its twin.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import attrs

from memhtml.adapters.sqlite import graph_sql
from memhtml.adapters.sqlite.salience_sql import salience_arm_sql, salience_now_ms
from memhtml.adapters.sqlite.scope_sql import ALIAS_TOKEN, AssembledScope, text_literal
from memhtml.adapters.sqlite.session_sql import session_arm_sql
from memhtml.adapters.sqlite.time_sql import time_by_vector_sql, time_by_words_sql
from memhtml.domain.entities import WEIGHT_UNITS
from memhtml.domain.fusion import RANK_ARMS

PARAM_QUERY: Final = 1
PARAM_ARM_LIMIT: Final = 2
PARAM_FINAL_LIMIT: Final = 3
PARAM_QUERY_VECTOR: Final = 4
PARAM_QUERY_ENTITIES: Final = 5
FIXED_PARAMS: Final = 5
"""``?1``–``?5``; the scope's values start right after them."""


def sql_number(value: float) -> str:
    """A trusted number as a SQL literal that parses back to the same double (ints stay ints)."""
    return str(value) if isinstance(value, int) else repr(float(value))


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
        fts_ranked: The placeholder holding the fts arm's list, ranked already by a statement
            of that arm alone (the feedback word pass), or ``None`` to match.
        windows: The placeholder holding the query's day windows (a JSON array of
            ``start|end`` ISO dates, ``DateWindow.as_text``), or ``None`` when neither time
            arm fires.
        time_by_vector: The time arm ranks by the query vector; ``False`` by the own text's
            bm25 (a query without a vector).
        now_param: The placeholder holding ``now`` in Unix milliseconds, or ``None`` to inline
            the instant as a literal (an arm compiled on its own).
        shared_matches: The CTE holding every in-scope own-text match of ``?1`` with its bm25
            (:data:`SHARED_MATCHES_CTE`), when the fts arm and a word-ranked arm both read
            them; ``None`` when each arm matches on its own.
    """

    file_filter: str
    gate: str
    embed_model: str
    now: str
    vector_max_distance: float | None = None
    seed_ctes: tuple[str, ...] = ()
    vector_ranked: int | None = None
    fts_ranked: int | None = None
    windows: int | None = None
    time_by_vector: bool = True
    now_param: int | None = None
    shared_matches: str | None = None

    def scope(self, alias: str) -> str:
        """The scope filter and the prior gate, written against ``alias``."""
        return f"{self.file_filter} {self.gate}".rstrip().replace(ALIAS_TOKEN, alias)


SHARED_MATCHES_CTE: Final = "own_matches"
"""Every in-scope file whose own text matches ``?1``, with its session key, type, rowid and
bm25: read by the fts arm and by the session and word-ranked time arms when ``?1`` is the
any-term form, so FTS5 scores each match once."""


def shared_matches_sql(scope: AssembledScope) -> str:
    # The fts arm's own rows (a query arm has no prior gate), before its order and LIMIT.
    return (
        "SELECT f.path AS path, f.session_id AS sid, f.archived AS arch, "
        "f.memory_type AS mtype, f.rowid AS rid, bm25(files_fts) AS score "
        "FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        f"WHERE files_fts MATCH ?{PARAM_QUERY} {scope.for_alias('f')}"
    )


def _ranked_list_sql(param: int) -> str:
    # An arm's list ranked before the statement, bound as a JSON array of paths, best first.
    return f"SELECT value, key + 1 FROM json_each(?{param})"


def _fts_sql(holes: ArmHoles) -> str:
    # bm25 order, path for ties, numbered after the LIMIT so rank counts the kept rows only.
    if holes.fts_ranked is not None:
        return _ranked_list_sql(holes.fts_ranked)
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
    # The fts arm over the contextual documents (context_sql.py): same MATCH, same ordering. A
    # document has its memory's rowid (migration 0013), so the match reaches the row directly.
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score, path) FROM ("
        "SELECT f.path AS path, bm25(context_fts) AS score FROM context_fts "
        "JOIN files f ON f.rowid = context_fts.rowid "
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
        else f"HAVING dist <= {sql_number(holes.vector_max_distance)} "
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
        return _ranked_list_sql(holes.vector_ranked)
    return (
        f"SELECT path, ROW_NUMBER() OVER (ORDER BY dist, path) FROM ({vector_distances_sql(holes)})"
    )


def _windows(holes: ArmHoles) -> int:
    if holes.windows is None:
        raise ValueError("the time arms need the query's windows")
    return holes.windows


def _time_sql(holes: ArmHoles) -> str:
    # The twin is MemoryRankStore._time (time_sql.py): by the query vector when there is one,
    # else by the own text's bm25, as the time_words arm ranks.
    if not holes.time_by_vector:
        return _time_words_sql(holes)
    return time_by_vector_sql(
        holes.scope("f"),
        windows_param=_windows(holes),
        vector_param=PARAM_QUERY_VECTOR,
        limit_param=PARAM_ARM_LIMIT,
        embed_model=holes.embed_model,
    )


def _time_words_sql(holes: ArmHoles) -> str:
    # The twin is MemoryRankStore._time_words (time_sql.py).
    return time_by_words_sql(
        holes.scope("f"),
        windows_param=_windows(holes),
        query_param=PARAM_QUERY,
        limit_param=PARAM_ARM_LIMIT,
        shared_matches=holes.shared_matches,
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


def graph_ctes(holes: ArmHoles) -> tuple[str, ...]:
    """The graph arm's seed and step CTEs over ``holes.seed_ctes`` (``graph_sql.graph_ctes``)."""
    return graph_sql.graph_ctes(holes.seed_ctes)


def _graph_sql(holes: ArmHoles) -> str:
    # The twin is domain.graph.graph_ranking (graph_sql.py).
    return graph_sql.graph_arm_sql(holes.seed_ctes, holes.scope("f"), limit_param=PARAM_ARM_LIMIT)


def graph_via_sql(holes: ArmHoles) -> str:
    """Each graph-ranked path's strongest step (``graph_sql.graph_via_sql``)."""
    return graph_sql.graph_via_sql(holes.seed_ctes)


ARM_SQL: Final[Mapping[str, Callable[[ArmHoles], str]]] = {
    "fts": _fts_sql,
    "context": _context_sql,
    "vector": _vector_sql,
    "recency": _recency_sql,
    "salience": _salience_sql,
    "entity": _entity_sql,
    "session": _session_sql,
    "time": _time_sql,
    "time_words": _time_words_sql,
    "graph": _graph_sql,
}
"""Per registry arm, its ``(path, rank)`` template. A new arm adds an entry here and there."""

if set(ARM_SQL) != {arm.name for arm in RANK_ARMS}:  # pragma: no cover - a wiring bug
    raise ImportError("every ranking arm needs exactly one SQL template")
