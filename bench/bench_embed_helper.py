"""Cold command-line searches and writes with the local model, with and without the warm
embedding helper (issue 18: a cold hybrid ``search`` ≤ 0.5 s, ≤ 0.25 s with a warm helper).

One store of ``--size`` memories (``apply``, then ``index embed``). Every number is a fresh
interpreter running the program, as a person's shell does; the modes alternate inside each
round so they see the same load, and bytecode caching stays on, as a user has it. The helper
lives in a private runtime folder and is stopped at the end.

Run: ``.venv/bin/python -m bench.bench_embed_helper [--size 1000] [--rounds 7]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from bench.bench_cli import QUERIES, _ops
from bench.machine import machine_line

PROGRAM: Final = "import sys; from memhtml.app.cli import main; sys.argv[0] = 'memhtml'; main()"
MODES: Final = {
    "hybrid, no helper": {"MEMHTML_EMBED": "local", "MEMHTML_EMBED_HELPER": "off"},
    "hybrid, warm helper": {"MEMHTML_EMBED": "local", "MEMHTML_EMBED_HELPER": "on"},
    "lexical, no helper": {"MEMHTML_EMBED": "off", "MEMHTML_EMBED_HELPER": "off"},
    "lexical, warm helper": {"MEMHTML_EMBED": "off", "MEMHTML_EMBED_HELPER": "on"},
}


def _run(
    args: list[str], extra: dict[str, str], runtime: Path, stdin: str | None = None
) -> tuple[float, dict[str, object]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra)
    env["XDG_RUNTIME_DIR"] = str(runtime)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *args],
        cwd=tempfile.gettempdir(),
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"memhtml {args[2:4]} failed: {done.stdout[:300]} {done.stderr[-300:]}")
    document: dict[str, object] = json.loads(done.stdout)
    return elapsed, document


def _arms(found: dict[str, object]) -> object:
    data = found["data"]
    return data.get("arms") if isinstance(data, dict) else None


def main() -> int:
    """Build the store, time the rounds, print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=1000, help="memories in the store")
    parser.add_argument("--rounds", type=int, default=7, help="timed runs per mode and command")
    parser.add_argument(
        "--starts", type=int, default=5, help="searches that start the helper, after a stop"
    )
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memhtml-helper-"))
    runtime = work / "run"
    runtime.mkdir(mode=0o700)
    on = MODES["hybrid, warm helper"]
    try:
        store = work / "store"
        _run(["init", "--repo", str(store)], MODES["hybrid, no helper"], runtime)
        _run(
            ["--repo", str(store), "apply"], MODES["hybrid, no helper"], runtime, _ops(options.size)
        )
        _run(["--repo", str(store), "index", "embed"], MODES["hybrid, no helper"], runtime)
        for mode in MODES.values():  # warm-up: bytecode, page cache
            _run(["--repo", str(store), "search", "warm up"], mode, runtime)
        starting, cold = [], []
        for _ in range(options.starts):
            _run(["helper", "stop"], on, runtime)
            time.sleep(1.0)  # the stopped helper's exit
            took, found = _run(["--repo", str(store), "search", "start it"], on, runtime)
            starting.append(took)
            took, _ = _run(
                ["--repo", str(store), "search", "start it"], MODES["hybrid, no helper"], runtime
            )
            cold.append(took)
        print(f"{machine_line()}\n")
        print(f"store: {options.size} memories; median of {options.rounds} fresh processes\n")
        print(
            f"a search that starts the helper: {statistics.median(starting):.2f} s, against "
            f"{statistics.median(cold):.2f} s without a helper (medians of {options.starts}; "
            f"arms {_arms(found)})\n"
        )
        times: dict[tuple[str, str], list[float]] = {}
        for round_ in range(options.rounds):
            query = QUERIES[round_ % len(QUERIES)]
            for name, mode in MODES.items():
                took, found = _run(["--repo", str(store), "search", query], mode, runtime)
                arms = _arms(found)
                wants_vector = mode["MEMHTML_EMBED"] != "off"
                if isinstance(arms, list) and ("vector" in arms) != wants_vector:
                    raise SystemExit(f"{name}: arms {arms}")
                times.setdefault((name, "search"), []).append(took)
            for name in MODES:
                mode = MODES[name]
                title = f"helper probe {name} {round_}"
                claim = f"The probe service keeps setting {round_} at value {round_ * 3}."
                write = ["--repo", str(store), "write", "--title", title, "--type", "semantic"]
                took, _ = _run([*write, "--claim", claim], mode, runtime)
                times.setdefault((name, "write"), []).append(took)
                took, _ = _run(["--repo", str(store), "search", query], mode, runtime)
                times.setdefault((name, "search after a write"), []).append(took)
        print("| mode | search | write | search after a write |")
        print("|---|---:|---:|---:|")
        for name in MODES:
            cells = []
            for what in ("search", "write", "search after a write"):
                got = times.get((name, what))
                cells.append(f"{statistics.median(got):.3f} s" if got else "—")
            print(f"| {name} | {' | '.join(cells)} |")
    finally:
        for mode in (on, MODES["lexical, warm helper"]):
            _run(["helper", "stop"], mode, runtime)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
