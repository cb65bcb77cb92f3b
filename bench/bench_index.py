"""Indexer benchmark (issue 4, "Measure"): rebuild time, one-file update time, no-op update time.

Builds a real repository of generated memories (≈ 2 KB each, varied types, workspaces, tags,
links and code figures) with the dulwich writer, then times, in this process (the CLI does not
exist yet, so process start-up is not included):

- parsing alone, and a lexical-only rebuild (``embed=False``) into a fresh ``index.db``, each
  serially and on a process pool of ``--workers`` parsers, runs interleaved;
- a one-file update after a commit that edits one memory, on every store size;
- an update on a clean tree (HEAD equals the watermark): a HEAD read plus a status walk.

Run: ``.venv/bin/python -m bench.bench_index [--sizes 1000,10000] [--runs 3]``. Prints the
machine line and a markdown table of medians with their min–max spread.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from bench.machine import machine_line
from memhtml.adapters.git import DulwichGit, DulwichGitWriter
from memhtml.adapters.html import parse_memory, render_memory
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.indexing import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings, SourceFile, parse_files
from memhtml.domain.model import Link, RenderInputs
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.support import sqlite_indexer

WATERMARK: Final = "bench-none@8"
CLOCK: Final = FixedClock(dt.datetime(2026, 11, 29, tzinfo=dt.UTC))
TYPES: Final = ("semantic", "procedural", "episodic", "agent_insight", "error_pattern", "task")
WORDS: Final = (
    "gateway",
    "token",
    "bucket",
    "refill",
    "window",
    "quota",
    "client",
    "retry",
    "backoff",
    "deploy",
    "cache",
    "warm",
    "index",
    "shard",
    "replica",
    "leader",
    "follower",
    "latency",
    "budget",
    "alert",
    "pager",
    "rotation",
    "schema",
    "migration",
    "ledger",
    "export",
    "nightly",
    "staging",
    "production",
    "throttle",
    "queue",
    "worker",
    "lease",
    "heartbeat",
)
CODE: Final = (
    "```python\nfor attempt in range(5):\n    resp = client.get('/search', params=query)\n"
    "    if resp.status_code != 429:\n        break\n```"
)


def memory_path(index: int) -> str:
    """Where generated memory ``index`` lives: a spread over every PARA bucket."""
    bucket = index % 4
    if bucket == 0:
        return f"projects/ws-{index % 20:02d}/m{index:06d}.html"
    if bucket == 1:
        return f"areas/inbox/m{index:06d}.html"
    if bucket == 2:
        return f"resources/topic-{index % 30:02d}/m{index:06d}.html"
    return f"archive/2026/areas/inbox/m{index:06d}.html"


def memory_file(index: int, revision: int = 0) -> bytes:
    """A ≈ 2 KB canonical memory, different for every index and revision."""
    memory_type = TYPES[index % len(TYPES)]

    def sentence(k: int) -> str:
        words = [WORDS[(index * 7 + k * 5 + j * 3) % len(WORDS)] for j in range(18)]
        return " ".join(words).capitalize() + f" (case {index}.{k}.{revision})."

    body = [" ".join(sentence(k) for k in range(p * 4, p * 4 + 4)) for p in range(4)]
    if index % 5 == 0:
        body.insert(2, CODE)
    links = (Link("relates_to", memory_path(index + 1)),) if memory_type != "task" else ()
    inputs = RenderInputs(
        title=f"Memory {index} about {WORDS[index % len(WORDS)]}",
        memory_type=memory_type,
        created_at="2026-01-01T00:00:00Z",
        updated_at=f"2026-02-{1 + revision % 28:02d}T00:00:00Z",
        claim=f"Memory {index} says the {WORDS[(index * 3) % len(WORDS)]} holds (rev {revision}).",
        body=tuple(body),
        tags=(WORDS[index % 11], WORDS[index % 13]),
        entities=(f"service:{WORDS[index % 17]}",),
        links=links,
        importance=1 + index % 10,
        event_at="2026-01-15T10:00:00Z" if index % 3 == 0 else None,
        task_status="todo" if memory_type == "task" else None,
    )
    return render_memory(inputs).encode("utf-8")


def build_repository(root: Path, files: list[tuple[str, bytes]]) -> DulwichGitWriter:
    """A repository at ``root`` holding ``files`` in one commit (``.memhtml/`` ignored)."""
    writer = DulwichGitWriter(root, clock=CLOCK)
    writer.init()
    (root / ".gitignore").write_text(".memhtml/\n", encoding="utf-8")
    writes = tuple(FileWrite(path=path, data=data) for path, data in files)
    writer.commit(ChangeSet(writes=writes), "seed", expected_head=None)
    (root / ".memhtml").mkdir()
    return writer


def indexer(root: Path, db: Database, workers: int) -> StoreIndexer:
    """A lexical-only indexer over the repository at ``root``."""
    return sqlite_indexer(
        db=db,
        git=DulwichGit(root),
        parser=parse_memory,
        clock=CLOCK,
        embed_watermark=WATERMARK,
        embed_dim=8,
        parse=ParseSettings(workers=workers, pool_min_files=0),
    )


def timed(action: Callable[[], object]) -> float:
    """Wall seconds of one call."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def parse_seconds(sources: list[SourceFile], workers: int) -> float:
    """Wall seconds of parsing ``sources`` alone, the part a process pool can spread."""
    settings = ParseSettings(workers=workers, pool_min_files=0)
    return timed(lambda: parse_files(sources, parse_memory, settings))


