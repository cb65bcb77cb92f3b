"""Cold command-line costs (issue 7): apply of 500 ops, write latency, cold search.

Every number is a fresh ``memhtml`` process, as an agent calling the CLI pays it. Stores are
built with the real write path (``apply``), lexical-only (``MEMHTML_EMBED=off``) and with the
bundled local model. Run: ``.venv/bin/python -m bench.bench_cli``.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.machine import machine_line

MEMHTML = Path(sys.executable).with_name("memhtml")
TOPICS = ("billing", "search", "checkout", "ledger", "catalog", "release", "mobile", "ops")
QUERIES = (
    "which shard keeps setting 42",
    "billing pipeline review",
    "ledger value for shard 7",
    "catalog owners agreed",
    "release service setting",
)


def _run(args: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [str(MEMHTML), *args], env=env, input=stdin, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"memhtml {args[0]} failed: {done.stdout[:300]}")
    return elapsed


def _ops(count: int, offset: int = 0) -> str:
    lines = []
    for i in range(offset, offset + count):
        topic = TOPICS[i % len(TOPICS)]
        op = {
            "op": "write",
            "title": f"{topic} fact number {i}",
            "type": "semantic",
            "claim": f"The {topic} service keeps setting {i} at value {i * 7 % 1000}"
            f" for shard {i % 13}.",
            "body": [f"Observed during review {i // 10} of the {topic} pipeline."],
            "tag": topic,
        }
        lines.append(json.dumps(op))
    return "\n".join(lines) + "\n"


def main() -> None:
    """Print one markdown table per embedding mode."""
    print(f"`{machine_line()}`\n")
    print("| mode | apply 500, empty | apply 500, 500 files | write (median of 5) |", end="")
    print(" cold search, ~1,005 files (median of 5) |")
    print("|---|---:|---:|---:|---:|")
    root = Path(tempfile.mkdtemp())
    try:
        for mode in ("off", "local"):
            store = str(root / mode)
            env = dict(os.environ, MEMHTML_EMBED=mode)
            _run(["init", "--repo", store], env)
            empty = _run(["apply", "--repo", store, "--file", "-"], env, _ops(500))
            loaded = _run(["apply", "--repo", store, "--file", "-"], env, _ops(500, 500))
            writes = [
                _run(
                    ["write", "--repo", store, "--title", f"extra {i}", "--type", "semantic",
                     "--claim", f"Extra fact {i} about ledger shard {i}."],
                    env,
                )
                for i in range(5)
            ]  # fmt: skip
            searches = [_run(["search", "--repo", store, q], env) for q in QUERIES]
            print(
                f"| {'lexical' if mode == 'off' else 'local model'} | {empty:.2f} s |"
                f" {loaded:.2f} s | {statistics.median(writes):.2f} s |"
                f" {statistics.median(searches):.2f} s |"
            )
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
