"""Command-line reads through the warm helper, one source tree against another (issue 17 item 2,
issue 18 item 3): what a person's shell pays per ``memhtml search`` on a large store.

One lexical store of ``--size`` generated memories (``apply``, one directory). Every sample is
a fresh interpreter running the program, as a shell does, with bytecode caching on. Per tree
there is one helper (``MEMHTML_EMBED=off`` gets one without a model), in a runtime folder of
its own; the commands run from a neutral folder, since ``python -m`` would otherwise import
whatever ``memhtml`` package the working folder holds. Within every query the trees take turns,
each with the helper and then in a process of its own (``MEMHTML_EMBED_HELPER=off``), so load
hits every row alike. Besides wall time the table gives the median ``indexUpdateMs`` the
envelopes report: the freshness check inside whichever process ran the command.

Run: ``.venv/bin/python -m bench.bench_helper_reads --base-tree DIR [--size 10000] [--rounds 5]``
(``DIR`` a checkout of the base commit, e.g. ``git worktree add --detach DIR <commit>``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from bench.machine import machine_line

ROOT: Final = Path(__file__).resolve().parent.parent
PROGRAM: Final = "import sys; from memhtml.app.cli import main; sys.argv[0] = 'memhtml'; main()"
EXTRA_WORDS: Final = ["travel", "deadline", "review", "meeting", "design", "budget"]
WORDS: Final = [f"w{i}" for i in range(3000)] + EXTRA_WORDS


def _ops(size: int) -> str:
    rng = random.Random(7)
    lines = []
    for number in range(size):
        title = " ".join(rng.choice(WORDS) for _ in range(6))
        body = " ".join(rng.choice(WORDS) for _ in range(60))
        op = {
            "op": "write",
            "title": f"Note {number} {title}",
            "type": "semantic",
            "article_html": f"<p><mark>{body}</mark></p>",
        }
        lines.append(json.dumps(op))
    return "\n".join(lines)


def _env(tree: Path, runtime: Path, helper: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=str(tree),
        MEMHTML_EMBED="off",
        MEMHTML_EMBED_HELPER=helper,
        XDG_RUNTIME_DIR=str(runtime),
    )
    return env


def _run(args: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall seconds of one command, and the ``indexUpdateMs`` its envelope reports."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *args], env=env, cwd=cwd, capture_output=True
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr.decode(errors="replace"))
    return wall, float(json.loads(done.stdout)["data"].get("indexUpdateMs", -1.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-tree", type=Path, required=True)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    trees = {"base": options.base_tree.resolve(), "head": ROOT}
    work = Path(tempfile.mkdtemp(prefix="helper-reads-"))
    neutral = work / "cwd"
    neutral.mkdir()
    store = work / "store"
    runtimes = {name: work / f"rt-{name}" for name in trees}
    try:
        build = _env(ROOT, runtimes["head"], "off")
        for args, stdin in ((["init"], None), (["apply", "-"], _ops(options.size))):
            subprocess.run(
                [sys.executable, "-c", PROGRAM, "--repo", str(store), *args],
                env=build,
                cwd=neutral,
                input=stdin,
                text=True,
                capture_output=True,
                check=True,
            )
        queries = [f"w{n} w{n * 7 % 3000}" for n in range(1, 9)] + ["travel deadline"]
        for name, tree in trees.items():  # start each helper, and let it hold the store
            runtimes[name].mkdir()
            for query in queries[:3]:
                _run(
                    ["--repo", str(store), "search", query],
                    _env(tree, runtimes[name], "on"),
                    neutral,
                )
                time.sleep(1.0)
        rows = [(name, helper) for name in trees for helper in ("on", "off")]
        walls: dict[tuple[str, str], list[float]] = {row: [] for row in rows}
        fresh: dict[tuple[str, str], list[float]] = {row: [] for row in rows}
        load_before = os.getloadavg()
        for _ in range(options.rounds):
            for query in queries:
                for name, helper in rows:
                    env = _env(trees[name], runtimes[name], helper)
                    wall, update = _run(["--repo", str(store), "search", query], env, neutral)
                    walls[(name, helper)].append(wall)
                    fresh[(name, helper)].append(update)
        load_after = os.getloadavg()
        print(machine_line())
        print(
            f"load average {load_before[0]:.2f} -> {load_after[0]:.2f}; {options.size:,} memories"
        )
        print("| tree | helper | search wall p50 ms | p90 ms | indexUpdateMs p50 | n |")
        print("|---|---|---:|---:|---:|---:|")
        for name, helper in rows:
            samples = sorted(walls[(name, helper)])
            print(
                f"| {name} | {helper} | {statistics.median(samples) * 1000:.1f} "
                f"| {samples[int(len(samples) * 0.9)] * 1000:.1f} "
                f"| {statistics.median(fresh[(name, helper)]):.1f} | {len(samples)} |"
            )
    finally:
        for runtime in runtimes.values():
            for lock in runtime.glob("memhtml/*.lock"):
                pid = lock.read_text().strip()
                cmdline = Path(f"/proc/{pid}/cmdline")
                if pid.isdigit() and cmdline.exists() and b"warm_serve" in cmdline.read_bytes():
                    os.kill(int(pid), 9)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
