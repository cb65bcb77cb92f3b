"""Scoring invariants: discrimination ranks, reciprocal ranks, MRR and the pass rule."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.eval.discrimination.scoring import (
    ProbeScore,
    mean_4dp,
    outranks,
    score_probe,
    summarize,
)

TARGET = "t.html"
hit_lists = st.lists(
    st.sampled_from(["t.html", "c0.html", "c1.html", "c2.html", "x.html"]), unique=True
)
control_sets = st.lists(
    st.tuples(
        st.sampled_from(["c0.html", "c1.html", "c2.html"]),
        st.sampled_from(["negation", "numeric", "variant"]),
    ),
    unique_by=lambda c: c[0],
    max_size=3,
)


def _score(hits: list[str], controls: list[tuple[str, str]], degraded: bool = False) -> ProbeScore:
    return score_probe(
        query="q", target_path=TARGET, controls=controls, hits=hits, degraded=degraded
    )


@given(hits=hit_lists, controls=control_sets)
def test_discrimination_rank_is_one_plus_controls_not_outranked(
    hits: list[str], controls: list[tuple[str, str]]
) -> None:
    """The rank lies in [1, 1 + controls] and counts exactly the controls not beaten."""
    score = _score(hits, controls)
    assert 1 <= score.discrimination_rank <= 1 + len(controls)
    assert 1 + len(score.offending) == score.discrimination_rank
    assert score.reciprocal_rank == 1 / score.discrimination_rank
    assert score.discriminated == (score.discrimination_rank == 1)


@given(hits=hit_lists, controls=control_sets)
def test_an_absent_target_loses_to_every_control(
    hits: list[str], controls: list[tuple[str, str]]
) -> None:
    """Without the target in the hits, every control counts, present or not."""
    score = _score([h for h in hits if h != TARGET], controls)
    assert (None, 1 + len(controls), 0.0) == (
        score.target_rank,
        score.discrimination_rank,
        score.corpus_reciprocal_rank,
    )


@given(hits=hit_lists, controls=control_sets)
def test_a_first_place_target_is_discriminated(
    hits: list[str], controls: list[tuple[str, str]]
) -> None:
    """The target at rank 1 outranks every control, present or absent."""
    score = _score([TARGET, *(h for h in hits if h != TARGET)], controls)
    assert (1, 1.0, 1.0) == (
        score.discrimination_rank,
        score.reciprocal_rank,
        score.corpus_reciprocal_rank,
    )


def test_ranks_are_one_based_positions() -> None:
    """Target third, one control second and one absent: rank 2, corpus RR 1/3."""
    score = _score(["x.html", "c0.html", TARGET], [("c0.html", "negation"), ("c1.html", "variant")])
    ranks = [(c.path, c.rank) for c in score.control_ranks]
    assert (3, [("c0.html", 2), ("c1.html", None)], 2) == (
        score.target_rank,
        ranks,
        score.discrimination_rank,
    )
    assert abs(score.corpus_reciprocal_rank - 1 / 3) < 1e-12


@given(target=st.none() | st.integers(1, 40), control=st.none() | st.integers(1, 40))
def test_outranks_is_strict_and_absence_aware(target: int | None, control: int | None) -> None:
    """Strictly better rank wins; an absent control is beaten; an absent target never wins."""
    expected = target is not None and (control is None or target < control)
    assert expected == outranks(target, control)


scores = st.builds(
    lambda hits, controls, degraded: _score(hits, controls, degraded),
    hit_lists,
    control_sets,
    st.booleans(),
)


@given(batch=st.lists(scores, max_size=12), floor=st.floats(0, 1))
def test_mrr_is_a_bounded_four_decimal_mean(batch: list[ProbeScore], floor: float) -> None:
    """mrr and corpusMrr lie in [0, 1] with at most 4 decimals."""
    summary = summarize(batch, mrr_floor=floor, lexical=False)
    for value in (summary.mrr, summary.corpus_mrr):
        assert 0.0 <= value <= 1.0
        assert round(value, 4) == value


@given(batch=st.lists(scores, max_size=12), floor=st.floats(0, 1))
def test_pass_rule_for_vector_modes(batch: list[ProbeScore], floor: float) -> None:
    """Pass iff probes ≥ 1, no inversion, mrr ≥ floor and no degraded probe."""
    summary = summarize(batch, mrr_floor=floor, lexical=False)
    expected = (
        len(batch) >= 1
        and all(s.discrimination_rank == 1 for s in batch)
        and summary.mrr >= floor
        and not any(s.degraded for s in batch)
    )
    assert expected == summary.passed
    assert len(summary.inversions) == sum(1 for s in batch if s.discrimination_rank > 1)


@given(batch=st.lists(scores, max_size=12))
def test_pass_rule_for_lexical_mode(batch: list[ProbeScore]) -> None:
    """Lexical passes iff every probe is degraded and at least one is discriminated."""
    summary = summarize(batch, mrr_floor=1.0, lexical=True)
    expected = (
        bool(batch) and all(s.degraded for s in batch) and any(s.discriminated for s in batch)
    )
    assert expected == summary.passed
    assert summary.lexically_discriminated == sum(
        1 for s in batch if s.degraded and s.discriminated
    )


def test_zero_probes_fail_in_every_mode() -> None:
    """No probe, no pass, whatever the floor."""
    assert (False, False, 0.0) == (
        summarize([], mrr_floor=0.0, lexical=False).passed,
        summarize([], mrr_floor=0.0, lexical=True).passed,
        mean_4dp([]),
    )


def test_one_inversion_fails_even_above_the_floor() -> None:
    """35 discriminated and one rank-2 probe: mrr 0.9861 ≥ 0.85, still a failure."""
    good = _score([TARGET, "c0.html"], [("c0.html", "variant")])
    bad = attrs.evolve(good, discrimination_rank=2, discriminated=False, reciprocal_rank=0.5)
    summary = summarize([good] * 35 + [bad], mrr_floor=0.85, lexical=False)
    assert (0.9861, 1, False) == (summary.mrr, len(summary.inversions), summary.passed)
