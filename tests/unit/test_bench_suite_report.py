"""The generated BENCHMARKS.md section: marker replacement and condensing eval envelopes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bench.suite_report import BEGIN, END, render_section, replace_section

prose = st.text(alphabet="abc #|\n-", max_size=40)


@given(head=prose, old=prose, tail=prose, new=prose)
def test_replacing_keeps_everything_outside_the_markers(
    head: str, old: str, tail: str, new: str
) -> None:
    """Text before and after the markers survives; only the section between them changes."""
    document = f"{head}{BEGIN}\n{old}\n{END}{tail}"
    replaced = replace_section(document, new)
    assert (head, tail, new.strip()) == (
        replaced.split(BEGIN)[0],
        replaced.split(END)[1],
        replaced.split(BEGIN)[1].split(END)[0].strip(),
    )


@given(document=prose.filter(lambda d: BEGIN not in d), new=prose)
def test_a_document_without_markers_gets_the_section_appended_once(document: str, new: str) -> None:
    """The first run appends; a second run replaces rather than appending again."""
    once = replace_section(document, new)
    twice = replace_section(once, new)
    assert (1, once) == (twice.count(BEGIN), twice)


def _suite(tmp_path: Path, name: str, envelope: Mapping[str, object]) -> str:
    (tmp_path / f"{name}.json").write_text(json.dumps(envelope), encoding="utf-8")
    suite = {
        "machine": {"cpu": "test cpu"},
        "quick": False,
        "entries": [
            {"name": name, "title": name, "command": "memhtml eval", "seconds": 1.0,
             "exitCode": 0, "output": f"{name}.json"}
        ],
    }  # fmt: skip
    return render_section(suite, tmp_path)


def test_a_sweep_is_tabulated_per_seed_with_inversions_by_family(tmp_path: Path) -> None:
    """Each seed is a row; an inversion's controls are counted under their family."""
    run = {
        "seed": 7, "corpusSize": 304, "probes": 36, "mrr": 0.9861, "corpusMrr": 0.5,
        "families": {"negation": 36, "numeric": 18, "variant": 36}, "degradedProbes": 0,
        "passed": False, "seconds": 3.1,
        "inversions": [{"controlRanks": [{"path": "p", "family": "variant", "rank": 1}]}],
    }  # fmt: skip
    data = {"runs": [run], "passedSeeds": [], "failedSeeds": [7]}
    text = _suite(
        tmp_path, "sweep", {"apiVersion": "1", "type": "eval.discrimination", "data": data}
    )
    row = "| 7 | 304 | 36 | 36 / 18 / 36 | 0.9861 | 0.5 | 1 (variant 1) | 0 | False | 3.1 |"
    assert (True, True, True) == (
        row in text.splitlines(),
        "Passed 0 of 1; failed seeds: 7." in text,
        "| cpu | test cpu |" in text.splitlines(),
    )


def test_a_failed_eval_shows_its_code_instead_of_numbers(tmp_path: Path) -> None:
    """A failure envelope renders as its code and message."""
    envelope = {"apiVersion": "1", "error": "probe inverted", "code": "ERR_DISCRIMINATION_FAILED"}
    text = _suite(tmp_path, "gate", envelope)
    assert "Failed with `ERR_DISCRIMINATION_FAILED`: probe inverted" in text


def test_locomo_rows_cover_every_scope_and_level(tmp_path: Path) -> None:
    """Overall, each category and category 5 get a turn row and a session row."""
    level = {
        "recall5": 0.5,
        "recall10": 0.75,
        "hit5": 1.0,
        "hit10": 1.0,
        "mrr": 0.25,
        "ndcg10": 0.4,
    }
    scope = {"turn": level, "session": level}
    data = {
        "metrics": {"overall": scope, "byCategory": {"1": scope}, "adversarial": scope},
        "config": {"mode": "lexical", "granularity": "turn"}, "counts": {"queries": 3},
        "latencyMs": {"p50": 1.0, "p95": 2.0}, "timingsS": {"ingest": 1, "index": 1},
    }  # fmt: skip
    text = _suite(tmp_path, "locomo", {"apiVersion": "1", "type": "eval.locomo", "data": data})
    rows = [line for line in text.splitlines() if line.startswith(("| overall", "| category"))]
    assert (6, "| overall (1–4) | turn | 0.500 | 0.750 | 1.000 | 1.000 | 0.250 | 0.400 |") == (
        len(rows),
        rows[0],
    )
