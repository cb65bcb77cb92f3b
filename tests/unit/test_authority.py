"""Bounded authority: the adjustment's terms and bound, and the two ordering guarantees."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.authority import (
    AUTHORITY_BOUND,
    AuthorityFacts,
    apply_authority,
    authority_adjustment,
)
from memhtml.domain.fusion import Fused

QUERY_ARMS = frozenset({"fts", "vector", "entity", "graph"})
SAFE_LEAD = (1 + AUTHORITY_BOUND) / (1 - AUTHORITY_BOUND)

facts_values = st.builds(
    AuthorityFacts,
    memory_type=st.sampled_from(["episodic", "semantic", "procedural", "verdict", "task"]),
    importance=st.integers(1, 10),
    confidence=st.floats(0, 1),
    pinned=st.booleans(),
    tags=st.frozensets(st.sampled_from(["Canonical", "gotcha", "stale", "draft", "misc"])),
)


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[Fused], dict[str, AuthorityFacts]]:
    """A fused order (scores descending) with per-path facts and mixed evidence."""
    count = draw(st.integers(0, 12))
    scores = sorted(
        draw(st.lists(st.floats(0.001, 1.0), min_size=count, max_size=count)), reverse=True
    )
    fused = []
    for i, score in enumerate(scores):
        arm = draw(st.sampled_from(["fts", "vector", "graph", "recency", "salience"]))
        fused.append(Fused(path=f"m{i:02d}", score=score, ranks=((arm, i + 1),)))
    facts = {f.path: draw(facts_values) for f in fused}
    return fused, facts


def test_a_maintained_memory_outweighs_a_session_note() -> None:
    """Kind alone: procedural +0.03, episodic −0.03, anything else 0."""
    assert (0.03, -0.03, 0.0) == tuple(
        authority_adjustment(AuthorityFacts(memory_type=kind))
        for kind in ("procedural", "episodic", "verdict")
    )


def test_every_term_adds_up_inside_the_bound() -> None:
    """Pin, importance 10, a canonical tag and a semantic kind would give 0.15: clamped to 0.1;
    a stale draft at importance 1 and confidence 0 is clamped to −0.1."""
    best = AuthorityFacts(
        memory_type="semantic", importance=10, pinned=True, tags=frozenset({"CANONICAL"})
    )
    worst = AuthorityFacts(
        memory_type="episodic", importance=1, confidence=0.0, tags=frozenset({"stale", "draft"})
    )
    assert (0.1, -0.1) == (authority_adjustment(best), authority_adjustment(worst))


@given(facts=facts_values)
def test_the_adjustment_never_leaves_the_bound(facts: AuthorityFacts) -> None:
    """Whatever a memory carries, authority moves its score by at most ±10 %."""
    assert -AUTHORITY_BOUND <= authority_adjustment(facts) <= AUTHORITY_BOUND


@given(pool=pools())
def test_reordering_is_a_bounded_permutation(
    pool: tuple[list[Fused], dict[str, AuthorityFacts]],
) -> None:
    """Every candidate comes back once, its score within ±10 % of the fused one, ranks kept."""
    fused, facts = pool
    run = apply_authority(fused, facts, QUERY_ARMS)
    before = {f.path: f for f in fused}
    assert sorted(f.path for f in fused) == sorted(f.path for f in run.fused)
    for moved in run.fused:
        ratio = moved.score / before[moved.path].score
        assert 1 - AUTHORITY_BOUND - 1e-12 <= ratio <= 1 + AUTHORITY_BOUND + 1e-12
        assert before[moved.path].ranks == moved.ranks


@given(pool=pools())
@example(
    pool=(
        [
            Fused(path="a", score=1.0, ranks=(("fts", 1),)),
            Fused(path="b", score=0.99, ranks=(("recency", 1),)),
        ],
        {
            "a": AuthorityFacts(memory_type="episodic", tags=frozenset({"stale"})),
            "b": AuthorityFacts(memory_type="semantic", pinned=True),
        },
    )
)
def test_no_lift_without_query_evidence(
    pool: tuple[list[Fused], dict[str, AuthorityFacts]],
) -> None:
    """A memory no query arm ranked is never raised, and never passes one with query evidence
    that fusion put above it, however much authority either carries."""
    fused, facts = pool
    run = apply_authority(fused, facts, QUERY_ARMS)
    before = {f.path: i for i, f in enumerate(fused)}
    after = {f.path: i for i, f in enumerate(run.fused)}
    evidence = {f.path: any(n in QUERY_ARMS for n, _ in f.ranks) for f in fused}
    for path in before:
        if not evidence[path]:
            assert run.adjustments.get(path, 0.0) <= 0.0
            for other in before:
                if evidence[other] and before[other] < before[path]:
                    assert after[other] < after[path]


@given(pool=pools())
def test_a_strong_lead_survives_any_authority(
    pool: tuple[list[Fused], dict[str, AuthorityFacts]],
) -> None:
    """A memory whose fused score leads another's by more than (1 + B) / (1 − B) stays ahead."""
    fused, facts = pool
    after = {f.path: i for i, f in enumerate(apply_authority(fused, facts, QUERY_ARMS).fused)}
    for high in fused:
        for low in fused:
            if high.score > low.score * SAFE_LEAD * (1 + 1e-9):
                assert after[high.path] < after[low.path]


def test_a_maintained_procedure_wins_a_near_tie() -> None:
    """Within a few percent, the procedure passes the session note; the note keeps its rank."""
    fused = [
        Fused(path="note", score=0.100, ranks=(("fts", 1),)),
        Fused(path="procedure", score=0.098, ranks=(("fts", 2),)),
    ]
    facts = {
        "note": AuthorityFacts(memory_type="episodic"),
        "procedure": AuthorityFacts(memory_type="procedural"),
    }
    run = apply_authority(fused, facts, QUERY_ARMS)
    assert (["procedure", "note"], {"note": -0.03, "procedure": 0.03}) == (
        [f.path for f in run.fused],
        dict(run.adjustments),
    )


@given(pool=pools())
def test_neutral_facts_keep_the_fused_order(
    pool: tuple[list[Fused], dict[str, AuthorityFacts]],
) -> None:
    """With every adjustment zero, the order and scores are fusion's."""
    fused, _ = pool
    neutral = {f.path: AuthorityFacts(memory_type="verdict") for f in fused}
    run = apply_authority(fused, neutral, QUERY_ARMS)
    assert (tuple(fused), {}) == (run.fused, dict(run.adjustments))
