"""Warm in-process search, one source tree against another (issue 17 item 3, issue 16).

Three measures, each in a fresh interpreter per sample, the two trees alternating inside every
round (the first one alternating from round to round) so a noisy neighbour slows both alike:

- ``1k facade, hybrid``: ``memhtml.open(...).search`` on a store of 1,000 memories built with
  ``apply`` and ``index rebuild --embed`` (bench_mcp's store and queries), the bundled MiniLM
  embedding every query: freshness pass, query embedding, the arms, shaping. What an MCP
  search costs before the protocol.
- ``10k pipeline, lexical`` and ``10k pipeline, all arms``: the retrieval pipeline over
  bench_search's generated 10,000-memory index (precomputed query vectors), with the system
  clock, as a long-lived process has it (bench_search itself uses a fixed clock).

Each sample is one process: warm-up searches, then ``--searches`` timed ones; it reports the
p50 wall time, the p50 CPU time of the searching thread (steadier than wall on a shared
machine; the facade embeds the query on its prefetch thread, outside it) and the p50 CPU time
of the whole process (every thread: the embedding, and any worker a library keeps spinning).
The table gives the median over rounds of each. Stores are built once by the head
tree and copied per process, so each tree migrates its own copy.

Run: ``.venv/bin/python -m bench.bench_warm_ab --base-tree DIR [--rounds 3] [--searches 60]``
(``DIR`` a checkout of the base commit, e.g. ``git worktree add --detach DIR <commit>``);
``--only '1k facade, hybrid'`` (repeatable) times one measure alone.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

from bench.machine import machine_line

ROOT: Final = Path(__file__).resolve().parent.parent
MEASURES: Final = ("1k facade, hybrid", "10k pipeline, lexical", "10k pipeline, all arms")

# Runs inside the tree under test (PYTHONPATH): only modules every tree has.
WORKER: Final = r"""
import os, random, shutil, statistics, sys, tempfile, time
from pathlib import Path
measure, store, searches = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
work = Path(tempfile.mkdtemp(prefix="warm-ab-"))
def timed(action, texts):
    for text in texts[:10]:
        action(text)
    wall, cpu, every = [], [], []
    for i in range(searches):
        text = texts[i % len(texts)]
        w, c, p = time.perf_counter(), time.thread_time(), time.process_time()
        action(text)
        every.append(time.process_time() - p)
        cpu.append(time.thread_time() - c)
        wall.append(time.perf_counter() - w)
    print(*(statistics.median(v) * 1000 for v in (wall, cpu, every)))
if measure.startswith("1k"):
    import memhtml
    from bench.bench_mcp import QUERIES
    root = work / "store"
    shutil.copytree(store, root, symlinks=True)
    with memhtml.open(root, environ=dict(os.environ, MEMHTML_EMBED="local")) as opened:
        timed(opened.search, list(QUERIES))
else:
    from bench.bench_search import (EMBEDDER, MODEL, PrecomputedEmbedder, queries,
        sqlite_retrieval, vocabulary)
    from memhtml.adapters.sqlite.connection import Database
    from memhtml.adapters.system.clock import SystemClock
    from memhtml.ports.retrieval import SearchRequest
    for name in ("index.db", "state.db"):
        shutil.copy(store / name, work / name)
    db = Database.open(work / "index.db", state_path=work / "state.db")
    texts = queries(vocabulary(random.Random(1)), 20)
    if measure.endswith("lexical"):
        retrieval = sqlite_retrieval(db, clock=SystemClock(), embed_model=MODEL)
    else:
        embedder = PrecomputedEmbedder({t: EMBEDDER.embed_query(t) for t in texts})
        retrieval = sqlite_retrieval(db, clock=SystemClock(), embedder=embedder)
    timed(lambda text: retrieval.search(SearchRequest(query=text)), texts)
    db.close()
shutil.rmtree(work)
"""


def _loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _sample(tree: Path, measure: str, store: Path, searches: int) -> tuple[float, float, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(tree)
    done = subprocess.run(
        [sys.executable, "-c", WORKER, measure, str(store), str(searches)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{measure} in {tree} failed:\n{done.stderr[-2000:]}")
    wall, cpu, every = done.stdout.split()[-3:]
    return float(wall), float(cpu), float(every)


def _stores(directory: Path) -> dict[str, Path]:
    """The 1k store (real write path, MiniLM vectors) and the 10k generated index."""
    from bench.bench_mcp import build_store
    from bench.bench_search import build, vocabulary

    small = directory / "1k"
    build_store(small, 1000)
    large = directory / "10k"
    large.mkdir()
    build(large, 10_000, vocabulary(random.Random(1))).close()
    return {MEASURES[0]: small, MEASURES[1]: large, MEASURES[2]: large}


def main() -> None:
    """Build the stores, alternate the trees for ``--rounds``, print the markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-tree", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--searches", type=int, default=60)
    parser.add_argument("--only", action="append", choices=MEASURES, help="repeatable")
    args = parser.parse_args()
    measures = tuple(args.only or MEASURES)
    trees = {"base": args.base_tree.resolve(), "head": ROOT}
    with tempfile.TemporaryDirectory() as directory:
        stores = _stores(Path(directory))
        print(f"load average before: {_loadavg()}", flush=True)
        samples: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        for round_ in range(args.rounds):
            order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
            for measure in measures:
                for name in order:
                    sample = _sample(trees[name], measure, stores[measure], args.searches)
                    samples.setdefault((measure, name), []).append(sample)
                    print(f"round {round_ + 1} {measure} {name}: {sample}", flush=True)
        print(f"load average after: {_loadavg()}\n\n`{machine_line()}`\n")
    print(
        "| warm search, p50 ms (median of rounds) | wall base | wall head "
        "| thread CPU base | thread CPU head | process CPU base | process CPU head |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for measure in measures:
        cells = [
            f"{statistics.median(s[column] for s in samples[(measure, name)]):.1f}"
            for column in (0, 1, 2)
            for name in trees
        ]
        print(f"| {measure} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
