"""The graph arm's rules: seeds, edge classes and the order of the memories links reach.

The graph arm starts from the other query arms' best candidates (the *seeds*: each arm's top
:data:`GRAPH_SEEDS`) and follows authored links and typed relations one hop, in either
direction, and the implicit edge between consecutive episodic memories of one session
(:data:`SESSION_REL`). A memory reached that way ranks by the evidence of the seeds that reach
it times the weight of the relation, and carries the step it was reached by (:class:`GraphVia`),
so an agent can see why it is there (``docs/ranking.md §2.7``). A seed linked to another seed is
reached too: the link corroborates it, so a fix the vector arm already found still outranks a
look-alike nothing links to.

Pure; the SQLite arm (``adapters/sqlite/arm_sql``) is held to :func:`graph_ranking` by the
contract suites. Evidence and weights are integers so every sum is exact in any order.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final

import attrs

from memhtml.domain.vocabulary import MEMORY_RELS

GRAPH_SEEDS: Final = 10
"""How many of each query arm's best candidates the graph arm starts from."""

GRAPH_EDGE_CLASS: Final = "memory"
"""Only relations between memories are followed; task, person and provenance edges are
bookkeeping (a person is reached through the entity arm)."""

OUTBOUND: Final = "outbound"
"""The seed links to the memory reached (``seed --rel--> hit``)."""

INBOUND: Final = "inbound"
"""The memory reached links to the seed (``hit --rel--> seed``): a fix that names the failure
it fixes is found from the failure."""

REL_WEIGHTS: Final[Mapping[str, int]] = {
    "fixes": 3,
    "caused_by": 3,
    "leads_to": 3,
    "contradicts": 2,
    "supports": 2,
    "example_of": 2,
    "part_of": 2,
    "supersedes": 1,
    "relates_to": 1,
    "laterally_related": 1,
}
"""Per memory relation, how much a link of it carries: cause and fix most, a declared
contradiction or support next, a loose relation least. A declared edge is a claim, not proof,
so no relation outweighs another by more than three to one."""

SESSION_REL: Final = "precedes"
"""The implicit relation between consecutive episodic memories of one session: ``src`` is the
memory just before ``dst`` (the context document's ``prev`` neighbour, ``domain/lexical_context``).
Nobody authors it, so it is not in the link vocabulary; the arm follows it like a link, so a
turn that answers a question is reached from the turn that asked it, and the other way round."""

SESSION_WEIGHT: Final = 1
"""Adjacency in a session is the loosest relation: it says two events were told together."""

if set(REL_WEIGHTS) != set(MEMORY_RELS):  # pragma: no cover - a wiring bug
    raise ImportError("every memory relation needs a graph weight")
if SESSION_REL in MEMORY_RELS:  # pragma: no cover - a wiring bug
    raise ImportError("the implicit session relation must not be an authorable one")

_WEIGHTS: Final[Mapping[str, int]] = {**REL_WEIGHTS, SESSION_REL: SESSION_WEIGHT}


@attrs.frozen(kw_only=True, order=True)
class GraphVia:
    """The step that brought a memory into the graph arm.

    Attributes:
        path: The seed it was reached from.
        rel: The relation of the link followed.
        direction: :data:`OUTBOUND` (the original tool's link) or :data:`INBOUND` (a link to
            the seed).
    """

    path: str
    rel: str
    direction: str


@attrs.frozen(kw_only=True)
class GraphEdge:
    """One edge as the arm reads it: ``src --rel--> dst`` of class ``edge_class``."""

    src: str
    rel: str
    dst: str
    edge_class: str = GRAPH_EDGE_CLASS


def session_edges(previous: Mapping[str, str]) -> list[GraphEdge]:
    """The implicit ``previous --precedes--> memory`` edge of every memory with a neighbour."""
    return [GraphEdge(src=before, rel=SESSION_REL, dst=path) for path, before in previous.items()]


