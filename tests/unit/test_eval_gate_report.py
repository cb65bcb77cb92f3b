"""The eval.discrimination data and the failure message, from hand-made probe scores."""

from __future__ import annotations

from memhtml.app.eval.discrimination.generator import build_fixture
from memhtml.app.eval.discrimination.report import (
    first_inversion_message,
    inversion_families,
    run_data,
)
from memhtml.app.eval.discrimination.runner import GateConfig, GateRun
from memhtml.app.eval.discrimination.scoring import score_probe, summarize


def _run(mode: str, target_first: bool) -> GateRun:
    """A run over a small fixture: each target ranked first, or below all its controls."""
    fixture = build_fixture(3, 40, 4, None)
    scores = []
    for probe in fixture.probes:
        controls = [c.path for c in probe.controls]
        hits = [probe.target_path, *controls] if target_first else [*controls, probe.target_path]
        scores.append(
            score_probe(
                query=probe.query,
                target_path=probe.target_path,
                controls=[(c.path, c.family.value) for c in probe.controls],
                hits=hits,
                degraded=mode == "lexical",
            )
        )
    config = GateConfig(mode="lexical" if mode == "lexical" else "fake", seed=3, size=40, probes=4)
    summary = summarize(scores, mrr_floor=config.mrr_floor, lexical=mode == "lexical")
    return GateRun(
        config=config, fixture=fixture, scores=tuple(scores), summary=summary, seconds=1.23456
    )


def test_lexical_data_adds_lexically_discriminated_after_discriminated() -> None:
    """Lexical runs carry lexicallyDiscriminated right after discriminated; fake runs do not."""
    lexical, fake = run_data(_run("lexical", True)), run_data(_run("fake", True))
    keys = list(lexical)
    assert keys.index("lexicallyDiscriminated") == keys.index("discriminated") + 1
    assert "lexicallyDiscriminated" not in fake
    assert (4, 1.235) == (lexical["lexicallyDiscriminated"], lexical["seconds"])


def test_failure_message_names_the_first_inversion() -> None:
    """The message names the query, the target's rank and the first offending control."""
    run = _run("fake", False)
    first = run.summary.inversions[0]
    control = first.offending[0]
    message = first_inversion_message(run)
    assert f"query {first.query!r}" in message
    assert f"target rank {first.target_rank}" in message
    assert f"{control.family} control {control.path} at rank {control.rank}" in message


def test_inversion_families_count_every_offending_control() -> None:
    """Every control beat its target: the counts equal the planted controls per family."""
    run = _run("fake", False)
    planted = {k: v for k, v in run.fixture.family_counts().items() if v}
    assert (planted, {}) == (inversion_families(run), inversion_families(_run("fake", True)))
