"""``neighbors PATH``: the links around one memory, walked out to ``--depth`` hops.

Outbound links are the memory's own head links; inbound ones are other memories' links to it
(docs/ranking.md §2.7). The walk is breadth first and never turns back, so a memory reached at
one hop is not listed again at two.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

import attrs

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.domain.errors import InvalidInput, NotFound
from memhtml.domain.graph import GraphEdge, Neighbor, walk_step
from memhtml.domain.placement import repo_path
from memhtml.domain.vocabulary import ALL_RELS
from memhtml.ports.candidate_store import CandidateStore
from memhtml.ports.indexer import Indexer
from memhtml.ports.link_graph import LinkGraph

MAX_DEPTH: Final = 3
"""The deepest walk ``neighbors`` takes; a fourth hop is most of a small store."""


@attrs.frozen(kw_only=True)
class NeighborPorts:
    """What the walk reads: the index's edges, its rows (titles), and the freshness pass."""

    links: LinkGraph
    candidates: CandidateStore
    indexer: Indexer
    embed: bool


@attrs.frozen(kw_only=True)
class NeighborLink:
    """``memory.neighbors``' one link.

    Attributes:
        path: The other end of the link.
        rel: The relation.
        edge_class: Its class (``memory``, ``task``, ``person``, ``provenance``).
        direction: ``outbound`` (``from_path`` links to ``path``) or ``inbound``.
        depth: Hops from the start.
        from_path: Where the walk met the link.
        title: The other end's title, or None when no indexed memory holds that path.
        memory_type: The other end's type, or None likewise.
    """

    path: str
    rel: str
    edge_class: str
    direction: str
    depth: int
    from_path: str
    title: str | None
    memory_type: str | None


@attrs.frozen(kw_only=True)
class NeighborsResult:
    """``memory.neighbors``: the start, the walk's settings, and every link met."""

    path: str
    depth: int
    relations: tuple[str, ...] | None
    links: tuple[NeighborLink, ...]
    index_fresh: bool
    index_update_ms: float


def neighbors_with(
    ports: NeighborPorts,
    raw_path: str,
    *,
    depth: int = 1,
    relations: Collection[str] | None = None,
) -> NeighborsResult:
    """Walk the links around the memory at ``raw_path``.

    Raises:
        InvalidInput: A depth outside 1–3, an unknown relation, or a path leaving the repository.
        NotFound: No indexed memory at the path.
    """
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"depth must lie in 1–{MAX_DEPTH}, got {depth!r}")
    wanted = None if relations is None else tuple(dict.fromkeys(relations))
    unknown = [rel for rel in wanted or () if rel not in ALL_RELS]
    if unknown:
        raise InvalidInput(f"unknown relation(s): {', '.join(unknown)}")
    path = repo_path(raw_path, "path")
    freshness = ensure_fresh(ports.indexer, embed=ports.embed)
    if path not in ports.candidates.candidate_rows([path], None):
        raise NotFound(f"no memory at {path}")
    met: list[Neighbor] = []
    frontier, seen = {path}, {path}
    for hop in range(1, depth + 1):
        edges = [
            GraphEdge(src=link.src, rel=link.rel, dst=link.dst, edge_class=link.edge_class)
            for link in ports.links.links_touching(sorted(frontier))
        ]
        step = walk_step(frontier, edges, depth=hop, seen=seen, relations=wanted)
        met.extend(step)
        frontier = {n.path for n in step}
        seen |= frontier
        if not frontier:
            break
    rows = ports.candidates.candidate_rows(sorted({n.path for n in met}), None)
    return NeighborsResult(
        path=path,
        depth=depth,
        relations=wanted,
        links=tuple(
            NeighborLink(
                path=n.path,
                rel=n.rel,
                edge_class=n.edge_class,
                direction=n.direction,
                depth=n.depth,
                from_path=n.from_path,
                title=rows[n.path].title if n.path in rows else None,
                memory_type=rows[n.path].memory_type if n.path in rows else None,
            )
            for n in met
        ),
        index_fresh=freshness.index_fresh,
        index_update_ms=freshness.index_update_ms,
    )
