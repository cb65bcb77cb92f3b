"""Scoring one query's hits and laying out the ``eval.locomo`` data and markdown
(docs/evaluation.md §B.4), over invented runs."""

from __future__ import annotations

from typing import Any

from memhtml.app.eval.locomo.conversion import StoredItem
from memhtml.app.eval.locomo.dataset import EXPECTED_SHA256, Dataset
from memhtml.app.eval.locomo.evidence import EvidenceFix
from memhtml.app.eval.locomo.metrics import score_ranking
from memhtml.app.eval.locomo.queries import FixedItem, Query
from memhtml.app.eval.locomo.report import RunContext, markdown_report, report_data
from memhtml.app.eval.locomo.runner import ConversationRun, QueryOutcome, RunConfig, score_query

TURN_ITEMS = {
    "a/s01/t001.html": StoredItem(path="a/s01/t001.html", session=1, dia_id="D1:1"),
    "a/s01/t002.html": StoredItem(path="a/s01/t002.html", session=1, dia_id="D1:2"),
    "a/s02/t001.html": StoredItem(path="a/s02/t001.html", session=2, dia_id="D2:1"),
}


def query(gold_turns: tuple[str, ...], category: int = 4) -> Query:
    """A query whose gold sessions follow from its gold turns."""
    sessions = tuple(dict.fromkeys(int(t[1:].split(":")[0]) for t in gold_turns))
    return Query(
        qa_index=0,
        category=category,
        question="q",
        gold_turns=gold_turns,
        gold_sessions=sessions,
    )


def test_turn_hits_map_to_dia_ids_and_sessions_by_best_turn() -> None:
    """Hits become turn ids; sessions rank where their first turn ranks; unknown paths drop."""
    outcome = score_query(
        query(("D2:1",)),
        ["a/s01/t002.html", "README.html", "a/s02/t001.html", "a/s01/t001.html"],
        TURN_ITEMS,
        12.5,
    )
    assert score_ranking(["D1:2", "D2:1", "D1:1"], ["D2:1"]) == outcome.turn
    assert score_ranking([1, 2], [2]) == outcome.session
    assert 0.5 == outcome.session.mrr
    assert 12.5 == outcome.latency_ms


def test_session_store_scores_sessions_only() -> None:
    """A session store has no turn level; its hits are sessions directly."""
    items = {
        "s01.html": StoredItem(path="s01.html", session=1),
        "s02.html": StoredItem(path="s02.html", session=2),
    }
    outcome = score_query(query(("D1:4", "D2:2")), ["s02.html", "s01.html"], items, 1.0)
    assert outcome.turn is None
    assert 1.0 == outcome.session.recall5


def outcome(category: int, *, hit: bool, latency_ms: float) -> QueryOutcome:
    """A query that found its one gold turn first, or missed it."""
    ranked = ["D1:1"] if hit else ["D1:2"]
    return QueryOutcome(
        qa_index=0,
        category=category,
        turn=score_ranking(ranked, ["D1:1"]),
        session=score_ranking([1], [1]),
        latency_ms=latency_ms,
    )


def invented_run() -> ConversationRun:
    """Four scored queries (two hits, two misses), one adversarial miss, one fixed item."""
    fix = EvidenceFix(kind="rewritten", raw="D1:01", result=("D1:1",))
    return ConversationRun(
        sample_id="conv-x",
        sessions=2,
        turns=3,
        files=3,
        ingest_s=1.25,
        index_s=0.5,
        outcomes=(
            outcome(1, hit=True, latency_ms=10),
            outcome(2, hit=False, latency_ms=20),
            outcome(4, hit=True, latency_ms=30),
            outcome(4, hit=False, latency_ms=40),
            outcome(5, hit=False, latency_ms=50),
        ),
        excluded_no_gold=(7,),
        fixed=(
            FixedItem(qa_index=3, category=2, evidence=("D1:01",), gold=("D1:1",), fixes=(fix,)),
        ),
        arms=("fts", "recency"),
        root="/tmp/x",
    )


def invented_data() -> dict[str, Any]:
    """The report of the invented run in lexical mode."""
    context = RunContext(
        dataset=Dataset(path="/data/locomo10.json", sha256=EXPECTED_SHA256, conversations=()),
        config=RunConfig(mode="lexical"),
        embed_model=None,
        cli_latency_ms=(500.0, 700.0),
    )
    return report_data(context, [invented_run()])


def test_report_keys_follow_eval_md() -> None:
    """Top-level and nested keys in the B.4 order, then the per-question rankings."""
    data = invented_data()
    assert [
        "dataset",
        "config",
        "counts",
        "metrics",
        "latencyMs",
        "timingsS",
        "perConversation",
        "questions",
    ] == list(data)
    assert ["path", "sha256", "sha256Expected", "conversations", "sessions", "turns"] == list(
        data["dataset"]
    )
    assert ["overall", "byCategory", "adversarial"] == list(data["metrics"])
    assert ["1", "2", "3", "4"] == list(data["metrics"]["byCategory"])
    assert {"recall5", "recall10", "hit5", "hit10", "mrr", "ndcg10"} == set(
        data["metrics"]["overall"]["turn"]
    )


def test_report_pools_categories_one_to_four_and_keeps_five_apart() -> None:
    """Overall averages the four scored queries; category 5 and empty categories stand alone."""
    data = invented_data()
    overall = data["metrics"]["overall"]
    assert 4 == overall["queries"]
    assert 0.5 == overall["turn"]["recall5"]
    assert 1.0 == overall["session"]["mrr"]
    by_category = data["metrics"]["byCategory"]
    assert {"name": "single-hop", "queries": 2} == {
        key: by_category["4"][key] for key in ("name", "queries")
    }
    assert 0 == by_category["3"]["queries"]
    assert by_category["3"]["turn"] is None
    adversarial = data["metrics"]["adversarial"]
    assert (5, 1, 0.0) == (
        adversarial["category"],
        adversarial["queries"],
        adversarial["turn"]["hit10"],
    )


def test_report_counts_latency_and_timings() -> None:
    """Counts, fixes, nearest-rank latency over every search, CLI latency, summed timings."""
    data = invented_data()
    counts = data["counts"]
    assert (4, 1, 1) == (
        counts["queries"],
        counts["adversarialQueries"],
        counts["excludedNoGold"],
    )
    assert [{"kind": "rewritten", "raw": "D1:01", "result": ["D1:1"]}] == counts["evidenceFixes"][
        0
    ]["fixes"]
    assert {
        "calls": 5,
        "p50": 30.0,
        "p95": 50.0,
        "cli": {"calls": 2, "p50": 500.0, "p95": 700.0},
    } == data["latencyMs"]
    assert {"ingest": 1.25, "index": 0.5} == data["timingsS"]
    assert ["fts", "recency"] == data["config"]["armsRun"]
    assert "conv-x" == data["perConversation"][0]["conversation"]


def test_markdown_has_the_headline_rows_and_one_row_per_category_and_level() -> None:
    """Rows mode × level with p50/p95, then categories 1–4, the pooled rows and category 5."""
    text = markdown_report(invented_data())
    assert "| lexical | turn | 0.500 | 0.500 | 0.500 | 0.500 | 0.500 | 30.0 / 50.0 |" in text
    assert "| lexical | session | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 30.0 / 50.0 |" in text
    assert "| 4 single-hop | 2 | turn | 0.500 |" in text
    assert "| 5 adversarial | 1 | session | 1.000 |" in text
    assert "| 3 open-domain |" not in text
