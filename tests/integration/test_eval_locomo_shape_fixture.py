"""The invented conversation CI smokes the LoCoMo harness with, when the real data is absent.

``tests/fixtures/locomo_shape.json`` is our own text in LoCoMo's JSON shape, carrying each kind
of malformed evidence docs/evaluation.md §B.3 lists (``;`` and space separated lists, ``D:n:m``, a
leading zero, a bare ``D``, an id absent from the conversation), an empty evidence list, a captioned
photo, a category-5 question and a turn text repeated across two days.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memhtml.app.cli.app import cli, run

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "locomo_shape.json"


def test_the_shape_fixture_runs_end_to_end_with_every_fix_recorded(
    capsys: Any,
) -> None:
    """Every malformed string is normalised and recorded; repeated words on two days still
    land as two files; the scored queries all find their gold within the top ten."""
    status = run(cli, ["eval", "locomo", "--data", str(FIXTURE), "--mode", "lexical", "--dense"])
    data = json.loads(capsys.readouterr().out)["data"]
    kinds = sorted(fix["kind"] for item in data["counts"]["evidenceFixes"] for fix in item["fixes"])
    assert (0, 8, 5, 1, 3) == (
        status,
        data["dataset"]["turns"],
        data["counts"]["queries"],
        data["counts"]["adversarialQueries"],
        data["counts"]["excludedNoGold"],
    )
    assert {"split", "rewritten", "unparseable"} <= set(kinds)
    assert 1.0 == data["metrics"]["overall"]["turn"]["hit10"]
