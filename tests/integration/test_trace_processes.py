"""The trace scan in real processes: a 50 MB transcript in bounded memory (peak RSS measured in
a child process), and two scans racing on one store."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any, Final

import attrs
import pytest

import memhtml
from memhtml.app.store import init_store_at
from memhtml.domain.trace_sessions import SessionQuery

ENV: Final = {"MEMHTML_EMBED": "off"}
REPO: Final = Path(__file__).resolve().parents[2]
BIG_BYTES: Final = 50 * 1024 * 1024
# Holding the file whole would cost at least its 50 MB; a streaming scan needs a read chunk,
# one line and the prompts it keeps. The bound sits well between the two.
RSS_GROWTH_BOUND_KIB: Final = 24 * 1024
BARRIER_TIMEOUT_S: Final = 60.0

# Runs in a fresh interpreter: open the store, note the peak RSS, scan, note it again.
_CHILD = """
import json, resource, sys
import memhtml
from tests.fakes.progress import FakeProgress

root, folder = sys.argv[1], sys.argv[2]
store = memhtml.open(root, environ={"MEMHTML_EMBED": "off"}, embedder=False)
store.trace_list()  # touch the database before the baseline
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
progress = FakeProgress()
report = store.trace_scan([folder], progress=progress)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
store.close()
print(json.dumps({
    "before_kib": before, "after_kib": after, "bytes_read": report.bytes_read,
    "prompts": report.prompts_written, "lines": report.records.lines,
    "progress": progress.summary(),
}))
"""


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    return {**env, **ENV, "PYTHONPATH": str(REPO)}


def write_big_transcript(path: Path, size: int) -> tuple[int, int]:
    """A Claude Code session of about ``size`` bytes: a prompt every 50 lines, long assistant
    turns between. Returns (lines, prompts)."""
    envelope = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/ada/code/big",
        "sessionId": "big-session",
        "version": "1.0.98",
        "gitBranch": "main",
    }
    filler = "The build log says the cache was cold again; " * 45
    lines = prompts = written = 0
    record: dict[str, object]
    with path.open("w", encoding="utf-8") as handle:
        while written < size:
            hour, minute, second = (lines // 3600) % 24, (lines // 60) % 60, lines % 60
            stamp = f"2025-08-30T{hour:02d}:{minute:02d}:{second:02d}.000Z"
            if lines % 50 == 0:
                record = {
                    **envelope,
                    "type": "user",
                    "uuid": f"p-{lines}",
                    "timestamp": stamp,
                    "message": {"role": "user", "content": f"Step {lines}: look at the log."},
                }
                prompts += 1
            else:
                record = {
                    **envelope,
                    "type": "assistant",
                    "uuid": f"a-{lines}",
                    "timestamp": stamp,
                    "message": {
                        "role": "assistant",
                        "model": "claude-sonnet-4-20250514",
                        "content": [{"type": "text", "text": filler}],
                    },
                }
            text = json.dumps(record) + "\n"
            handle.write(text)
            written += len(text)
            lines += 1
    return lines, prompts


def test_a_50_mb_transcript_scans_in_bounded_memory(tmp_path: Path) -> None:
    """Peak RSS grows by far less than the file; progress counts every byte; all lines read."""
    folder = tmp_path / "projects"
    folder.mkdir()
    big = folder / "big-session.jsonl"
    lines, prompts = write_big_transcript(big, BIG_BYTES)
    size = big.stat().st_size
    init_store_at(tmp_path / "store", environ=ENV)
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(tmp_path / "store"), str(folder)],
        capture_output=True,
        text=True,
        env=_child_env(),
        cwd=REPO,
        timeout=600,
        check=False,
    )
    assert 0 == done.returncode, done.stderr[-3000:]
    measured = json.loads(done.stdout)
    assert (size, lines, prompts, [["scanning", size, size]]) == (
        measured["bytes_read"],
        measured["lines"],
        measured["prompts"],
        measured["progress"],
    )
    assert measured["after_kib"] - measured["before_kib"] < RSS_GROWTH_BOUND_KIB, measured


def _racer(root: str, folder: str, barrier: Barrier, out: Any) -> None:
    """Open the store, wait for the other racer, scan."""
    store = memhtml.open(root, environ=ENV, embedder=False)
    try:
        barrier.wait(BARRIER_TIMEOUT_S)
        report = store.trace_scan([folder])
        out.put((0, report.rescanned + report.tailed + report.skipped, ""))
    except Exception as error:  # reported to the parent, which fails the test
        out.put((1, 0, f"{type(error).__name__}: {error}"))
    finally:
        store.close()


def _sessions(root: Path) -> tuple[object, ...]:
    with memhtml.open(root, environ=ENV, embedder=False) as store:
        traces = store.services.storage.traces
        rows = traces.sessions(SessionQuery(limit=500))
        return tuple(
            (attrs.evolve(row, indexed_at=""), traces.prompts(row.session_id)) for row in rows
        )


@pytest.fixture
def many_transcripts(tmp_path: Path) -> Path:
    """40 Claude Code sessions of 200 lines each, under one folder."""
    folder = tmp_path / "projects" / "-home-ada-code-shop"
    folder.mkdir(parents=True)
    for n in range(40):
        lines = []
        for i in range(200):
            kind = "user" if i % 4 == 0 else "assistant"
            message: dict[str, object] = (
                {"role": "user", "content": f"session {n} prompt {i}"}
                if kind == "user"
                else {
                    "role": "assistant",
                    "model": "m",
                    "content": [{"type": "text", "text": "ok"}],
                }
            )
            lines.append(
                json.dumps(
                    {
                        "type": kind,
                        "sessionId": f"s-{n:02d}",
                        "uuid": f"{n}-{i}",
                        "cwd": "/home/ada/code/shop",
                        "timestamp": f"2025-08-{1 + n % 28:02d}T10:00:{i % 60:02d}.000Z",
                        "message": message,
                    }
                )
            )
        (folder / f"s-{n:02d}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path / "projects"


def test_two_scans_racing_on_one_store_land_like_one(
    tmp_path: Path, many_transcripts: Path
) -> None:
    """Two processes scan the same 40 files into one store at once: both finish, the store
    holds what one scan stores, and a third scan finds nothing to do."""
    raced, alone = tmp_path / "raced", tmp_path / "alone"
    init_store_at(raced, environ=ENV)
    init_store_at(alone, environ=ENV)
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    out = context.Queue()
    racers = [
        context.Process(target=_racer, args=(str(raced), str(many_transcripts), barrier, out))
        for _ in range(2)
    ]
    for racer in racers:
        racer.start()
    results = [out.get(timeout=300) for _ in racers]
    for racer in racers:
        racer.join(timeout=60)
    assert [(0, 40, ""), (0, 40, "")] == results
    with memhtml.open(alone, environ=ENV, embedder=False) as store:
        store.trace_scan([str(many_transcripts)])
    with memhtml.open(raced, environ=ENV, embedder=False) as store:
        third = store.trace_scan([str(many_transcripts)])
    assert _sessions(alone) == _sessions(raced)
    assert (40, 0, 0) == (third.skipped, third.rescanned, third.tailed)
    assert 40 == len(_sessions(raced))
