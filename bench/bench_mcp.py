"""The MCP server (issue 16): a search tool call's round trip through the SDK's stdio client,
warm, and the server's start-to-ready time.

A store of generated one-fact memories is built with the real write path (``apply`` without an
embedder, then ``index rebuild`` with the bundled model). Each server is a spawned
``memhtml mcp``; the client is the SDK's own. Round trips are timed in the client around
``call_tool`` (JSON-RPC over the pipes, argument check, freshness pass, query embedding,
search, shaping, validation of the structured result). The same queries through the Python
facade in this process give the floor the protocol adds to.

Run: ``.venv/bin/python -m bench.bench_mcp [--memories 1000] [--calls 200] [--starts 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

import memhtml
from bench.machine import machine_line, median_ms, percentile_ms
from memhtml.ports.retrieval import SearchRequest

MEMHTML: Final = Path(sys.executable).with_name("memhtml")
TOPICS: Final = ("billing", "search", "checkout", "ledger", "catalog", "release", "mobile", "ops")
QUERIES: Final = (
    "which shard keeps setting 42",
    "billing pipeline review",
    "ledger value for shard 7",
    "how is the catalog service configured",
    "release service setting",
    "what did the mobile review observe",
    "checkout values per shard",
    "ops settings that changed",
)
WARM_CALLS: Final = 10
ROUNDS: Final = 10
HYBRID: Final = "MCP stdio, hybrid (local model)"
LEXICAL: Final = "MCP stdio, lexical"
FLOOR: Final = "in-process facade, hybrid (no protocol)"


def _ops(count: int) -> str:
    lines = []
    for i in range(count):
        topic = TOPICS[i % len(TOPICS)]
        op = {
            "op": "write",
            "title": f"{topic} fact number {i}",
            "type": "semantic",
            "claim": f"The {topic} service keeps setting {i} at value {i * 7 % 1000}"
            f" for shard {i % 13}.",
            "body": [f"Observed during review {i // 10} of the {topic} pipeline."],
            "tag": topic,
        }
        lines.append(json.dumps(op))
    return "\n".join(lines) + "\n"


def _memhtml(args: list[str], env: dict[str, str], stdin: str | None = None) -> None:
    done = subprocess.run(
        [str(MEMHTML), *args], env=env, input=stdin, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"memhtml {args[0]} failed: {done.stdout[:300]}")


def build_store(root: Path, memories: int) -> None:
    """``memories`` facts in one commit, then a rebuild that embeds them with the local model."""
    off = dict(os.environ, MEMHTML_EMBED="off")
    _memhtml(["init", "--repo", str(root)], off)
    _memhtml(["apply", "--repo", str(root), "--file", "-"], off, _ops(memories))
    _memhtml(
        ["index", "rebuild", "--embed", "--repo", str(root)],
        dict(os.environ, MEMHTML_EMBED="local"),
    )


def _params(root: Path, mode: str) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    env.update(MEMHTML_EMBED=mode, MEMHTML_LOG_LEVEL="warning")
    return StdioServerParameters(command=str(MEMHTML), args=["mcp", "--repo", str(root)], env=env)


async def _start_to_ready(root: Path, mode: str) -> tuple[float, float]:
    """(spawn → initialize answered, spawn → first search answered) in seconds."""
    with open(os.devnull, "w") as quiet:
        start = time.perf_counter()
        async with Client(stdio_client(_params(root, mode), errlog=quiet), cache=None) as client:
            ready = time.perf_counter() - start
            result = await client.call_tool("search", {"query": QUERIES[0], "limit": 10})
            first = time.perf_counter() - start
            assert not result.is_error, result.structured_content
    return ready, first


async def _search(client: Client, n: int) -> tuple[float, bool]:
    """One timed search call: (seconds, whether the vector arm ran)."""
    start = time.perf_counter()
    result = await client.call_tool("search", {"query": QUERIES[n % len(QUERIES)], "limit": 10})
    elapsed = time.perf_counter() - start
    if result.is_error:
        raise SystemExit(f"search failed: {result.structured_content}")
    return elapsed, "vector" in (result.structured_content or {}).get("arms", ())


async def _interleaved(root: Path, calls: int, rounds: int) -> dict[str, tuple[list[float], bool]]:
    """Warm round trips of both servers and the in-process floor, in interleaved batches.

    The machine is shared: batches alternate so that a burst of load lands on every path
    alike, and the ratios stay comparable even when the absolute numbers move.
    """
    results: dict[str, tuple[list[float], bool]] = {}
    env = dict(os.environ, MEMHTML_EMBED="local")
    with (
        open(os.devnull, "w") as quiet,
        memhtml.open(root, environ=env) as store,
    ):
        async with (
            Client(stdio_client(_params(root, "local"), errlog=quiet), cache=None) as hybrid,
            Client(stdio_client(_params(root, "off"), errlog=quiet), cache=None) as lexical,
        ):
            clients = {HYBRID: hybrid, LEXICAL: lexical}
            for n in range(WARM_CALLS):
                for client in clients.values():
                    await _search(client, n)
                store.search(SearchRequest(query=QUERIES[n % len(QUERIES)], limit=10))
            per_round = max(1, calls // rounds)
            for r in range(rounds):
                for label, client in clients.items():
                    samples, vector = results.get(label, ([], True))
                    for n in range(r * per_round, (r + 1) * per_round):
                        elapsed, ran = await _search(client, n)
                        samples.append(elapsed)
                        vector = vector and ran
                    results[label] = (samples, vector)
                floor, _ = results.get(FLOOR, ([], True))
                for n in range(r * per_round, (r + 1) * per_round):
                    start = time.perf_counter()
                    store.search(SearchRequest(query=QUERIES[n % len(QUERIES)], limit=10))
                    floor.append(time.perf_counter() - start)
                results[FLOOR] = (floor, True)
    return results


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main() -> None:
    """Print the round-trip table and the start-up table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp()) / "store"
    try:
        build_store(root, args.memories)
        print(f"`{machine_line()}` · load average before: {_load()}\n")
        print(f"{args.memories:,} memories, limit 10, {args.calls} calls per path after")
        print(f"{WARM_CALLS} warm ones, in {ROUNDS} interleaved batches; times in ms.\n")
        print("| path | p50 | p95 | vector arm ran |")
        print("|---|---:|---:|---|")
        measured = anyio.run(_interleaved, root, args.calls, ROUNDS)
        for label, (samples, vector) in measured.items():
            p50, p95 = median_ms(samples), percentile_ms(samples, 95)
            print(f"| {label} | {p50:.1f} | {p95:.1f} | {'yes' if vector else 'no'} |")
        print()
        starts = [anyio.run(_start_to_ready, root, "local") for _ in range(args.starts)]
        ready = [pair[0] for pair in starts]
        first = [pair[1] for pair in starts]
        print(f"Start-up, hybrid, median of {args.starts} spawns (ms):\n")
        print("| spawn → initialize answered | spawn → first search answered |")
        print("|---:|---:|")
        print(f"| {median_ms(ready):.0f} | {median_ms(first):.0f} |\n")
        print(f"load average after: {_load()}")
    finally:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
