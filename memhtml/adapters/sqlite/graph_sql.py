"""The graph arm's SQL: its seeds, one-hop steps, ranking and each reached path's step
(docs/ranking.md §2.7; the twin is ``domain.graph.graph_ranking``).

The seeds are the top ranks of the query arms' CTEs named in ``seed_ctes``; a step follows a
memory edge either way, or the implicit session edge a context row records between neighbours.
"""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain.graph import (
    GRAPH_EDGE_CLASS,
    GRAPH_SEEDS,
    INBOUND,
    OUTBOUND,
    REL_WEIGHTS,
    SESSION_REL,
    SESSION_WEIGHT,
)

GRAPH_SEEDS_CTE: Final = "graph_seeds"
GRAPH_STEPS_CTE: Final = "graph_steps"


def graph_ctes(seed_ctes: tuple[str, ...]) -> tuple[str, ...]:
    """The graph arm's seeds and one-hop steps, each materialized once for the arm and its
    ``via`` (:data:`VIA_CTE`) to read; none without a query arm to seed from.

    A step is ``(path reached, seed, rel, dir, evidence × weight)``. The twin is
    domain.graph.graph_ranking. A seed's evidence is ``GRAPH_SEEDS + 1 − rank`` summed over the
    query arms that rank it in their top GRAPH_SEEDS; integers, so sums are exact whatever
    order SQLite adds them in.
    """
    if not seed_ctes:
        return ()
    ranked = " UNION ALL ".join(
        f"SELECT path, rank FROM {cte} WHERE rank <= {GRAPH_SEEDS}" for cte in seed_ctes
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


def graph_arm_sql(seed_ctes: tuple[str, ...], scope: str, *, limit_param: int) -> str:
    """The graph arm's ``(path, rank)``: reached paths in ``scope`` (a filter on ``f``) by the
    summed score of their steps, ties by path, the first ``?limit_param``."""
    # Without a query arm beside it (a plan active_arms would not make) the arm ranks nothing;
    # the empty form still names the scope, so its placeholders are in the statement.
    if not seed_ctes:
        return f"SELECT f.path, 1 FROM files f WHERE 0 {scope}"
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY score DESC, path) FROM ("
        f"SELECT g.path AS path, sum(g.score) AS score FROM {GRAPH_STEPS_CTE} g "
        f"CROSS JOIN files f ON f.path = g.path WHERE 1 {scope} "
        f"GROUP BY g.path ORDER BY score DESC, g.path LIMIT ?{limit_param})"
    )


def graph_via_sql(seed_ctes: tuple[str, ...]) -> str:
    """``(path, seed, rel, dir)``: each reached path's strongest step (ties: seed, rel, dir)."""
    if not seed_ctes:
        return "SELECT NULL, NULL, NULL, NULL WHERE 0"
    return (
        "SELECT path, seed, rel, dir FROM (SELECT g.path AS path, g.seed AS seed, g.rel AS rel, "
        "g.dir AS dir, ROW_NUMBER() OVER (PARTITION BY g.path "
        "ORDER BY g.score DESC, g.seed, g.rel, g.dir) AS pick "
        f"FROM {GRAPH_STEPS_CTE} g) WHERE pick = 1"
    )


VIA_CTE: Final = "graph_via"
"""The CTE naming each graph-ranked path's step; its columns follow the rank columns."""
