"""Cold write and search with the local model, before and after issue 18's fast writes.

Two source trees run against two copies of one store of ``--size`` memories (built with
``apply``, then ``index embed``): ``base`` (a commit, extracted with ``git archive``) and
``head`` (this working tree). Every number is a fresh interpreter running the program with
``PYTHONPATH`` pointing at one tree; the trees alternate inside each round so both see the same
load. Bytecode caching stays on, as a user has it (one warm-up run per tree compiles).

Run: ``.venv/bin/python -m bench.bench_cli_fast_writes [--base 10aee5c] [--size 1000]``.
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

ROOT: Final = Path(__file__).resolve().parent.parent
PROGRAM: Final = "import sys; from memhtml.app.cli import main; sys.argv[0] = 'memhtml'; main()"


def _env(tree: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(tree)
    env["MEMHTML_EMBED"] = "local"
    return env


def _run(tree: Path, args: list[str], stdin: str | None = None) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, *args],
        # Not the project root: `python -c` puts the working directory first on sys.path, and
        # the root's memhtml/ would shadow the tree PYTHONPATH names.
        cwd=tempfile.gettempdir(),
        env=_env(tree),
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{tree.name}: memhtml {args[0]} failed: {done.stdout[:300]}")
    document: dict[str, object] = json.loads(done.stdout)
    return elapsed, document


def _store(tree: Path, root: Path, size: int) -> None:
    _run(tree, ["init", "--repo", str(root)])
    _run(tree, ["--repo", str(root), "apply"], stdin=_ops(size))
    _run(tree, ["--repo", str(root), "index", "embed"])


def main() -> int:
    """Build the stores, time the rounds, print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="10aee5c", help="the commit to compare against")
    parser.add_argument("--size", type=int, default=1000, help="memories in the store")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per tree and command")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memhtml-fastwrites-"))
    try:
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", options.base, "memhtml"],
            capture_output=True,
            check=True,
        )
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
        trees = {"base": base, "head": ROOT}
        stores = {name: work / f"store-{name}" for name in trees}
        _store(ROOT, stores["head"], options.size)
        shutil.copytree(stores["head"], stores["base"], symlinks=True)
        times: dict[tuple[str, str], list[float]] = {}
        for name, tree in trees.items():  # warm-up: bytecode, page cache
            _run(tree, ["--repo", str(stores[name]), "search", "warm up"])
        for round_ in range(options.rounds):
            for name, tree in trees.items():
                store = str(stores[name])
                title = f"fast write probe {round_} fact"
                claim = f"The probe service keeps setting {round_} at value {round_ * 3}."
                write = ["--repo", store, "write", "--title", title, "--type", "semantic"]
                took, _ = _run(tree, [*write, "--claim", claim])
                times.setdefault((name, "write"), []).append(took)
                query = QUERIES[round_ % len(QUERIES)]
                took, found = _run(tree, ["--repo", store, "search", query])
                times.setdefault((name, "search after a write"), []).append(took)
                data = found["data"]
                if not (isinstance(data, dict) and "vector" in data["arms"]):
                    raise SystemExit(f"{name}: the vector arm did not run: {data}")
                took, _ = _run(tree, ["--repo", store, "search", query])
                times.setdefault((name, "search again"), []).append(took)
        print(f"{machine_line()}\n")
        print(f"store: {options.size} memories, local model; median of {options.rounds} runs\n")
        print("| tree | write | search after a write | search again |")
        print("|---|---:|---:|---:|")
        for name in trees:
            cells = [
                f"{statistics.median(times[(name, what)]):.2f} s"
                for what in ("write", "search after a write", "search again")
            ]
            label = f"{name} ({options.base})" if name == "base" else name
            print(f"| {label} | {' | '.join(cells)} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
