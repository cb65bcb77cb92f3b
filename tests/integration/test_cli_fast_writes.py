"""Fast writes with the real local model (issue 18): the committing commands never load the
model, their chunks wait for a vector, and the next search embeds them before it ranks, saying
what is still pending.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from memhtml.adapters.local import OnnxMiniLmEmbedder
from memhtml.ports.errors import ModelUnavailable
from tests.integration.test_cli_commands_store import EXPORT_WRITE, LOCK_WRITE, data, invoke

LOCAL: Final = {"MEMHTML_EMBED": "local"}
# Runs one invocation in a fresh interpreter and reports whether the model runtime was loaded.
PROBE: Final = (
    "import sys\n"
    "from memhtml.app.cli import cli, run\n"
    "status = run(cli, sys.argv[1:])\n"
    "print('onnxruntime' in sys.modules, file=sys.stderr)\n"
    "sys.exit(status)\n"
)


def test_write_commits_without_loading_the_model_and_search_embeds_what_it_left(
    tmp_path: Path,
) -> None:
    """write loads no onnxruntime; status shows its chunk pending; search embeds it first."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)], env=LOCAL))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "--repo", str(root), *EXPORT_WRITE],
        capture_output=True,
        env={**env, **LOCAL},
        check=False,
    )
    assert 0 == done.returncode, done.stderr.decode()
    assert done.stderr.decode().strip().endswith("False")
    assert json.loads(done.stdout)["data"]["created"] is True
    data(invoke(["--repo", str(root), *LOCK_WRITE], env=LOCAL))

    status = data(invoke(["--repo", str(root), "index", "status"], env=LOCAL))
    assert (2, 0) == (status["chunks"], status["embeddings"])

    hits = data(invoke(["--repo", str(root), "search", "invoice export start"], env=LOCAL))
    assert (0, False, None) == (hits["pendingVectors"], hits["degraded"], hits["degradedReason"])
    assert "vector" in hits["arms"]
    after = data(invoke(["--repo", str(root), "index", "status"], env=LOCAL))
    assert (2, 2) == (after["chunks"], after["embeddings"])


def test_index_update_embeds_the_chunks_lexical_writes_left(tmp_path: Path) -> None:
    """index update counts the backlog it embedded in embeddingsWritten."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)], env=LOCAL))
    data(invoke(["--repo", str(root), *EXPORT_WRITE], env=LOCAL))
    report = data(invoke(["--repo", str(root), "index", "update"], env=LOCAL))
    assert 1 == report["embeddingsWritten"]
    status = data(invoke(["--repo", str(root), "index", "status"], env=LOCAL))
    assert 1.0 == status["vectorCoverage"]


def test_index_update_reports_a_model_that_stops_instead_of_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The update landed; a model that cannot embed the backlog is a logged gap, exit 0."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)], env=LOCAL))
    data(invoke(["--repo", str(root), *EXPORT_WRITE], env=LOCAL))

    def stopped(self: object, texts: object) -> object:
        raise ModelUnavailable("the model stopped answering")

    monkeypatch.setattr(OnnxMiniLmEmbedder, "embed", stopped)
    result = invoke(["--repo", str(root), "index", "update"], env=LOCAL)
    assert 0 == data(result)["embeddingsWritten"]
    assert "the model stopped answering" in result.stderr
