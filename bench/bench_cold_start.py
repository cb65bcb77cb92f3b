"""Cold start-up of the command line, one source tree against another (issue 17 item 4, issue 18).

Measures, each a fresh interpreter running the program as the console script does, with the
two trees alternating inside every round so a noisy neighbour slows both alike:

- the interpreter alone (``python -c pass``), the floor every command pays;
- ``memhtml --help`` and bare ``memhtml`` with stdout at a terminal (a pseudo-terminal), and
  ``memhtml --help`` in a pipe;
- a cold ``write`` with the default local model (a write does not wait for it);
- a cold ``search``, lexical (``MEMHTML_EMBED=off``) and hybrid (the local model);

on one store of ``--size`` memories built with ``apply`` and ``index embed`` (copied per tree).
Reports the median wall time and the median CPU time (user + system of the process and its
children; steadier than wall on a shared machine), and the load average before and after.

``base`` is a commit extracted with ``git archive``; ``head`` is this working tree. Bytecode
caching stays on, as a user has it (a warm-up run per tree compiles).

Run: ``.venv/bin/python -m bench.bench_cold_start [--base f426fa7] [--size 1000] [--rounds 9]``;
``--only 'write, local model'`` (repeatable) times one measure alone.
"""

from __future__ import annotations

import argparse
import os
import pty
import resource
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from bench.bench_cli import QUERIES, _ops
from bench.machine import machine_line

ROOT: Final = Path(__file__).resolve().parent.parent
# What the console script runs; `-c` rather than the script so PYTHONPATH picks the tree.
PROGRAM: Final = "import sys; from memhtml.app.cli import main; sys.argv[0] = 'memhtml'; main()"
MEASURES: Final = (
    "interpreter alone",
    "--help, terminal",
    "bare, terminal",
    "--help, pipe",
    "write, local model",
    "search, lexical",
    "search, hybrid",
)

Sample = tuple[float, float]  # (wall s, CPU s)


def _env(tree: Path, embed: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(tree)
    env["MEMHTML_EMBED"] = embed
    return env


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(run: Callable[[], int], label: str) -> Sample:
    cpu = _children_cpu()
    start = time.perf_counter()
    status = run()
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{label} exited {status}")
    return wall, _children_cpu() - cpu


def _pipe(tree: Path, args: list[str], *, embed: str = "local", stdin: str | None = None) -> Sample:
    def run() -> int:
        done = subprocess.run(
            [sys.executable, "-c", PROGRAM, *args],
            # Not the project root: `python -c` puts the working directory first on sys.path.
            cwd=tempfile.gettempdir(),
            env=_env(tree, embed),
            input=stdin,
            capture_output=True,
            text=True,
            check=False,
        )
        return done.returncode

    return _timed(run, f"{tree.name}: memhtml {' '.join(args)[:60]}")


def _interpreter(tree: Path) -> Sample:
    """The floor: the same interpreter, environment and path, running nothing."""

    def run() -> int:
        done = subprocess.run(
            [sys.executable, "-c", "pass"],
            cwd=tempfile.gettempdir(),
            env=_env(tree, "local"),
            capture_output=True,
            check=False,
        )
        return done.returncode

    return _timed(run, f"{tree.name}: python -c pass")


def _terminal(tree: Path, args: list[str]) -> Sample:
    """Run with stdout (only) on a pseudo-terminal, reading it as it comes so nothing blocks."""

    def run() -> int:
        leader, follower = pty.openpty()
        process = subprocess.Popen(
            [sys.executable, "-c", PROGRAM, *args],
            cwd=tempfile.gettempdir(),
            env=_env(tree, "local"),
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=subprocess.DEVNULL,
        )
        os.close(follower)
        received = b""
        while True:
            ready, _, _ = select.select([leader], [], [], 5.0)
            if not ready:
                break
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the follower closed: the process is done
                break
            if not chunk:
                break
            received += chunk
        os.close(leader)
        status = process.wait()
        if b"# memhtml" not in received:
            raise SystemExit(f"{tree.name}: no Markdown help at a terminal: {received[:200]!r}")
        return status

    return _timed(run, f"{tree.name}: memhtml {' '.join(args)} at a terminal")


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])


def _measure(measure: str, tree: Path, write: list[str], search: list[str]) -> Sample:
    if measure == MEASURES[0]:
        return _interpreter(tree)
    if measure in MEASURES[1:3]:
        return _terminal(tree, ["--help"] if measure == MEASURES[1] else [])
    if measure == MEASURES[3]:
        return _pipe(tree, ["--help"])
    if measure == MEASURES[4]:
        return _pipe(tree, write)
    return _pipe(tree, search, embed="off" if measure == MEASURES[5] else "local")


def _round(
    trees: dict[str, Path], stores: dict[str, Path], index: int, measures: tuple[str, ...]
) -> dict[tuple[str, str], Sample]:
    samples: dict[tuple[str, str], Sample] = {}
    # ABBA: the tree that goes first alternates from round to round.
    order = list(trees.items()) if index % 2 == 0 else list(reversed(trees.items()))
    query = QUERIES[index % len(QUERIES)]
    for name, tree in order:
        store = str(stores[name])
        title = f"cold start probe {index} fact"
        claim = f"The start-up probe keeps setting {index} at value {index * 3}."
        write = ["--repo", store, "write", "--title", title, "--type", "semantic", "--claim", claim]
        search = ["--repo", store, "search", query]
        for measure in measures:
            samples[(name, measure)] = _measure(measure, tree, write, search)
    return samples


def main() -> int:
    """Build the stores, time the rounds, print a Markdown table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="f426fa7", help="the commit to compare against")
    parser.add_argument("--size", type=int, default=1000, help="memories in the store")
    parser.add_argument("--rounds", type=int, default=9, help="timed runs per tree and measure")
    parser.add_argument("--store", type=Path, help="an existing store to copy (else built)")
    parser.add_argument(
        "--only", action="append", choices=MEASURES, help="time this measure alone (repeatable)"
    )
    options = parser.parse_args()
    measures = tuple(options.only or MEASURES)
    work = Path(tempfile.mkdtemp(prefix="memhtml-coldstart-"))
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
        if options.store is not None:
            shutil.copytree(options.store, stores["head"], symlinks=True)
        else:
            _pipe(ROOT, ["init", "--repo", str(stores["head"])])
            _pipe(ROOT, ["--repo", str(stores["head"]), "apply"], stdin=_ops(options.size))
            _pipe(ROOT, ["--repo", str(stores["head"]), "index", "embed"])
        shutil.copytree(stores["head"], stores["base"], symlinks=True)
        for name, tree in trees.items():  # warm-up: bytecode, page cache, the model files
            _pipe(tree, ["--repo", str(stores[name]), "search", "warm up"])
            _terminal(tree, ["--help"])
        before = _loadavg()
        samples: dict[tuple[str, str], list[Sample]] = {}
        for index in range(options.rounds):
            for key, sample in _round(trees, stores, index, measures).items():
                samples.setdefault(key, []).append(sample)
        after = _loadavg()
        print(f"{machine_line()} · load average {before} before, {after} after\n")
        print(f"store: {options.size} memories; median of {options.rounds} alternated runs\n")
        print(f"| measure | base ({options.base}) wall | head wall | base CPU | head CPU |")
        print("|---|---:|---:|---:|---:|")
        for measure in measures:
            cells = []
            for column in (0, 1):
                for name in trees:
                    values = [sample[column] for sample in samples[(name, measure)]]
                    cells.append(f"{statistics.median(values) * 1000:.0f} ms")
            print(f"| {measure} | {' | '.join(cells)} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