def rebuild_seconds(root: Path, name: str, workers: int) -> float:
    """Wall seconds of one lexical-only rebuild into a fresh ``.memhtml/<name>``."""
    with Database.open(root / ".memhtml" / name) as db:
        index = indexer(root, db, workers)
        return timed(lambda: index.rebuild(embed=False))


def cell(samples: list[float]) -> str:
    """``median (min–max)`` in milliseconds."""
    ms = [s * 1000 for s in samples]
    return f"{statistics.median(ms):,.1f} ms ({min(ms):,.1f}–{max(ms):,.1f})"


def label(workers: int) -> str:
    """How parsing ran."""
    return "serial parse" if workers == 1 else f"{workers}-process parse"


def measure(size: int, runs: int, workers: int) -> list[str]:
    """Table rows for one store size.

    Serial and pool runs alternate, so a noisy neighbour on a shared machine slows both
    alike instead of whichever happened to run while it was busy.
    """
    counts = sorted({1, workers})
    files = [(memory_path(i), memory_file(i)) for i in range(size)]
    sources = [SourceFile(path=p, blob_sha=str(i), data=d) for i, (p, d) in enumerate(files)]
    parse: dict[int, list[float]] = {count: [] for count in counts}
    rebuild: dict[int, list[float]] = {count: [] for count in counts}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "repo"
        writer = build_repository(root, files)
        for run in range(runs):
            for count in counts:
                parse[count].append(parse_seconds(sources, count))
                rebuild[count].append(rebuild_seconds(root, f"rebuild-{count}-{run}.db", count))
        with Database.open(root / ".memhtml" / "index.db") as db:
            index = indexer(root, db, workers)
            index.rebuild(embed=False)
            noop = [timed(lambda: index.update(embed=False)) for _ in range(max(runs, 5))]
            edits = []
            for revision in range(1, max(runs, 5) + 1):
                target = (revision * 37) % size
                change = ChangeSet(
                    writes=(
                        FileWrite(path=memory_path(target), data=memory_file(target, revision)),
                    )
                )
                writer.commit(change, f"edit {target}", expected_head=DulwichGit(root).head())
                edits.append(timed(lambda: index.update(embed=False)))
    rows = [f"| {size:,} | parse only, {label(c)} | {runs} | {cell(parse[c])} |" for c in counts]
    rows += [
        f"| {size:,} | rebuild, lexical-only, {label(c)} | {runs} | {cell(rebuild[c])} |"
        for c in counts
    ]
    rows.append(f"| {size:,} | update, one committed edit | {len(edits)} | {cell(edits)} |")
    rows.append(f"| {size:,} | update, clean tree (no-op) | {len(noop)} | {cell(noop)} |")
    return rows


def main() -> None:
    """Measure every size and print one markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated file counts")
    parser.add_argument("--runs", type=int, default=3, help="runs per rebuild measurement")
    parser.add_argument("--workers", type=int, default=2, help="parse processes to compare")
    args = parser.parse_args()
    print(machine_line())
    print()
    print("| files | operation | runs | median (min–max) |")
    print("|---:|---|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        for row in measure(size, args.runs, args.workers):
            print(row, flush=True)


if __name__ == "__main__":
    main()
