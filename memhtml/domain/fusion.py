"""Reciprocal rank fusion's arm registry: the constants, the arms and which of them fire.

Each ranking arm hands over an ordered list of paths; fusion sums ``weight / (rank + k)`` per
path and orders by that sum, ties broken by path. The SQL adapter assembles one statement by
folding over :data:`RANK_ARMS`; the pure twin it is checked against is
:func:`memhtml.domain.rrf.fuse`.

A new arm (entity, graph…) joins by adding an :class:`ArmSpec` to the registry; nothing else
names the arms, so dropping or adding one is a change to one tuple.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from enum import StrEnum
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput
from memhtml.domain.graph import GraphVia

RRF_K: Final = 20
"""The RRF damping constant: rank 1 earns 1/21, rank 40 earns 1/60.

The original tool's 60 flattens the top of each arm: on LoCoMo (docs/evaluation.md §B, hybrid, all
arms) k = 20 with the vector arm at weight 0.5 and stopwords dropped from the lexical query raised
turn Recall@10 from 0.461 to 0.552 and session MRR from 0.584 to 0.664, and the discrimination gate
still passed every seed 1-20 (docs/decisions.md §12 allows the switch once our own harness
shows it).
"""

PRIOR_BOUND: Final[float | None] = 0.04
"""The default prior bound (:func:`fuse`): recency and salience order and break ties among the
query arms' candidates, worth at most 4 % of a score, and never lift a memory no query arm
found. Below ``1 / (RRF_K + 1)`` (0.0476), so a memory every query arm ranked first stays
first (docs/ranking.md §10; LoCoMo, BENCHMARKS.md issue 13). ``None`` adds them as arms."""

DEFAULT_ARM_LIMIT: Final = 40
"""How many candidates each arm contributes before fusion (every arm's SQL ``LIMIT``)."""

DEFAULT_SEARCH_LIMIT: Final = 10
"""How many hits ``search`` returns when the caller names no limit."""

MMR_POOL_FACTOR: Final = 3
"""Fused candidates fetched before MMR, as a multiple of the final limit.

Diversification can only reorder what it was given, so a pool the size of the limit would make
MMR a no-op.
"""


class ArmKind(StrEnum):
    """Whether an arm reads the query or ranks by a query-blind prior."""

    QUERY = "query"
    PRIOR = "prior"


class ArmNeed(StrEnum):
    """An input an arm cannot run without; a missing input drops the arm, never the query."""

    QUERY_TERMS = "query_terms"
    QUERY_VECTOR = "query_vector"
    STATE = "state"
    QUERY_ENTITIES = "query_entities"
    QUERY_WINDOWS = "query_windows"


@attrs.frozen(kw_only=True)
class ArmSpec:
    """One ranking arm of the registry.

    Attributes:
        name: The arm's stable name, as the CLI's ``--arms`` and ``--weights`` spell it.
        weight: The default RRF weight (docs/decisions.md §12 lets a caller override it per arm).
        kind: ``QUERY`` when the arm reads the query, ``PRIOR`` when it is query-blind; the
            prior gate (``gate_priors``) keys on this.
        needs: The inputs without which the arm is dropped from the fold.
        seeded: The arm ranks from the other query arms' best candidates (the graph arm), so
            it fires only when one of them fires too.
        default: The arm fires without ``--arms``; an opt-in arm (``False``) fires only when
            the caller selects it, until an evaluation puts it in the default set.
    """

    name: str
    weight: float
    kind: ArmKind
    needs: frozenset[ArmNeed]
    seeded: bool = False
    default: bool = True


RANK_ARMS: Final[tuple[ArmSpec, ...]] = (
    ArmSpec(name="fts", weight=1.0, kind=ArmKind.QUERY, needs=frozenset({ArmNeed.QUERY_TERMS})),
    ArmSpec(name="context", weight=1.0, kind=ArmKind.QUERY, needs=frozenset({ArmNeed.QUERY_TERMS})),
    ArmSpec(name="vector", weight=0.5, kind=ArmKind.QUERY, needs=frozenset({ArmNeed.QUERY_VECTOR})),
    ArmSpec(name="recency", weight=0.5, kind=ArmKind.PRIOR, needs=frozenset()),
    ArmSpec(name="salience", weight=0.4, kind=ArmKind.PRIOR, needs=frozenset({ArmNeed.STATE})),
    ArmSpec(
        name="entity",
        weight=1.0,
        kind=ArmKind.QUERY,
        needs=frozenset({ArmNeed.QUERY_ENTITIES}),
        default=False,
    ),
    ArmSpec(
        name="session",
        weight=0.25,
        kind=ArmKind.QUERY,
        needs=frozenset({ArmNeed.QUERY_TERMS}),
        default=False,
    ),
    ArmSpec(
        name="time",
        weight=1.5,
        kind=ArmKind.QUERY,
        needs=frozenset({ArmNeed.QUERY_WINDOWS}),
    ),
    ArmSpec(
        name="time_words",
        weight=1.0,
        kind=ArmKind.QUERY,
        needs=frozenset({ArmNeed.QUERY_WINDOWS, ArmNeed.QUERY_VECTOR, ArmNeed.QUERY_TERMS}),
    ),
    ArmSpec(
        name="graph",
        weight=0.5,
        kind=ArmKind.QUERY,
        needs=frozenset(),
        seeded=True,
    ),
)
"""The registry, in fold order. Fusion sums contributions in this order (see :func:`fuse`).

``entity`` (issue 15) is opt-in (``--arms``): the default set changes only on an evaluation
(issue 13), and none has put it there. ``session`` (docs/ranking.md §2.9) is opt-in too: it
gains turn recall on LoCoMo, but a warm search at 10,000 memories with it still costs
1.1–1.2× one without, against a budget of 1.1×. ``graph`` joined the default set when its implicit
session edges were measured on LoCoMo (docs/ranking.md §10), ``time`` (the vector arm inside
the dates a query names, ``domain.query_dates``) when its windows were; it fires only for a
query that names a date (the planner offers windows only beside a vector or terms to rank
them by). ``time_words`` ranks the same windows by the words (the own text's bm25) beside
``time`` ranking them by meaning; it needs the query vector too, because without one ``time``
itself ranks by the words and a second arm would count them twice (docs/ranking.md §2.8)."""


def selected_arm_names(
    selection: Collection[str] | None, arms: Sequence[ArmSpec] = RANK_ARMS
) -> frozenset[str]:
    """The arm names a query may fire: the caller's ``--arms``, else the default set."""
    if selection is not None:
        return frozenset(selection)
    return frozenset(arm.name for arm in arms if arm.default)


@attrs.frozen(kw_only=True)
class Fused:
    """One fused candidate.

    Attributes:
        path: The memory's repository path.
        score: The fused sum, comparable only within one result.
        ranks: ``(arm name, rank)`` for every arm that ranked the path, in registry order; an arm
            that did not rank it is absent (the CLI's ``ranks`` field).
        via: For a path the graph arm ranked, the link it was reached by; else ``None``.
    """

    path: str
    score: float
    ranks: tuple[tuple[str, int], ...]
    via: GraphVia | None = None


def ranks_windows(arms: Collection[ArmSpec]) -> bool:
    """Whether one of ``arms`` ranks inside the day windows the query names (the time arms)."""
    return any(ArmNeed.QUERY_WINDOWS in arm.needs for arm in arms)


def arm_named(name: str, arms: Sequence[ArmSpec] = RANK_ARMS) -> ArmSpec:
    """The registry entry called ``name``.

    Raises:
        InvalidInput: When no arm of ``arms`` has that name.
    """
    for arm in arms:
        if arm.name == name:
            return arm
    known = ", ".join(arm.name for arm in arms)
    raise InvalidInput(f"unknown ranking arm {name!r} (known: {known})")


def active_arms(
    available: Collection[ArmNeed],
    *,
    selection: Collection[str] | None = None,
    arms: Sequence[ArmSpec] = RANK_ARMS,
) -> tuple[ArmSpec, ...]:
    """The arms that will actually fire, in registry order.

    An arm fires when every input it needs is available and it is among the caller's selection
    (``--arms``) or, without one, among the default arms; a seeded arm (graph) fires only beside
    another query arm. A missing input narrows the result; it never fails it.

    Args:
        available: The inputs this query has (query terms, a query vector, a state plane).
        selection: Arm names the caller asked for, or ``None`` for the default ones.
        arms: The registry to filter.

    Returns:
        The firing arms, possibly none; no arm means an empty result, never a query.

    Raises:
        InvalidInput: When ``selection`` names an arm the registry does not hold, so a typo in
            ``--arms`` is refused instead of silently running without that arm.
    """
    if selection is not None:
        for name in selection:
            arm_named(name, arms)
    have = frozenset(available)
    wanted = selected_arm_names(selection, arms)
    firing = [arm for arm in arms if arm.needs <= have and arm.name in wanted]
    seeds = any(arm.kind is ArmKind.QUERY and not arm.seeded for arm in firing)
    return tuple(arm for arm in firing if seeds or not arm.seeded)
