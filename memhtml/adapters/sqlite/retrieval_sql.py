"""The fused retrieval statement: one CTE per arm beside the registry (docs/ranking.md §1–§4).

Every arm of :data:`memhtml.domain.fusion.RANK_ARMS` has a template in ``arm_sql`` returning
exactly ``(path, rank)`` with rank from 1; :func:`build_rrf_sql` folds the active arms into one
statement. The pure twin is :func:`memhtml.domain.rrf.fuse`; the contract suite checks that
both return the same paths in the same order with the same scores.

Placeholders are numbered and fixed (``arm_sql``): ``?1`` the MATCH text, ``?2`` the per-arm
limit, ``?3`` the final limit, ``?4`` the query vector, ``?5`` the query's entity keys, scope
values from ``?6``. Fixed numbers keep every scope value in place whichever arms fire. Weights,
the RRF constant and the vector space are inlined literals: trusted configuration, never caller
text. The salience instant is bound after everything else (``?N``, the last placeholder), so
the statement's text does not change from one search to the next and the driver's statement
cache keeps it prepared: compiling the fused statement costs a few milliseconds, a warm
search's largest fixed cost after the arms themselves. ``fused_search`` binds and runs it.
"""

from __future__ import annotations

import functools

import attrs

from memhtml.adapters.sqlite.arm_sql import (
    ARM_SQL,
    FIXED_PARAMS,
    PARAM_FINAL_LIMIT,
    PARAM_QUERY,
    SHARED_MATCHES_CTE,
    ArmHoles,
    graph_ctes,
    graph_via_sql,
    shared_matches_sql,
    sql_number,
)
from memhtml.adapters.sqlite.graph_sql import VIA_CTE
from memhtml.adapters.sqlite.salience_sql import salience_now_ms
from memhtml.adapters.sqlite.scope_sql import (
    ALIAS_TOKEN,
    AssembledScope,
)
from memhtml.domain.fusion import (
    RRF_K,
    ArmKind,
    ArmSpec,
    ranks_windows,
)
from memhtml.domain.rrf import prior_ceiling


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
        prior_bound: Priors as a bounded tie-breaker (``domain.rrf.fuse``), or ``None``.
        vector_ranked: The vector arm's list is bound ranked already (``run_fusion``'s
            ``vector_ranked``) instead of scanned inside the statement.
        fts_ranked: The fts arm's list is bound ranked already (``run_fusion``'s
            ``fts_ranked``, a word pass's) instead of matched inside the statement.
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
    fts_ranked: bool = False
    time_by_vector: bool = True
    any_form: bool = False


def _vector_ranked_param(scope: AssembledScope) -> int:
    """The placeholder of a ranked vector list: the one after the scope's values."""
    return FIXED_PARAMS + len(scope.params) + 1


def _fts_ranked_param(plan: FusionPlan, scope: AssembledScope) -> int:
    """The placeholder of a ranked fts list: after the scope's values and a ranked vector list."""
    return FIXED_PARAMS + len(scope.params) + 1 + int(plan.vector_ranked)


def _windows_param(plan: FusionPlan, scope: AssembledScope) -> int | None:
    """The placeholder of the time arms' windows: after the scope's values and ranked lists."""
    if not ranks_windows(plan.arms):
        return None
    return _fts_ranked_param(plan, scope) + int(plan.fts_ranked)


def _now_param(plan: FusionPlan, scope: AssembledScope) -> int | None:
    """The placeholder of the salience instant: the last one, after the time arm's windows."""
    if not any(arm.name == "salience" for arm in plan.arms):
        return None
    windows = int(ranks_windows(plan.arms))
    return _fts_ranked_param(plan, scope) + int(plan.fts_ranked) + windows


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
    # The instant is bound (?N), never written into the text, so queries that differ only in
    # it share one text, built once per process.
    return _fused_statement(attrs.evolve(plan, now=""), scope)


@functools.lru_cache(maxsize=256)
def _fused_statement(plan: FusionPlan, scope: AssembledScope) -> str:
    """:func:`build_rrf_sql`'s text for a plan with at least one arm."""
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
    names = {arm.name for arm in plan.arms}
    # The arms that can read the fts arm's scored any-term matches instead of matching again.
    readers = {"session", "time_words"} | (set() if plan.time_by_vector else {"time"})
    if plan.any_form and "fts" in names and names & readers:
        shared = SHARED_MATCHES_CTE
        ctes.append(f"{shared} AS MATERIALIZED ({shared_matches_sql(scope)})")
    for arm in plan.arms:
        holes = ArmHoles(
            file_filter=scope.file_filter,
            gate=gate if arm.kind is ArmKind.PRIOR else "",
            embed_model=plan.embed_model,
            now=plan.now,
            vector_max_distance=plan.vector_max_distance,
            seed_ctes=seed_ctes,
            vector_ranked=_vector_ranked_param(scope) if plan.vector_ranked else None,
            fts_ranked=_fts_ranked_param(plan, scope) if plan.fts_ranked else None,
            windows=_windows_param(plan, scope),
            time_by_vector=plan.time_by_vector,
            now_param=_now_param(plan, scope),
            shared_matches=shared if arm.kind is ArmKind.QUERY else None,
        )
        if arm.seeded:
            ctes.extend(graph_ctes(holes))
        ctes.append(f"{_cte(arm)}(path, rank) AS MATERIALIZED ({ARM_SQL[arm.name](holes)})")
        if arm.seeded:
            ctes.append(f"{VIA_CTE}(path, seed, rel, dir) AS ({graph_via_sql(holes)})")
    union = " UNION ".join(f"SELECT path FROM {_cte(arm)}" for arm in plan.arms)
    ctes.append(f"candidates(path) AS ({union})")
    k = sql_number(plan.rrf_k)

    def term(arm: ArmSpec) -> str:
        weight = sql_number(weights.get(arm.name, arm.weight))
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
                f"({query_sum}) * (1.0 + {sql_number(plan.prior_bound)} * ({prior_sum}) "
                f"/ {sql_number(prior_max)})"
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


def fts_probe_sql(scope: AssembledScope) -> str:
    """Whether any in-scope file holds every term: the all-terms form's MATCH at ``?1``."""
    return (
        "SELECT EXISTS (SELECT 1 FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
        f"WHERE files_fts MATCH ?{PARAM_QUERY} {scope.for_alias('f')})"
    )
