"""Reciprocal rank fusion's pure twin: per-arm rankings fused into one ordered list.

The SQL adapter's fused statement is checked against :func:`fuse` to 1e-9 by the contract
suite, so the arithmetic here is deliberately plain: one ``/`` per term, added left to right
in registry order (:data:`memhtml.domain.fusion.RANK_ARMS`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from memhtml.domain.errors import InvalidInput
from memhtml.domain.fusion import RANK_ARMS, RRF_K, ArmKind, ArmSpec, Fused, arm_named
from memhtml.domain.graph import GraphVia


def fuse(
    rankings: Mapping[str, Sequence[str]],
    *,
    weights: Mapping[str, float] | None = None,
    k: float = RRF_K,
    gate_priors: bool = False,
    limit: int | None = None,
    arms: Sequence[ArmSpec] = RANK_ARMS,
    evidence_first: bool = False,
    vias: Mapping[str, GraphVia] | None = None,
    prior_bound: float | None = None,
) -> tuple[Fused, ...]:
    """Fuse per-arm rankings into one ordered list (the twin of the fused SQL statement).

    A path at position ``i`` (0-based) of arm ``a``'s list has rank ``i + 1`` and contributes
    ``weight_a / (rank + k)``. Contributions are added left to right starting from ``0.0`` in
    registry order, one ``/`` per term and nothing else, so the SQL side (``UNION ALL`` in
    registry order, then ``SUM``) reproduces the same float to well within 1e-9.

    With ``gate_priors`` a prior arm only ranks paths some query arm of ``rankings`` returned:
    its list is restricted to those candidates and renumbered from 1, so the most recent
    candidate takes recency rank 1. The SQL side filters the prior's CTE to the query arms'
    union *before* its LIMIT, which is the same thing; renumbering matters, because a prior's
    global top 40 rarely intersects a query's candidates and the gate would otherwise switch the
    priors off instead of letting them order the relevant set. When no query arm ran at
    all (a query of punctuation with no embedder), the priors pass ungated; gating then would
    turn every such query into an empty result, which is a worse answer than "most recent".
    A query arm that ran and returned nothing still gates, so the result is empty.

    Args:
        rankings: Per arm name, the paths it returned, best first (each path at most once).
        weights: Per-arm weight overrides; arms not named keep the registry's weight.
        k: The RRF constant (``--rrf-k``), at least 0.
        gate_priors: Restrict prior arms to candidates a query arm found.
        limit: Keep only the first ``limit`` results; ``None`` keeps all.
        arms: The registry giving each arm's kind and default weight.
        evidence_first: Order every candidate some query arm ranked before every candidate
            only a prior ranked, whatever their scores (query evidence first); the priors then
            order within each group.
        vias: The seeded (graph) arm's step for each path it ranked
            (``domain/graph.graph_ranking``); attached to those paths only.
        prior_bound: Make the priors a bounded tie-breaker instead of addends: the score is the
            query arms' sum times ``1 + prior_bound × p / p_max``, where ``p`` is the priors'
            sum and ``p_max`` what every fired prior's rank 1 would give. A candidate no query
            arm ranked scores 0. With ``prior_bound < 1 / (k + 1)`` a memory ranked first by
            every query arm stays first whatever the priors say. When no query arm fired
            the priors are added as without a bound.

    Returns:
        The fused candidates by score descending, then path ascending (plain ``str`` order);
        with ``evidence_first``, first those a query arm ranked.

    Raises:
        InvalidInput: An unknown arm name in ``rankings`` or ``weights``, a negative or
            non-finite weight or ``k``, a negative ``limit``, or a path repeated within one arm
            (an arm that lists a file twice would have it counted twice, so length would beat
            relevance).
    """
    if not (math.isfinite(k) and k >= 0):
        raise InvalidInput(f"the RRF constant must be a finite number >= 0, got {k!r}")
    if limit is not None and limit < 0:
        raise InvalidInput(f"limit must be >= 0, got {limit!r}")
    if prior_bound is not None and not (math.isfinite(prior_bound) and prior_bound >= 0):
        raise InvalidInput(f"the prior bound must be a finite number >= 0, got {prior_bound!r}")
    overrides = dict(weights or {})
    for name, weight in overrides.items():
        arm_named(name, arms)
        if not (math.isfinite(weight) and weight >= 0):
            raise InvalidInput(f"weight of arm {name!r} must be finite and >= 0, got {weight!r}")
    for name, paths in rankings.items():
        arm_named(name, arms)
        if len(set(paths)) != len(paths):
            raise InvalidInput(f"arm {name!r} lists a path more than once")

    fired = [arm for arm in arms if arm.name in rankings]
    query_found = {
        path for arm in fired if arm.kind is ArmKind.QUERY for path in rankings[arm.name]
    }
    gated = gate_priors and any(arm.kind is ArmKind.QUERY for arm in fired)
    # Like the gate: with no query arm firing there is nothing to bound, and zeroing every
    # score would order the priors' candidates by path; they are added instead.
    bounding = prior_bound is not None and any(arm.kind is ArmKind.QUERY for arm in fired)

    scores: dict[str, float] = {}
    prior_sums: dict[str, float] = {}
    ranks: dict[str, list[tuple[str, int]]] = {}
    for arm in fired:
        weight = overrides.get(arm.name, arm.weight)
        paths = rankings[arm.name]
        if gated and arm.kind is ArmKind.PRIOR:
            paths = [path for path in paths if path in query_found]
        bounded_prior = bounding and arm.kind is ArmKind.PRIOR
        sums = prior_sums if bounded_prior else scores
        for position, path in enumerate(paths):
            rank = position + 1
            sums[path] = sums.get(path, 0.0) + weight / (rank + k)
            ranks.setdefault(path, []).append((arm.name, rank))
    if bounding and prior_bound is not None:
        scores = _bounded(scores, prior_sums, prior_bound, prior_ceiling(fired, overrides, k))

    query_names = {arm.name for arm in fired if arm.kind is ArmKind.QUERY}

    def without_evidence(path: str) -> bool:
        return evidence_first and not any(name in query_names for name, _ in ranks[path])

    ordered = sorted(scores, key=lambda path: (without_evidence(path), -scores[path], path))
    if limit is not None:
        ordered = ordered[:limit]
    stepped = {path for arm in fired if arm.seeded for path in rankings[arm.name]}
    return tuple(
        Fused(
            path=p,
            score=scores[p],
            ranks=tuple(ranks[p]),
            via=vias.get(p) if vias and p in stepped else None,
        )
        for p in ordered
    )


def prior_ceiling(arms: Sequence[ArmSpec], overrides: Mapping[str, float], k: float) -> float:
    """What the fired priors give a path ranked first by all of them (their sum's ceiling)."""
    total = 0.0
    for arm in arms:
        if arm.kind is ArmKind.PRIOR:
            total = total + overrides.get(arm.name, arm.weight) / (1 + k)
    return total


def _bounded(
    query: Mapping[str, float], priors: Mapping[str, float], bound: float, prior_max: float
) -> dict[str, float]:
    """Each path's query sum scaled by ``1 + bound × prior / prior_max`` (0 for prior-only)."""
    paths = set(query) | set(priors)
    if prior_max <= 0.0:
        return {path: query.get(path, 0.0) for path in paths}
    return {
        path: query.get(path, 0.0) * (1.0 + bound * priors.get(path, 0.0) / prior_max)
        for path in paths
    }
