"""``memhtml eval locomo`` end to end: an invented conversation through the real write, index
and search paths, a lexical smoke of the real first conversation (skipped without the file),
and the missing-file failure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from tests.integration.test_cli_commands_store import data, envelope, invoke

REAL_DATA: Final = Path("/work/shared/data/locomo/locomo10.json")
SCORE_KEYS: Final = {"recall5", "recall10", "hit5", "hit10", "mrr", "ndcg10"}


def turn(speaker: str, dia_id: str, text: str) -> dict[str, str]:
    """One invented dialog turn."""
    return {"speaker": speaker, "dia_id": dia_id, "text": text}


def write_invented_data(folder: Path) -> Path:
    """A LoCoMo-shaped file whose every question shares rare words with exactly one turn."""
    conversation = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Odile",
            "speaker_b": "Bram",
            "session_1_date_time": "4:10 pm on 3 February, 2023",
            "session_1": [
                turn("Odile", "D1:1", "The harpsichord needs new quills before the recital."),
                turn("Bram", "D1:2", "I can bring goose feathers from the farm."),
                turn("Odile", "D1:3", "Take care!"),
            ],
            "session_2_date_time": "8:30 am on 19 March, 2023",
            "session_2": [
                turn("Odile", "D2:1", "The recital moved to the chapel in Leiden."),
                turn("Bram", "D2:2", "Leiden is a short train ride for me."),
                turn("Odile", "D2:3", "Take care!"),
            ],
        },
        "qa": [
            {"question": "What does the harpsichord need?", "evidence": ["D1:1"], "category": 4},
            {"question": "Which chapel in Leiden?", "evidence": ["D2:1"], "category": 2},
            {"question": "Who brings goose feathers?", "evidence": ["D1:2"], "category": 5},
            {"question": "Anything else?", "evidence": [], "category": 3},
        ],
    }
    path = folder / "invented.json"
    path.write_text(json.dumps([conversation]), encoding="utf-8")
    return path


def test_invented_conversation_finds_each_answer_first(tmp_path: Path) -> None:
    """Full-text only: each question's turn ranks first, so every score is 1; repeated texts
    ("Take care!") do not dedup, and the excluded item is counted."""
    source = write_invented_data(tmp_path)
    result = data(
        invoke(["eval", "locomo", "--data", str(source), "--mode", "lexical", "--arms", "fts"])
    )
    assert {"conversations": 1, "sessions": 2, "turns": 6} == {
        key: result["dataset"][key] for key in ("conversations", "sessions", "turns")
    }
    assert (2, 1, 1) == (
        result["counts"]["queries"],
        result["counts"]["adversarialQueries"],
        result["counts"]["excludedNoGold"],
    )
    overall = result["metrics"]["overall"]
    assert dict.fromkeys(SCORE_KEYS, 1.0) == overall["turn"]
    assert dict.fromkeys(SCORE_KEYS, 1.0) == overall["session"]
    assert 1.0 == result["metrics"]["adversarial"]["turn"]["mrr"]
    assert ["fts"] == result["config"]["armsRun"]
    assert 6 == result["perConversation"][0]["files"]


def test_same_words_a_second_apart_get_a_file_each(tmp_path: Path) -> None:
    """Two turns of one session with the same words, a second apart, are two episodes (issue
    14: the event label shows the time of day), so the run ingests both."""
    source = write_invented_data(tmp_path)
    raw = json.loads(source.read_text(encoding="utf-8"))
    raw[0]["conversation"]["session_2"].append(turn("Bram", "D2:4", "Take care!"))
    source.write_text(json.dumps(raw), encoding="utf-8")
    result = data(invoke(["eval", "locomo", "--data", str(source), "--mode", "lexical"]))
    assert (7, 7) == (result["dataset"]["turns"], result["perConversation"][0]["files"])


def test_a_turn_that_would_dedup_fails_the_run(tmp_path: Path) -> None:
    """Two sessions stamped alike put the same words at the same second: the turns would
    share one file, so the run stops, naming the dedup."""
    source = write_invented_data(tmp_path)
    raw = json.loads(source.read_text(encoding="utf-8"))
    conversation = raw[0]["conversation"]
    conversation["session_2_date_time"] = conversation["session_1_date_time"]
    source.write_text(json.dumps(raw), encoding="utf-8")
    result = invoke(["eval", "locomo", "--data", str(source), "--mode", "lexical"])
    assert 2 == result.exit_code
    failure = envelope(result)
    assert "ERR_INVALID_FLAG" == failure["code"]
    assert "1 deduped" in failure["error"]


def test_session_store_scores_sessions_only(tmp_path: Path) -> None:
    """``--granularity session``: one file per session, no turn level, sessions found first."""
    source = write_invented_data(tmp_path)
    result = data(
        invoke(
            [
                "eval",
                "locomo",
                "--data",
                str(source),
                "--mode",
                "lexical",
                "--arms",
                "fts",
                "--granularity",
                "session",
            ]
        )
    )
    assert 2 == result["perConversation"][0]["files"]
    assert result["metrics"]["overall"]["turn"] is None
    assert 1.0 == result["metrics"]["overall"]["session"]["mrr"]


def test_out_writes_the_envelope_and_the_markdown(tmp_path: Path) -> None:
    """``--out`` saves the envelope stdout prints plus every question's ranking, and the
    markdown table beside it."""
    source = write_invented_data(tmp_path)
    out = tmp_path / "results"
    printed = invoke(
        ["eval", "locomo", "--data", str(source), "--mode", "lexical", "--out", str(out)]
    )
    assert 0 == printed.exit_code, printed.stdout
    saved = json.loads((out / "locomo-lexical-turn.json").read_text(encoding="utf-8"))
    questions = saved["data"].pop("questions")
    assert envelope(printed) == saved
    assert "eval.locomo" == saved["type"]
    assert saved["data"]["counts"]["queries"] <= len(questions)
    assert {"conversation", "qa", "category", "turn", "session", "rankedTurns"} <= set(questions[0])
    table = (out / "locomo-lexical-turn.md").read_text(encoding="utf-8")
    assert "| lexical | turn |" in table


def test_missing_data_file_is_err_path_not_found(tmp_path: Path) -> None:
    """No file at ``--data``: exit 1, ERR_PATH_NOT_FOUND, and where to get the file."""
    result = invoke(["eval", "locomo", "--data", str(tmp_path / "absent.json")])
    assert 1 == result.exit_code
    failure = envelope(result)
    assert "ERR_PATH_NOT_FOUND" == failure["code"]
    assert "snap-research/LoCoMo" in failure["error"]


def assert_scores_in_range(block: Any) -> None:
    """Every metric of a score block lies in [0, 1]."""
    assert SCORE_KEYS == set(block)
    assert all(0.0 <= block[key] <= 1.0 for key in SCORE_KEYS)


def test_lexical_smoke_of_the_first_real_conversation() -> None:
    """``--conversations 1 --mode lexical`` over the real file: the B.4 shape, sane ranges."""
    if not REAL_DATA.is_file():
        pytest.skip(f"{REAL_DATA} is absent (CC BY-NC data, not shipped)")
    argv = ["eval", "locomo", "--data", str(REAL_DATA), "--conversations", "1", "--mode", "lexical"]
    result = data(invoke(argv))
    assert [
        "dataset",
        "config",
        "counts",
        "metrics",
        "latencyMs",
        "timingsS",
        "perConversation",
    ] == list(result)
    assert (1, 19, 419) == (
        result["dataset"]["conversations"],
        result["dataset"]["sessions"],
        result["dataset"]["turns"],
    )
    assert ("lexical", "turn", 10, None) == (
        result["config"]["mode"],
        result["config"]["granularity"],
        result["config"]["limit"],
        result["config"]["embedModel"],
    )
    assert "vector" not in result["config"]["armsRun"]
    assert (150, 47, 2) == (
        result["counts"]["queries"],
        result["counts"]["adversarialQueries"],
        result["counts"]["excludedNoGold"],
    )
    for block in (
        result["metrics"]["overall"],
        *result["metrics"]["byCategory"].values(),
        result["metrics"]["adversarial"],
    ):
        assert_scores_in_range(block["turn"])
        assert_scores_in_range(block["session"])
    latency = result["latencyMs"]
    assert 197 == latency["calls"]
    assert 0 < latency["p50"] <= latency["p95"]
    assert result["timingsS"]["ingest"] > 0
    assert result["timingsS"]["index"] > 0


def test_two_runs_compare_question_by_question(tmp_path: Path) -> None:
    """Runs chosen by conversation id, written with --out, pair up in ``eval compare``."""
    source = write_invented_data(tmp_path)
    common = ["eval", "locomo", "--data", str(source), "--conversations", "conv-1"]
    for name, arms in (("fts", "fts"), ("recency", "recency")):
        ran = invoke([*common, "--mode", "lexical", "--arms", arms, "--out", str(tmp_path / name)])
        assert 0 == ran.exit_code, ran.stdout
    compared = invoke(
        [
            "eval",
            "compare",
            str(tmp_path / "fts" / "locomo-lexical-turn.json"),
            str(tmp_path / "recency" / "locomo-lexical-turn.json"),
        ]
    )
    assert 0 == compared.exit_code, compared.stdout
    report = data(compared)
    assert report["questions"] > 0
    assert {"base", "variant", "delta", "low", "high", "supported"} == set(
        report["overall"]["turn"]["recall10"]
    )


def test_an_unknown_conversation_id_is_invalid_input(tmp_path: Path) -> None:
    """--conversations with an id the file lacks: ERR_INVALID_FLAG, nothing run."""
    source = write_invented_data(tmp_path)
    result = invoke(["eval", "locomo", "--data", str(source), "--conversations", "conv-9"])
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])


def test_compare_refuses_a_file_nested_past_any_run_without_recursing(tmp_path: Path) -> None:
    """A hostile 'run' of 100,000 nested arrays is bad input (exit 2), not a crash."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    result = invoke(["eval", "compare", str(deep), str(deep)])
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])
    assert envelope(result)["error"].endswith("is not a readable eval locomo JSON file")
