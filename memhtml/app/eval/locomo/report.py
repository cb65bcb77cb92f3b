"""The ``eval.locomo`` data (docs/evaluation.md §B.4) and its markdown table, from finished runs.

Pure: the runs carry every per-query score and latency; this module only averages, rounds and
lays them out. Averages are per query (each question weighs the same), pooled over the
conversations that ran.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from memhtml.app.eval.locomo.dataset import CATEGORY_NAMES, EXPECTED_SHA256, Dataset
from memhtml.app.eval.locomo.metrics import RankingScores, mean_scores, nearest_rank
from memhtml.app.eval.locomo.queries import ADVERSARIAL_CATEGORY, SCORED_CATEGORIES
from memhtml.app.eval.locomo.runner import ConversationRun, QueryOutcome, RunConfig

METRIC_DIGITS: Final = 4
MS_DIGITS: Final = 2
SECONDS_DIGITS: Final = 3
_SCORE_KEYS: Final = (
    ("recall5", "recall5"),
    ("recall10", "recall10"),
    ("hit5", "hit5"),
    ("hit10", "hit10"),
    ("mrr", "mrr"),
    ("ndcg10", "ndcg10"),
)
_TABLE_COLUMNS: Final = (("R@5", "recall5"), ("R@10", "recall10"), ("Hit@5", "hit5"))
_TABLE_TAIL: Final = (("MRR", "mrr"), ("nDCG@10", "ndcg10"))


@attrs.frozen(kw_only=True)
class RunContext:
    """What the report echoes beside the runs: the data file and the run's settings.

    Attributes:
        dataset: The file that was read.
        config: The run's settings.
        embed_model: The vector space's watermark in hybrid mode, else None.
        cli_latency_ms: Wall times of ``--cli-latency`` subprocess searches, if any ran.
    """

    dataset: Dataset
    config: RunConfig
    embed_model: str | None
    cli_latency_ms: tuple[float, ...] = ()


def scores_data(scores: RankingScores | None) -> dict[str, object] | None:
    """A score block with camel-case keys, rounded; None stays None (no turn level)."""
    if scores is None:
        return None
    return {key: round(getattr(scores, name), METRIC_DIGITS) for key, name in _SCORE_KEYS}


def level_data(outcomes: Sequence[QueryOutcome]) -> dict[str, object]:
    """``{queries, turn, session}`` averaged over ``outcomes``."""
    turn = [outcome.turn for outcome in outcomes if outcome.turn is not None]
    return {
        "queries": len(outcomes),
        "turn": scores_data(mean_scores(turn)),
        "session": scores_data(mean_scores([outcome.session for outcome in outcomes])),
    }


def latency_data(values: Sequence[float]) -> dict[str, object]:
    """Nearest-rank p50 and p95 in milliseconds, and how many calls they cover."""
    p50, p95 = nearest_rank(values, 50), nearest_rank(values, 95)
    return {
        "calls": len(values),
        "p50": None if p50 is None else round(p50, MS_DIGITS),
        "p95": None if p95 is None else round(p95, MS_DIGITS),
    }


def report_data(context: RunContext, runs: Sequence[ConversationRun]) -> dict[str, object]:
    """The ``eval.locomo`` data object, keys in docs/evaluation.md §B.4 order."""
    outcomes = [outcome for run in runs for outcome in run.outcomes]
    scored = [o for o in outcomes if o.category in SCORED_CATEGORIES]
    adversarial = [o for o in outcomes if o.category == ADVERSARIAL_CATEGORY]
    config = context.config
    latency = latency_data([o.latency_ms for o in outcomes])
    if context.cli_latency_ms:
        latency["cli"] = latency_data(context.cli_latency_ms)
    return {
        "dataset": {
            "path": context.dataset.path,
            "sha256": context.dataset.sha256,
            "sha256Expected": context.dataset.sha256 == EXPECTED_SHA256,
            "conversations": len(runs),
            "sessions": sum(run.sessions for run in runs),
            "turns": sum(run.turns for run in runs),
        },
        "config": {
            "mode": config.mode,
            "granularity": config.granularity,
            "limit": config.limit,
            "embedModel": context.embed_model,
            "arms": None if config.options.arms is None else list(config.options.arms),
            "armsRun": _arms_run(runs),
            "gatePriors": config.options.gate_priors,
            "rrfK": config.options.rrf_k,
            "weights": dict(config.options.weights),
            "ftsStopwords": config.options.fts_stopwords,
            "evidenceFirst": config.options.evidence_first,
            "vectorFloor": config.options.vector_floor,
            "mmrLambda": config.options.mmr_lambda,
            "mmrRelevance": config.options.mmr_relevance,
            "mmrText": config.options.mmr_text,
            "priorBound": config.options.prior_bound,
            "ftsTokenizer": config.fts_tokenizer,
            "authority": config.options.authority,
            "prfDepth": config.options.prf_depth,
            "prfWeight": config.options.prf_weight,
            "prfPick": config.options.prf_pick,
            "prfSource": config.options.prf_source,
            "conversations": config.conversations
            if not isinstance(config.conversations, tuple)
            else list(config.conversations),
        },
        "counts": {
            "queries": len(scored),
            "adversarialQueries": len(adversarial),
            "excludedNoGold": sum(len(run.excluded_no_gold) for run in runs),
            "excluded": [
                {"conversation": run.sample_id, "qa": index}
                for run in runs
                for index in run.excluded_no_gold
            ],
            "evidenceFixes": [
                {
                    "conversation": run.sample_id,
                    "qa": item.qa_index,
                    "category": item.category,
                    "evidence": list(item.evidence),
                    "gold": list(item.gold),
                    "fixes": [
                        {"kind": fix.kind, "raw": fix.raw, "result": list(fix.result)}
                        for fix in item.fixes
                    ],
                }
                for run in runs
                for item in run.fixed
            ],
        },
        "metrics": {
            "overall": level_data(scored),
            "byCategory": {
                str(category): {"name": CATEGORY_NAMES[category]}
                | level_data([o for o in scored if o.category == category])
                for category in SCORED_CATEGORIES
            },
            "adversarial": {"category": ADVERSARIAL_CATEGORY} | level_data(adversarial),
        },
        "latencyMs": latency,
        "timingsS": {
            "ingest": round(sum(run.ingest_s for run in runs), SECONDS_DIGITS),
            "index": round(sum(run.index_s for run in runs), SECONDS_DIGITS),
        },
        "perConversation": [_conversation_data(run) for run in runs],
        "questions": [_question_data(o) for o in outcomes],
    }


def _question_data(outcome: QueryOutcome) -> dict[str, object]:
    """One question's ranking and scores, so two runs compare question by question."""
    return {
        "conversation": outcome.conversation,
        "qa": outcome.qa_index,
        "category": outcome.category,
        "turn": scores_data(outcome.turn),
        "session": scores_data(outcome.session),
        "rankedTurns": list(outcome.ranked_turns),
        "rankedSessions": list(outcome.ranked_sessions),
    }


