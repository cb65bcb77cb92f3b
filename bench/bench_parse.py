"""Parsing cost: the fast path (lexbor) against the reference (html5lib), per file and per batch.

Run from the project root: ``.venv/bin/python bench/bench_parse.py [--runs N] [--large-runs N]
[--batch N] [--apply]``. Prints the machine line and the load average, then:

- per file (a 2 KB memory and a 100 KB one), the median of N interleaved runs of
  ``parse_memory`` (lexbor for a plain file), ``parse_memory_reference`` (html5lib), and of
  each tree builder alone: lexbor, html5lib (etree), and gumbo through html5-parser when it
  imports (it needs an lxml built against the system libxml2, so it usually does not);
- a batch of N distinct rendered memories parsed serially by each path, best of three rounds;
- with ``--apply``, an in-process ``apply`` of 500 write ops into a fresh lexical store.

Per file, candidates are timed in rotation inside one loop, so a noisy neighbour slows them
alike and caches are as cold as between a real write's other work, then each on its own, warm;
every call runs with the cyclic garbage collector paused, as ``timeit`` times.
"""

from __future__ import annotations

import argparse
import functools
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# Runnable as a plain script from a checkout: the project root is not on sys.path otherwise.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import html5lib
from selectolax.lexbor import LexborHTMLParser

from bench.machine import machine_line
from memhtml.adapters.html import render_memory
from memhtml.adapters.html.parser import parse_memory, parse_memory_reference
from memhtml.domain.model import RenderInputs

PROSE = (
    "The gateway enforces the limit with a token bucket: each key holds up to 300 tokens and "
    "regains 5 every second, so a burst drains the bucket and the client then waits for the "
    "refill before request 301 can succeed inside the same one-minute window."
)
CODE = (
    "```python\nfor attempt in range(5):\n    resp = client.get('/search', params=query)\n"
    "    if resp.status_code != 429:\n        break\n"
    "    time.sleep(float(resp.headers['Retry-After']))\n```"
)
TOPICS = ("billing", "search", "checkout", "ledger", "catalog", "release", "mobile", "ops")


def memory_of_size(target_bytes: int) -> str:
    """A canonical memory whose file is close to ``target_bytes``: prose with code figures."""
    body: list[str] = []
    html = ""
    while len(html.encode("utf-8")) < target_bytes:
        body.append(CODE if len(body) % 5 == 4 else PROSE)
        html = render_memory(
            RenderInputs(
                title="Search API rate limit is 300 requests per minute per key",
                memory_type="semantic",
                created_at="2026-09-10T08:15:00Z",
                updated_at="2026-09-12T17:40:22Z",
                claim="The search API allows 300 requests per minute for each API key.",
                body=tuple(body),
                tags=("rate-limits", "search"),
                entities=("service:search-api", "team:platform"),
                importance=7,
                confidence=0.85,
                event_at="2026-09-09T14:30Z",
            )
        )
    return html


def batch_of(count: int) -> list[bytes]:
    """``count`` distinct rendered memories, 1-4 KB each, as a store holds them."""
    files = []
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        body = [f"Observed during review {i // 10} of the {topic} pipeline.", PROSE]
        body += [CODE] if i % 7 == 0 else []
        body += [PROSE] * (i % 3)
        files.append(
            render_memory(
                RenderInputs(
                    title=f"{topic} fact number {i}",
                    memory_type="semantic",
                    created_at="2026-09-10T08:15:00Z",
                    updated_at="2026-09-12T17:40:22Z",
                    claim=f"The {topic} service keeps setting {i} at value {i * 7 % 1000}.",
                    body=tuple(body),
                    tags=(topic,),
                    entities=(f"service:{topic}",),
                )
            ).encode("utf-8")
        )
    return files


def tree_builders() -> dict[str, Callable[[str], object]]:
    """Each tree builder alone on a text: lexbor, html5lib, and gumbo when it imports."""
    builders: dict[str, Callable[[str], object]] = {
        "lexbor tree": LexborHTMLParser,
        "html5lib tree": lambda text: html5lib.parse(
            text, treebuilder="etree", namespaceHTMLElements=False
        ),
    }
    try:
        import html5_parser  # type: ignore[import-not-found, unused-ignore]
    except (ImportError, RuntimeError) as e:
        print(f"gumbo (html5-parser) skipped: {str(e).splitlines()[0][:100]}")
    else:
        builders["gumbo tree"] = lambda text: html5_parser.parse(
            text, treebuilder="lxml", namespace_elements=False
        )
    return builders


