"""Median time to parse a memory file: a 2 KB one (target ≤ 2 ms) and a 100 KB one.

Run from the project root: ``.venv/bin/python bench/bench_parse.py [--runs N]``. Prints the
machine line, then per file its size and the median of N runs of ``parse_memory`` next to the
median of html5lib's own tree building for the same text (the part no memhtml code can speed
up), and the two html5lib tree builders side by side, which is why the adapter uses ``etree``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Runnable as a plain script from a checkout: the project root is not on sys.path otherwise.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import html5lib

from memhtml.adapters.html import parse_memory, render_memory
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


def median_ms(action: Callable[[], object], runs: int) -> float:
    """Median wall time of ``action`` over ``runs`` calls, in milliseconds (one warm-up)."""
    action()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def machine_line() -> str:
    """CPU model, core count, OS and interpreter, for reading the numbers in context."""
    model = platform.processor() or "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"machine: {model}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, html5lib {html5lib.__version__}"
    )


def main() -> None:
    """Measure and print one line per file and tree builder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs for the 2 KB file")
    parser.add_argument("--large-runs", type=int, default=20, help="runs for the 100 KB file")
    args = parser.parse_args()
    print(machine_line())
    for label, target, runs in (("2 KB", 2048, args.runs), ("100 KB", 100_000, args.large_runs)):
        html = memory_of_size(target)
        data = html.encode("utf-8")
        whole = median_ms(lambda data=data: parse_memory(data), runs)  # type: ignore[misc]
        trees = {
            builder: median_ms(
                lambda builder=builder, html=html: html5lib.parse(  # type: ignore[misc]
                    html, treebuilder=builder, namespaceHTMLElements=False
                ),
                runs,
            )
            for builder in ("etree", "dom")
        }
        print(
            f"{label} memory ({len(data):,} bytes, {runs} runs): parse_memory median "
            f"{whole:.2f} ms; html5lib alone: etree {trees['etree']:.2f} ms, "
            f"dom {trees['dom']:.2f} ms"
        )


if __name__ == "__main__":
    main()
