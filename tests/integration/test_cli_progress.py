"""Progress bars at the command line: per-phase bars on stderr at a terminal, nothing in a
pipe, and stdout holding exactly one envelope either way."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import Result

from memhtml.app.cli.progress import PHASE_LABELS
from memhtml.ports.progress import PHASE_APPLYING, PHASE_INDEXING, PHASE_PARSING
from tests.integration.test_cli_commands_store import (
    APPLY_BATCH,
    EXPORT_WRITE,
    LOCK_WRITE,
    Store,
    data,
    store,
)

__all__ = ["store"]  # the fixture, imported for the tests below

CONSOLE_SCRIPT: Final = Path(sys.executable).parent / "memhtml"
BAR_MARKS: Final = ("\r", "[", "#")
BATCH_OPS: Final = sum(1 for line in APPLY_BATCH.splitlines() if line.strip())


def one_envelope(stdout: str) -> Any:
    """The single JSON document stdout holds; fails on anything before or after it."""
    assert stdout.endswith("\n")
    return json.loads(stdout)


def assert_no_bar(result: Result) -> None:
    """Nothing bar-like reached stderr."""
    assert not any(mark in result.stderr for mark in BAR_MARKS), result.stderr


def run_at_a_terminal(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    """Run the console script with stderr on a pseudo-terminal and stdout on a pipe.

    Returns:
        The exit status, stdout, and what the terminal received (newlines as ``\\n``).
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env["MEMHTML_EMBED"] = "off"
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen(
            [str(CONSOLE_SCRIPT), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        stdout, _ = child.communicate(stdin, timeout=120)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO once the writer is gone and the terminal is drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    terminal = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    return child.returncode, stdout.decode("utf-8"), terminal


def _bar(phase: str, done: int, total: int) -> str:
    from memhtml.app.cli.progress import render_bar

    return f"\r{PHASE_LABELS[phase]} {render_bar(done, total)}"


@pytest.mark.parametrize(
    "command",
    [["index", "rebuild", "--no-embed"], ["index", "update"], ["index", "embed", "--dry-run"]],
    ids=["rebuild", "update", "embed"],
)
def test_index_commands_in_a_pipe_draw_no_bar(store: Store, command: list[str]) -> None:
    """stderr is not a terminal under the runner: no bar, and stdout is one envelope."""
    store.ok(*EXPORT_WRITE)
    result = store.run(*command)
    data(result)
    assert "index.report" == one_envelope(result.stdout)["type"]
    assert_no_bar(result)


def test_apply_in_a_pipe_draws_no_bar(store: Store) -> None:
    """A batch off a terminal reports through its envelope only."""
    result = store.run("apply", stdin=APPLY_BATCH)
    applied = data(result)
    assert (False, BATCH_OPS) == (
        applied["aborted"],
        applied["summary"]["total"],
    )
    assert "batch.applied" == one_envelope(result.stdout)["type"]
    assert_no_bar(result)


def test_rebuild_at_a_terminal_draws_its_indexing_bar(store: Store) -> None:
    """One bar for parsing and writing together, filled to the file count and ended with a
    newline; the envelope is still the only thing on stdout."""
    store.ok(*EXPORT_WRITE)
    store.ok(*LOCK_WRITE)
    status, stdout, terminal = run_at_a_terminal(
        ["--repo", str(store.root), "index", "rebuild", "--no-embed"]
    )
    assert 0 == status, terminal
    report = one_envelope(stdout)["data"]
    assert ("rebuild", 2) == (report["mode"], report["filesIndexed"])
    assert f"{_bar(PHASE_INDEXING, 2, 2)}\n" in terminal
    assert PHASE_LABELS[PHASE_PARSING] not in terminal


def test_apply_at_a_terminal_draws_the_ops_and_the_index_pass(store: Store) -> None:
    """apply shows its ops, then the index update parsing the files the commit changed."""
    status, stdout, terminal = run_at_a_terminal(
        ["--repo", str(store.root), "apply"], stdin=APPLY_BATCH.encode("utf-8")
    )
    assert 0 == status, terminal
    applied = one_envelope(stdout)["data"]
    assert BATCH_OPS == applied["summary"]["total"]
    assert f"{_bar(PHASE_APPLYING, BATCH_OPS, BATCH_OPS)}\n" in terminal
    assert PHASE_LABELS[PHASE_PARSING] in terminal


def test_apply_in_a_pipe_prints_one_line_per_phase_and_quiet_silences_it(store: Store) -> None:
    """Off a terminal apply's phases are lines of counts on stderr; --quiet prints none."""
    result = store.run("apply", stdin=APPLY_BATCH)
    data(result)
    label = PHASE_LABELS[PHASE_APPLYING]
    assert f"memhtml: {label}: {BATCH_OPS}/{BATCH_OPS} in " in result.stderr
    quiet = store.run("--quiet", "index", "rebuild", "--no-embed")
    data(quiet)
    assert "" == quiet.stderr


def test_the_rebuild_after_a_lost_index_is_reported_in_a_pipe(store: Store) -> None:
    """A search that finds index.db gone rebuilds it; stderr says so (the phases outlast the
    implicit threshold only on a big store, so the threshold is lowered here)."""
    store.ok(*EXPORT_WRITE)
    store.ok(*LOCK_WRITE)
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (store.root / ".memhtml" / name).unlink(missing_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memhtml.app.cli.progress.IMPLICIT_MIN_SECONDS", 0.0)
        result = store.run("search", "ledger lock")
    hits = data(result)["hits"]
    assert 1 <= len(hits)
    assert f"memhtml: {PHASE_LABELS[PHASE_INDEXING]}: 2/2 in " in result.stderr
