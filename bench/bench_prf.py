"""What dense pseudo-relevance feedback costs a warm search (issue 13 item 6), interleaved.

Over ``bench_search``'s generated corpus (file-backed SQLite, 384-dim hashing vectors, query
vectors precomputed), each query is searched with feedback off and with it on
(``--prf-source``), the two alternating query by query and swapping which goes first every
round, so the machine's noise falls on both alike. Prints each side's median p50/p95 across
runs and the ratio of the p50s.

Run: ``.venv/bin/python -m bench.bench_prf [--size 10000] [--queries 20] [--repeats 3]
[--source words|fused]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.bench_search import (
    EMBEDDER,
    NOW,
    PrecomputedEmbedder,
    build,
    queries,
    sqlite_retrieval,
    vocabulary,
)
from bench.machine import machine_line, percentile_ms
from memhtml.adapters.system.clock import FixedClock
from memhtml.ports.retrieval import RankingOptions, SearchRequest


def main(argv: Sequence[str] | None = None) -> None:
    """Build one corpus and time both sides, interleaved; print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--weight", type=float, default=0.5)
    parser.add_argument("--source", choices=("words", "fused"), default="words")
    args = parser.parse_args(argv)
    words = vocabulary(random.Random(1))
    texts = queries(words, args.queries)
    precomputed = PrecomputedEmbedder({t: EMBEDDER.embed_query(t) for t in texts})
    sides = {
        "feedback off": RankingOptions(prf_depth=0),
        f"feedback from {args.source}, depth {args.depth}, weight {args.weight}": RankingOptions(
            prf_depth=args.depth, prf_weight=args.weight, prf_source=args.source
        ),
    }
    with tempfile.TemporaryDirectory() as directory:
        db = build(Path(directory), args.size, words)
        retrieval = sqlite_retrieval(db, clock=FixedClock(NOW), embedder=precomputed)
        for text in texts[:3]:
            for options in sides.values():
                retrieval.search(SearchRequest(query=text, options=options))
        samples: dict[str, list[list[float]]] = {name: [] for name in sides}
        for repeat in range(args.repeats):
            runs: dict[str, list[float]] = {name: [] for name in sides}
            order = list(sides) if repeat % 2 == 0 else list(reversed(sides))
            for text in texts:
                for name in order:
                    started = time.perf_counter()
                    retrieval.search(SearchRequest(query=text, options=sides[name]))
                    runs[name].append(time.perf_counter() - started)
            for name in sides:
                samples[name].append(runs[name])
        db.close()
    print(
        f"`{machine_line()}` · {args.size:,} memories · {args.queries} queries × "
        f"{args.repeats} runs, interleaved"
    )
    print("| side | p50 ms | p95 ms |\n|---|---:|---:|")
    p50s = {}
    for name, runs_of in samples.items():
        p50s[name] = statistics.median(percentile_ms(run, 50) for run in runs_of)
        p95 = statistics.median(percentile_ms(run, 95) for run in runs_of)
        print(f"| {name} | {p50s[name]:.1f} | {p95:.1f} |")
    first, second = p50s.values()
    print(f"\np50 ratio (feedback / off): {second / first:.2f}×")


if __name__ == "__main__":
    main()
