"""The graph arm's pure rules: seed evidence, what one hop reaches, and each hit's step."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.fusion import Fused
from memhtml.domain.graph import (
    GRAPH_SEEDS,
    INBOUND,
    OUTBOUND,
    REL_WEIGHTS,
    SESSION_REL,
    SESSION_WEIGHT,
    GraphEdge,
    GraphVia,
    graph_ranking,
    seed_evidence,
    session_edges,
)
from memhtml.domain.rrf import fuse

PATHS = [f"p{i}" for i in range(8)]
edges_strategy = st.lists(
    st.builds(
        GraphEdge,
        src=st.sampled_from(PATHS),
        rel=st.sampled_from([*REL_WEIGHTS, "blocks"]),
        dst=st.sampled_from(PATHS),
        edge_class=st.sampled_from(["memory", "memory", "task"]),
    ).filter(lambda e: e.src != e.dst),
    max_size=12,
)
arm_lists = st.lists(st.lists(st.sampled_from(PATHS), unique=True, max_size=5), max_size=3)


def test_seed_evidence_sums_each_arms_linear_credit() -> None:
    """Rank 1 earns 10, rank 10 earns 1, rank 11 nothing; arms add up."""
    fts = [f"f{i}" for i in range(GRAPH_SEEDS + 1)]
    assert {**{f"f{i}": 10 - i for i in range(1, GRAPH_SEEDS)}, "f0": 20} == seed_evidence(
        [fts, ["f0"]]
    )


def test_a_fix_is_reached_from_the_failure_it_fixes() -> None:
    """The failure is the seed; the fix that links to it comes in, inbound, with its step."""
    edges = [GraphEdge(src="fix", rel="fixes", dst="failure")]
    order, vias = graph_ranking([["failure"]], edges, {"failure", "fix"})
    assert (["fix"], {"fix": GraphVia(path="failure", rel="fixes", direction=INBOUND)}) == (
        order,
        vias,
    )


def test_a_seed_linked_to_another_seed_is_corroborated() -> None:
    """Two seeds linking each other both rank, each reached from the other."""
    edges = [GraphEdge(src="fix", rel="fixes", dst="failure")]
    order, vias = graph_ranking([["failure", "fix"]], edges, {"failure", "fix"})
    assert (["fix", "failure"], "failure", "fix") == (order, vias["fix"].path, vias["failure"].path)


def test_the_stronger_relation_and_the_stronger_seed_rank_first() -> None:
    """A cause reached from rank 1 beats a loose relation from rank 1 and a cause from rank 2."""
    edges = [
        GraphEdge(src="a", rel="caused_by", dst="cause"),
        GraphEdge(src="a", rel="relates_to", dst="loose"),
        GraphEdge(src="b", rel="caused_by", dst="later"),
    ]
    order, vias = graph_ranking([["a", "b"]], edges, {"cause", "loose", "later"})
    assert ["cause", "later", "loose"] == order
    assert GraphVia(path="a", rel="caused_by", direction=OUTBOUND) == vias["cause"]


@given(rankings=arm_lists, edges=edges_strategy, admitted=st.frozensets(st.sampled_from(PATHS)))
def test_only_admitted_memories_one_hop_from_a_seed_rank(
    rankings: list[list[str]], edges: list[GraphEdge], admitted: frozenset[str]
) -> None:
    """Every ranked memory is in scope and linked by a memory edge to a seed it names as its
    step; every admitted memory so linked is ranked."""
    order, vias = graph_ranking(rankings, edges, admitted)
    seeds = seed_evidence(rankings)
    assert len(order) == len(set(order)) == len(vias)
    reachable = {
        hit
        for e in edges
        if e.edge_class == "memory" and e.rel in REL_WEIGHTS
        for seed, hit in ((e.src, e.dst), (e.dst, e.src))
        if seed in seeds and hit in admitted
    }
    assert reachable == set(order)
    for path in order:
        via = vias[path]
        assert via.path in seeds
        link = (
            GraphEdge(src=via.path, rel=via.rel, dst=path)
            if via.direction == OUTBOUND
            else GraphEdge(src=path, rel=via.rel, dst=via.path)
        )
        assert link in edges


@given(rankings=arm_lists, edges=edges_strategy)
def test_fusion_attaches_a_step_to_graph_ranked_paths_only(
    rankings: list[list[str]], edges: list[GraphEdge]
) -> None:
    """A fused candidate carries a via exactly when the graph arm ranked it."""
    order, vias = graph_ranking(rankings, edges, set(PATHS))
    arms = dict(zip(("fts", "vector", "entity"), rankings, strict=False))
    fused = fuse({**arms, "graph": order[:3]}, vias=vias)
    expected = [(f.path, vias[f.path] if f.path in order[:3] else None) for f in fused]
    assert expected == [(f.path, f.via) for f in fused]
    assert all(isinstance(f, Fused) for f in fused)


def test_a_turn_is_reached_from_the_turn_before_and_after_it_in_its_session() -> None:
    """The implicit ``precedes`` edges reach both neighbours of a seed, each with its step."""
    edges = session_edges({"t2": "t1", "t3": "t2"})
    order, vias = graph_ranking([["t2"]], edges, {"t1", "t2", "t3"})
    assert (
        ["t1", "t3"],
        {
            "t1": GraphVia(path="t2", rel=SESSION_REL, direction=INBOUND),
            "t3": GraphVia(path="t2", rel=SESSION_REL, direction=OUTBOUND),
        },
    ) == (order, vias)


@given(previous=st.dictionaries(st.sampled_from(PATHS), st.sampled_from(PATHS), max_size=6))
def test_a_session_edge_weighs_no_more_than_the_loosest_authored_link(
    previous: dict[str, str],
) -> None:
    """Adjacency in a session is told, not claimed: one step of it never outweighs a link."""
    edges = session_edges(previous)
    assert all(edge.rel == SESSION_REL and edge.edge_class == "memory" for edge in edges)
    assert {(e.src, e.dst) for e in edges} == {(b, p) for p, b in previous.items()}
    assert SESSION_WEIGHT <= min(REL_WEIGHTS.values())