def seed_evidence(rankings: Iterable[Sequence[str]]) -> dict[str, int]:
    """Each seed's evidence: over the query arms, ``GRAPH_SEEDS + 1 − rank`` for every arm that
    ranks it within its top :data:`GRAPH_SEEDS` (rank 1 earns 10)."""
    evidence: dict[str, int] = {}
    for paths in rankings:
        for position, path in enumerate(paths[:GRAPH_SEEDS]):
            evidence[path] = evidence.get(path, 0) + GRAPH_SEEDS - position
    return evidence


def graph_ranking(
    rankings: Iterable[Sequence[str]],
    edges: Iterable[GraphEdge],
    admitted: Collection[str],
) -> tuple[list[str], dict[str, GraphVia]]:
    """The graph arm's order and each ranked memory's step.

    Args:
        rankings: The other query arms' lists, best first (already cut to their budget).
        edges: Every edge of the index (dangling ones included; their ends are not admitted),
            and the implicit session edges (:func:`session_edges`).
        admitted: The memories inside the scope.

    Returns:
        The memories one hop from a seed (another seed included), inside the scope, by summed
        ``evidence × weight`` descending, then path; and for each, the step that contributed
        most (ties: the smaller seed path, relation, direction).
    """
    evidence = seed_evidence(rankings)
    scores: dict[str, int] = {}
    best: dict[str, tuple[int, GraphVia]] = {}
    for edge in edges:
        weight = _WEIGHTS.get(edge.rel)
        if edge.edge_class != GRAPH_EDGE_CLASS or weight is None:
            continue
        for seed, hit, direction in ((edge.src, edge.dst, OUTBOUND), (edge.dst, edge.src, INBOUND)):
            if seed not in evidence or hit not in admitted:
                continue
            score = evidence[seed] * weight
            scores[hit] = scores.get(hit, 0) + score
            step = GraphVia(path=seed, rel=edge.rel, direction=direction)
            held = best.get(hit)
            if held is None or (-score, step) < (-held[0], held[1]):
                best[hit] = (score, step)
    order = sorted(scores, key=lambda path: (-scores[path], path))
    return order, {path: best[path][1] for path in order}


@attrs.frozen(kw_only=True, order=True)
class Neighbor:
    """One link met walking out from a memory (``memhtml neighbors``).

    Attributes:
        depth: Hops from the start (1 = a link of the start itself).
        from_path: The memory the link was met at.
        direction: :data:`OUTBOUND` (``from_path``'s own link) or :data:`INBOUND` (a link to it).
        rel: The relation.
        path: The other end, possibly a path no memory holds (links may dangle).
        edge_class: The relation's class.
    """

    depth: int
    from_path: str
    direction: str
    rel: str
    path: str
    edge_class: str


def walk_step(
    frontier: Collection[str],
    edges: Iterable[GraphEdge],
    *,
    depth: int,
    seen: Collection[str],
    relations: Collection[str] | None = None,
) -> tuple[Neighbor, ...]:
    """Every link at one hop from ``frontier`` whose other end was not reached before.

    Args:
        frontier: The memories reached at ``depth − 1``.
        edges: At least every edge touching ``frontier``.
        depth: The hop these links are.
        seen: Every path reached before this hop (the frontier included), so the walk never
            turns back.
        relations: Only these relations; ``None`` follows all.

    Returns:
        Each link once per direction it is met in, sorted (from, direction, rel, path).
    """
    found: set[Neighbor] = set()
    for edge in edges:
        if relations is not None and edge.rel not in relations:
            continue
        for start, end, direction in (
            (edge.src, edge.dst, OUTBOUND),
            (edge.dst, edge.src, INBOUND),
        ):
            if start in frontier and end not in seen:
                found.add(
                    Neighbor(
                        depth=depth,
                        from_path=start,
                        direction=direction,
                        rel=edge.rel,
                        path=end,
                        edge_class=edge.edge_class,
                    )
                )
    return tuple(sorted(found))
