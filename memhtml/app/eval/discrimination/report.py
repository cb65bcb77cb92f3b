"""Runs to the ``eval.discrimination`` data: docs/evaluation.md §A.1's keys, in its order,
camelCase.

Written out key by key rather than through the generic shaper: the report mixes values from the
fixture, the probes and the configuration, and A.1 is the one place that says what it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from memhtml.app.eval.discrimination.capabilities import CapabilityScore
from memhtml.app.eval.discrimination.scoring import ControlRank, ProbeScore

if TYPE_CHECKING:
    from memhtml.app.eval.discrimination.runner import GateConfig, GateRun

SECONDS_DECIMALS: Final = 3


def run_data(run: GateRun) -> dict[str, object]:
    """One run's ``eval.discrimination`` data."""
    config, summary = run.config, run.summary
    data: dict[str, object] = {
        "mode": config.mode,
        "seed": config.seed,
        "now": run.fixture.now_ms,
        "corpusSize": len(run.fixture.files),
        "families": run.fixture.family_counts(),
        "probes": summary.probes,
        "discriminated": summary.discriminated,
    }
    if config.mode == "lexical":
        data["lexicallyDiscriminated"] = summary.lexically_discriminated
    data |= {
        "inversions": [_inversion(score) for score in summary.inversions],
        "mrr": summary.mrr,
        "corpusMrr": summary.corpus_mrr,
        "mrrFloor": config.mrr_floor,
        "passed": summary.passed,
        "degradedProbes": summary.degraded_probes,
        "results": [_result(score) for score in run.scores],
        "capabilities": [_capability(c) for c in run.capabilities],
        "ranking": ranking_data(config),
        "seconds": round(run.seconds, SECONDS_DECIMALS),
    }
    return data


def ranking_data(config: GateConfig) -> dict[str, object]:
    """The ranking switches the run used (docs/decisions.md §12): a tuning run describes itself."""
    options = config.ranking
    return {
        "arms": None if options.arms is None else list(options.arms),
        "gatePriors": options.gate_priors,
        "rrfK": options.rrf_k,
        "weights": dict(options.weights),
        "ftsStopwords": options.fts_stopwords,
        "ftsTokenizer": config.fts_tokenizer,
        "authority": options.authority,
        "prfDepth": options.prf_depth,
        "prfWeight": options.prf_weight,
        "prfPick": options.prf_pick,
        "prfSource": options.prf_source,
    }


def sweep_data(runs: Sequence[GateRun]) -> dict[str, object]:
    """A ``--seeds`` sweep: every run, then the seeds that passed and failed."""
    return {
        "runs": [run_data(run) for run in runs],
        "passedSeeds": [run.config.seed for run in runs if run.summary.passed],
        "failedSeeds": [run.config.seed for run in runs if not run.summary.passed],
    }


def inversion_families(run: GateRun) -> dict[str, int]:
    """Controls that beat or tied their target, counted by family (only families that did)."""
    counts: dict[str, int] = {}
    for score in run.summary.inversions:
        for control in score.offending:
            counts[control.family] = counts.get(control.family, 0) + 1
    return counts


def first_inversion_message(run: GateRun) -> str:
    """Why a run failed, naming the first inversion (query, target rank, offending control)."""
    summary = run.summary
    head = (
        f"discrimination gate failed ({run.config.mode}, seed {run.config.seed}): "
        f"mrr {summary.mrr} (floor {run.config.mrr_floor}), {len(summary.inversions)} "
        f"inversions, {summary.degraded_probes} degraded of {summary.probes} probes"
    )
    failed = [c.family.value for c in run.capabilities if not c.passed]
    if failed:
        head = f"{head}; capability probes failed: {', '.join(failed)}"
    if not summary.inversions:
        return head
    first = summary.inversions[0]
    control = first.offending[0]
    return (
        f"{head}; first inversion: query {first.query!r}, target rank "
        f"{_rank_text(first.target_rank)}, beaten by {control.family} control {control.path} "
        f"at rank {_rank_text(control.rank)}"
    )


def _rank_text(rank: int | None) -> str:
    return "absent" if rank is None else str(rank)


def _control(control: ControlRank) -> dict[str, object]:
    return {"path": control.path, "family": control.family, "rank": control.rank}


def _inversion(score: ProbeScore) -> dict[str, object]:
    return {
        "query": score.query,
        "targetPath": score.target_path,
        "targetRank": score.target_rank,
        "discriminationRank": score.discrimination_rank,
        "offendingControls": [_control(c) for c in score.offending],
    }


def _capability(capability: CapabilityScore) -> dict[str, object]:
    score = capability.score
    return {
        "family": capability.family.value,
        "query": score.query,
        "targetPath": score.target_path,
        "targetRank": score.target_rank,
        "controlRanks": [_control(c) for c in score.control_ranks],
        "presentWithout": capability.present_without,
        "passed": capability.passed,
    }


def _result(score: ProbeScore) -> dict[str, object]:
    return {
        "query": score.query,
        "targetPath": score.target_path,
        "targetRank": score.target_rank,
        "discriminationRank": score.discrimination_rank,
        "controlRanks": [_control(c) for c in score.control_ranks],
        "discriminated": score.discriminated,
        "reciprocalRank": score.reciprocal_rank,
        "corpusReciprocalRank": score.corpus_reciprocal_rank,
        "degraded": score.degraded,
    }