def _arms_run(runs: Sequence[ConversationRun]) -> list[str]:
    return list(dict.fromkeys(arm for run in runs for arm in run.arms))


def _conversation_data(run: ConversationRun) -> dict[str, object]:
    scored = [o for o in run.outcomes if o.category in SCORED_CATEGORIES]
    return {
        "conversation": run.sample_id,
        "sessions": run.sessions,
        "turns": run.turns,
        "files": run.files,
        "ingestS": round(run.ingest_s, SECONDS_DIGITS),
        "indexS": round(run.index_s, SECONDS_DIGITS),
        "latencyMs": latency_data([o.latency_ms for o in run.outcomes]),
        **level_data(scored),
        "adversarial": level_data([o for o in run.outcomes if o.category == ADVERSARIAL_CATEGORY]),
    }


def markdown_report(data: Mapping[str, object]) -> str:
    """The run as markdown: the headline table (mode × level), then one row per category."""
    dataset = _mapping(data["dataset"])
    config = _mapping(data["config"])
    counts = _mapping(data["counts"])
    metrics = _mapping(data["metrics"])
    latency = _mapping(data["latencyMs"])
    timings = _mapping(data["timingsS"])
    mode = str(config["mode"])
    header = ["mode", "level", *(name for name, _ in _TABLE_COLUMNS + _TABLE_TAIL)]
    lines = [
        f"# LoCoMo retrieval: {mode}, {config['granularity']} store",
        "",
        f"Data `{dataset['path']}` (sha256 `{str(dataset['sha256'])[:12]}…`): "
        f"{dataset['conversations']} conversations, {dataset['sessions']} sessions, "
        f"{dataset['turns']} turns. {counts['queries']} scored queries (categories 1–4), "
        f"{counts['adversarialQueries']} adversarial (category 5), "
        f"{counts['excludedNoGold']} excluded without gold.",
        "",
        f"Config: limit {config['limit']}, arms {_listed(config['armsRun'])}, "
        f"embed model {config['embedModel']}, gate priors {config['gatePriors']}, "
        f"RRF k {config['rrfK']}, weights {config['weights'] or 'default'}, "
        f"FTS stopwords {config['ftsStopwords']}, tokenizer {config['ftsTokenizer']}.",
        "",
        "| " + " | ".join([*header, "p50/p95 ms"]) + " |",
        "|" + "---|" * (len(header) + 1),
    ]
    overall = _mapping(metrics["overall"])
    for level in ("turn", "session"):
        if overall[level] is not None:
            cells = _cells(overall[level])
            timing = f"{_ms(latency['p50'])} / {_ms(latency['p95'])}"
            lines.append(f"| {mode} | {level} | {cells} | {timing} |")
    lines += [
        "",
        f"Ingest {timings['ingest']} s, index {timings['index']} s "
        f"(summed over conversations); {latency['calls']} searches.",
        "",
        "| category | queries | level | "
        + " | ".join(name for name, _ in _TABLE_COLUMNS + _TABLE_TAIL)
        + " |",
        "|" + "---|" * (3 + len(_TABLE_COLUMNS) + len(_TABLE_TAIL)),
    ]
    blocks = [
        (f"{number} {_mapping(block)['name']}", _mapping(block))
        for number, block in _mapping(metrics["byCategory"]).items()
    ]
    blocks.append(("1–4 overall", overall))
    blocks.append((f"{ADVERSARIAL_CATEGORY} adversarial", _mapping(metrics["adversarial"])))
    for label, block in blocks:
        for level in ("turn", "session"):
            if block[level] is not None:
                lines.append(f"| {label} | {block['queries']} | {level} | {_cells(block[level])} |")
    return "\n".join(lines) + "\n"


def _cells(scores: object) -> str:
    values = _mapping(scores)
    return " | ".join(f"{float(str(values[key])):.3f}" for _, key in _TABLE_COLUMNS + _TABLE_TAIL)


def _ms(value: object) -> str:
    return "n/a" if value is None else f"{float(str(value)):.1f}"


def _listed(value: object) -> str:
    return ",".join(str(item) for item in value) if isinstance(value, list) else str(value)


def _mapping(value: object) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a mapping, got {type(value).__name__}")
    return value
