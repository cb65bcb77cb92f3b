"""What one ranking arm costs a warm search: the default arms with it and without it, interleaved.

Issue 13 lets a ranking lever make a search at 10,000 memories at most 1.1× slower. This bench
builds ``bench_search``'s corpus (half of it in conversations), then runs every query through
the production pipeline with the default arms plus ``--arm`` and with them minus it, one
after the other for each query and round, so load bursts hit both alike. Each search is timed in
wall time and in the calling thread's CPU time (which a busy machine inflates far less); the
table gives medians and the ratio, in hybrid mode (precomputed query vectors) and lexical mode.

``--dated`` appends "in <month> <year>" (a month of the corpus) to every query, so the time
arms fire: the way to price ``time_words``, which fires only for a query that names a date.

Run: ``.venv/bin/python -m bench.bench_arm_cost [--arm session] [--size 10000] [--rounds 5]
[--dated]``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.bench_search import (
    EMBEDDER,
    MODEL,
    NOW,
    PrecomputedEmbedder,
    build,
    queries,
    sqlite_retrieval,
    vocabulary,
)
from bench.machine import machine_line
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.retrieval import RetrievalPipeline
from memhtml.domain.fusion import RANK_ARMS
from memhtml.ports.retrieval import RankingOptions, SearchRequest

Search = Callable[[str], object]


def searcher(retrieval: RetrievalPipeline, options: RankingOptions) -> Search:
    """One search of a query text with ``options``."""
    return lambda text: retrieval.search(SearchRequest(query=text, options=options))


def timed(action: Search, text: str) -> tuple[float, float]:
    """One search's wall and thread-CPU time, in milliseconds."""
    wall, cpu = time.perf_counter(), time.thread_time()
    action(text)
    return (time.perf_counter() - wall) * 1000.0, (time.thread_time() - cpu) * 1000.0


def main(argv: Sequence[str] | None = None) -> None:
    """Build the corpus, interleave the two arm sets per query, print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--arm", default="session")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dated", action="store_true", help="every query names a month")
    args = parser.parse_args(argv)
    if args.arm not in {arm.name for arm in RANK_ARMS}:
        parser.error(f"no ranking arm is called {args.arm}")
    # Registry order, the default set with and without the arm (opt-in or not).
    defaults = {arm.name for arm in RANK_ARMS if arm.default}
    with_arm = RankingOptions(
        arms=tuple(arm.name for arm in RANK_ARMS if arm.name in defaults | {args.arm})
    )
    without = RankingOptions(
        arms=tuple(arm.name for arm in RANK_ARMS if arm.name in defaults - {args.arm})
    )
    words = vocabulary(random.Random(1))
    texts = queries(words, args.queries)
    if args.dated:  # as bench_search's dated row: a month of the corpus, 40 days back
        texts = [f"{text} in {NOW - dt.timedelta(days=40):%B %Y}" for text in texts]
    embedder = PrecomputedEmbedder({t: EMBEDDER.embed_query(t) for t in texts})
    clock = FixedClock(NOW)
    with tempfile.TemporaryDirectory() as directory:
        db = build(Path(directory), args.size, words)
        hybrid = sqlite_retrieval(db, clock=clock, embedder=embedder)
        lexical = sqlite_retrieval(db, clock=clock, embed_model=MODEL)
        paths: dict[str, Search] = {}
        for mode, retrieval in (("hybrid", hybrid), ("lexical", lexical)):
            for label, options in ((f"with {args.arm}", with_arm), (f"no {args.arm}", without)):
                paths[f"{mode}, {label}"] = searcher(retrieval, options)
        for text in texts[:3]:  # warm-up: statements prepared, pages cached
            for action in paths.values():
                action(text)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in paths}
        for _ in range(args.rounds):
            for text in texts:
                for name, action in paths.items():
                    samples[name].append(timed(action, text))
        db.close()
    dated = " naming a month" if args.dated else ""
    print(
        f"`{machine_line()}` · {args.size:,} memories · "
        f"{args.queries} queries{dated} × {args.rounds}"
    )
    print()
    print("| mode, arms | wall p50 ms | CPU p50 ms |")
    print("|---|---:|---:|")
    medians = {}
    for name, values in samples.items():
        wall = statistics.median(v[0] for v in values)
        cpu = statistics.median(v[1] for v in values)
        medians[name] = (wall, cpu)
        print(f"| {name} | {wall:.1f} | {cpu:.1f} |")
    print()
    for mode in ("hybrid", "lexical"):
        on, off = medians[f"{mode}, with {args.arm}"], medians[f"{mode}, no {args.arm}"]
        print(
            f"{mode}: with / without {args.arm} = {on[0] / off[0]:.2f}× wall, "
            f"{on[1] / off[1]:.2f}× CPU"
        )


if __name__ == "__main__":
    main()
