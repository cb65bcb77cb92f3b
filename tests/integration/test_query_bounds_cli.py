"""Bounded work per request, end to end (issue 14): hostile queries and batches stay inert.

A query past the limit and a batch nesting 100,000 levels are refused with a code and no
traceback; a query holding bytes that are not UTF-8 keeps the vector arm of the real model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

from memhtml.domain.query_bounds import MAX_QUERY_CHARS
from tests.integration.test_cli_commands_store import data, envelope, invoke

MEMHTML: Final = Path(sys.executable).with_name("memhtml")
LOCAL: Final = {"MEMHTML_EMBED": "local"}
FACT: Final = ("Ledger lock holds 40 minutes", "The nightly ledger lock is held for 40 minutes.")


def _store(root: Path, env: dict[str, str]) -> None:
    data(invoke(["init", "--repo", str(root)], env=env))
    title, claim = FACT
    write = ["write", "--title", title, "--type", "semantic", "--claim", claim]
    data(invoke(["--repo", str(root), *write], env=env))


def test_a_query_with_bytes_that_are_not_utf8_keeps_the_vector_arm(tmp_path: Path) -> None:
    """argv bytes that are not UTF-8 reach Python as lone surrogates; replaced before the real
    model sees them, the search is not degraded and nothing blames the model."""
    root = tmp_path / "store"
    _store(root, LOCAL)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env["MEMHTML_EMBED_HELPER"] = "off"  # the model in this process (the helper's own test
    # sends the same bytes through tests/integration/test_embed_helper.py)
    done = subprocess.run(
        [bytes(MEMHTML), b"--repo", bytes(root), b"search", b"how long is the lock \xff held"],
        env={**env, **LOCAL},
        capture_output=True,
        timeout=120,
        check=False,
    )
    hits = json.loads(done.stdout)["data"]
    assert (0, False) == (done.returncode, hits["degraded"]), done.stderr
    assert ("vector" in hits["arms"], b"embedding" in done.stderr) == (True, False)
    assert "vector" in hits["hits"][0]["ranks"]


def test_a_query_past_the_limit_is_refused_without_echoing_it(tmp_path: Path) -> None:
    """ERR_INVALID_FLAG (exit 2) naming the limit and the length, never the text."""
    root = tmp_path / "store"
    _store(root, {"MEMHTML_EMBED": "off"})
    query = "confidential " * 400
    result = invoke(["--repo", str(root), "search", query])
    failure = envelope(result)
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, failure["code"])
    assert f"is {len(query):,} characters; the limit is {MAX_QUERY_CHARS:,}" in failure["error"]
    assert "confidential" not in result.stdout + result.stderr


def test_a_batch_nesting_100k_levels_is_bad_input_not_a_crash(tmp_path: Path) -> None:
    """100,000 `[` on one line: ERR_INVALID_FLAG naming the line and the limit, no traceback,
    nothing written."""
    root = tmp_path / "store"
    _store(root, {"MEMHTML_EMBED": "off"})
    done = subprocess.run(
        [str(MEMHTML), "--repo", str(root), "apply"],
        input=("[" * 100_000 + "\n").encode(),
        env={**os.environ, "MEMHTML_EMBED": "off"},
        capture_output=True,
        timeout=120,
        check=False,
    )
    failure = json.loads(done.stdout)
    assert (2, "ERR_INVALID_FLAG") == (done.returncode, failure["code"])
    assert "line 1: JSON nests deeper than 32 levels" == failure["error"]
    assert b"Traceback" not in done.stderr