def timed(action: Callable[[], object]) -> float:
    """Seconds one call takes with the cyclic collector paused, as ``timeit`` does: html5lib's
    garbage would otherwise be collected in whichever candidate happens to run next."""
    gc.disable()
    try:
        start = time.perf_counter()
        action()
        return time.perf_counter() - start
    finally:
        gc.enable()


def medians_ms(
    actions: dict[str, Callable[[], object]], runs: int
) -> dict[str, tuple[float, float]]:
    """Per action, the median ms interleaved (each round runs every action once, so caches are
    as cold as in a real write or rebuild, where other work runs between parses) and back to
    back (``runs`` calls in a row: warm caches, the best case)."""
    interleaved: dict[str, list[float]] = {name: [] for name in actions}
    for action in actions.values():
        action()
    for _ in range(runs):
        for name, action in actions.items():
            interleaved[name].append(timed(action))
        gc.collect()
    in_a_row = {name: [timed(action) for _ in range(runs)] for name, action in actions.items()}
    return {
        name: (
            statistics.median(interleaved[name]) * 1000,
            statistics.median(in_a_row[name]) * 1000,
        )
        for name in actions
    }


def per_file(
    label: str, target: int, runs: int, builders: dict[str, Callable[[str], object]]
) -> None:
    """One line per candidate for a memory of about ``target`` bytes."""
    html = memory_of_size(target)
    data = html.encode("utf-8")
    actions: dict[str, Callable[[], object]] = {
        "parse_memory (fast)": lambda: parse_memory(data),
        "parse_memory_reference": lambda: parse_memory_reference(data),
        **{name: functools.partial(build, html) for name, build in builders.items()},
    }
    medians = medians_ms(actions, runs)
    print(f"{label} memory ({len(data):,} bytes, {runs} runs, median ms interleaved | in a row):")
    for name, (cold, warm) in medians.items():
        print(f"  {name:<24} {cold:8.3f} | {warm:8.3f}")
    reference, fast = medians["parse_memory_reference"], medians["parse_memory (fast)"]
    print(f"  reference / fast: {reference[0] / fast[0]:.1f}x | {reference[1] / fast[1]:.1f}x")


def _build_all(build: Callable[[str], object], texts: list[str]) -> list[object]:
    return [build(text) for text in texts]


def per_batch(count: int, builders: dict[str, Callable[[str], object]]) -> None:
    """Serial parse of ``count`` files by each path: best of three interleaved rounds."""
    files = batch_of(count)
    texts = [data.decode("utf-8") for data in files]
    actions: dict[str, Callable[[], object]] = {
        "parse_memory (fast)": lambda: [parse_memory(data) for data in files],
        "parse_memory_reference": lambda: [parse_memory_reference(data) for data in files],
        **{name: functools.partial(_build_all, build, texts) for name, build in builders.items()},
    }
    samples: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(3):
        for name, action in actions.items():
            samples[name].append(timed(action))
    size = sum(map(len, files)) / len(files)
    print(f"batch of {count:,} files (mean {size:,.0f} bytes), serial, best of 3, ms:")
    for name, times in samples.items():
        print(f"  {name:<24} {min(times) * 1000:9.1f}")


def apply_500() -> None:
    """In-process ``apply`` of 500 write ops into a fresh lexical store, three stores."""
    import memhtml
    from bench.bench_cli import _ops

    env = {**os.environ, "MEMHTML_EMBED": "off"}
    memhtml_cli = Path(sys.executable).with_name("memhtml")
    times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "store"
            subprocess.run(
                [str(memhtml_cli), "init", "--repo", str(root)],
                env=env,
                check=True,
                capture_output=True,
            )
            with memhtml.open(root, environ=env, embedder=False) as store:
                start = time.perf_counter()
                store.apply(_ops(500).splitlines())
                times.append(time.perf_counter() - start)
    shown = ", ".join(f"{t * 1000:.0f}" for t in times)
    median = statistics.median(times) * 1000
    print(f"apply 500 ops, lexical, in-process: median {median:.0f} ms ({shown})")


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="runs for the 2 KB file")
    parser.add_argument("--large-runs", type=int, default=30, help="runs for the 100 KB file")
    parser.add_argument("--batch", type=int, default=1000, help="files in the batch")
    parser.add_argument("--apply", action="store_true", help="also time apply of 500 ops")
    args = parser.parse_args()
    print(machine_line())
    print("load average:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))
    builders = tree_builders()
    per_file("2 KB", 2048, args.runs, builders)
    per_file("100 KB", 100_000, args.large_runs, builders)
    per_batch(args.batch, builders)
    if args.apply:
        apply_500()
    print("load average:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))


if __name__ == "__main__":
    main()
