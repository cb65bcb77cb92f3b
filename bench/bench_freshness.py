"""Freshness without a full walk (issue 17, item 2): what every read pays to know the tree is clean.

Builds a repository of generated memories (``bench_index``'s ≈ 2 KB files) and its lexical
index, then, in rounds so a noisy neighbour slows every measure alike, times:

- ``update, clean tree``: ``Indexer.update`` in this process on an unchanged tree (HEAD read,
  status, nothing to do), with the status cache file the CLI uses; wall and CPU time;
- ``status, new process``: this process's memos forgotten, a new port reading the cache file,
  as a fresh ``memhtml`` command does (interpreter start not included);
- ``git status --porcelain``: the git binary on the same tree, process start included;
- ``update, one committed edit``: a commit of one edited memory (not timed), then the update;
- the same two updates in a warm process that holds a file-system watcher (a second indexer
  over the same index whose git port was armed before its first walk): what the library's
  store and the MCP server pay from their second read on. A one-shot CLI process cannot
  use a watcher: its first status is the walk above.

Run: ``.venv/bin/python -m bench.bench_freshness [--sizes 5000,10000] [--rounds 15]``. Prints the
machine line, the load average before and after, and a markdown table of medians.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.bench_index import CLOCK, WATERMARK, build_repository, memory_file, memory_path
from bench.machine import machine_line
from memhtml.adapters.git import DulwichGit
from memhtml.adapters.html import parse_memory
from memhtml.adapters.sqlite.connection import Database
from memhtml.app.indexing import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.support import sqlite_indexer

try:  # absent before the status cache: the same script then times the code before it
    from memhtml.adapters.git.status_cache import forget_all
except ImportError:  # pragma: no cover - only when run against an older checkout

    def forget_all() -> None:
        """Nothing to forget: the code under test keeps no status memo."""


CACHE_NAME = "index.db-gitstatus"


def load_average() -> str:
    """The first three fields of ``/proc/loadavg``."""
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])
    except OSError:
        return "unknown"


def indexer(root: Path, db: Database, *, watched: bool = False) -> StoreIndexer:
    """A lexical indexer whose git port keeps the status cache where the CLI keeps it, and
    with ``watched``, a file-system watcher armed at its first status."""
    git = watched_port(root) if watched else fresh_port(root, root / ".memhtml" / CACHE_NAME)
    return sqlite_indexer(
        db=db,
        git=git,
        parser=parse_memory,
        clock=CLOCK,
        embed_watermark=WATERMARK,
        embed_dim=8,
        parse=ParseSettings(workers=2),
    )


def fresh_port(root: Path, cache: Path) -> DulwichGit:
    """A git port over ``root`` keeping its status cache at ``cache`` where the code has one."""
    try:
        return DulwichGit(root, status_cache=cache)  # type: ignore[call-arg,unused-ignore]
    except TypeError:  # an older checkout: no status cache to give
        return DulwichGit(root)


def watched_port(root: Path) -> DulwichGit:
    """A git port over ``root`` whose status amends a baseline from inotify events."""
    from memhtml.adapters.git.inotify_watch import InotifyTreeWatch

    return DulwichGit(
        root,
        status_cache=root / ".memhtml" / CACHE_NAME,
        watch=InotifyTreeWatch(root),  # type: ignore[call-arg,unused-ignore]
        arm_watch_at=1,
    )


def timed(action: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def _git_status(binary: str, root: Path) -> None:
    subprocess.run([binary, "-C", str(root), "status", "--porcelain"], capture_output=True)


def ms(samples: list[float]) -> str:
    """Median in milliseconds."""
    return f"{statistics.median(samples) * 1000:,.1f}"


def measure(size: int, rounds: int, scratch: Path, *, watch: bool = True) -> list[str]:
    """Table rows for one store size."""
    root = scratch / f"repo-{size}"
    writer = build_repository(root, [(memory_path(i), memory_file(i)) for i in range(size)])
    git_binary = shutil.which("git")
    samples: dict[str, list[float]] = {
        "noop": [],
        "noop_cpu": [],
        "fresh": [],
        "git": [],
        "edit": [],
        "edit_cpu": [],
        "noop_watch": [],
        "noop_watch_cpu": [],
        "edit_watch": [],
        "edit_watch_cpu": [],
    }
    with Database.open(root / ".memhtml" / "index.db") as db:
        index = indexer(root, db)
        index.rebuild(embed=False)
        index.update(embed=False)
        warm = indexer(root, db, watched=watch) if watch else None
        if warm is not None:
            warm.update(embed=False)  # arms the watcher, then walks: the baseline
        cache = root / ".memhtml" / CACHE_NAME
        for revision in range(1, rounds + 1):
            wall, cpu = timed(lambda: index.update(embed=False))
            samples["noop"].append(wall)
            samples["noop_cpu"].append(cpu)
            if warm is not None:
                wall, cpu = timed(lambda: warm.update(embed=False))
                samples["noop_watch"].append(wall)
                samples["noop_watch_cpu"].append(cpu)
            forget_all()
            samples["fresh"].append(timed(fresh_port(root, cache).status)[0])
            if git_binary is not None:
                samples["git"].append(timed(lambda: _git_status(git_binary, root))[0])
            target = (revision * 37) % size
            change = ChangeSet(
                writes=(FileWrite(path=memory_path(target), data=memory_file(target, revision)),)
            )
            writer.commit(change, f"edit {target}", expected_head=DulwichGit(root).head())
            wall, cpu = timed(lambda: index.update(embed=False))
            samples["edit"].append(wall)
            samples["edit_cpu"].append(cpu)
            if warm is not None:
                target = (revision * 53 + 1) % size
                change = ChangeSet(
                    writes=(
                        FileWrite(path=memory_path(target), data=memory_file(target, revision)),
                    )
                )
                writer.commit(change, f"edit {target}", expected_head=DulwichGit(root).head())
                wall, cpu = timed(lambda: warm.update(embed=False))
                samples["edit_watch"].append(wall)
                samples["edit_watch_cpu"].append(cpu)
    git = ms(samples["git"]) if samples["git"] else "—"
    ratio = (
        f"{statistics.median(samples['noop']) / statistics.median(samples['git']):.2f}×"
        if samples["git"]
        else "—"
    )
    rows = [
        f"| {size:,} | update, clean tree (in-process) | {ms(samples['noop'])} "
        f"| {ms(samples['noop_cpu'])} | {git} | {ratio} |",
        f"| {size:,} | status, new process (cache file read) | {ms(samples['fresh'])} | — "
        f"| {git} | — |",
        f"| {size:,} | update, one committed edit | {ms(samples['edit'])} "
        f"| {ms(samples['edit_cpu'])} | — | — |",
    ]
    if samples["noop_watch"]:
        rows += [
            f"| {size:,} | warm, watcher held: update, clean tree | {ms(samples['noop_watch'])} "
            f"| {ms(samples['noop_watch_cpu'])} | — | — |",
            f"| {size:,} | warm, watcher held: update, one committed edit "
            f"| {ms(samples['edit_watch'])} | {ms(samples['edit_watch_cpu'])} | — | — |",
        ]
    return rows


def main() -> None:
    """Measure every size and print one markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="5000,10000", help="comma-separated file counts")
    parser.add_argument("--rounds", type=int, default=15, help="rounds per size")
    parser.add_argument(
        "--no-watch", action="store_true", help="leave out the warm rows (a watcher held)"
    )
    args = parser.parse_args()
    print(machine_line())
    print(f"load average before: {load_average()}")
    print()
    print("| files | measure | median ms | CPU ms | `git status` ms | ours / git |")
    print("|---:|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for size in (int(s) for s in args.sizes.split(",")):
            for row in measure(size, args.rounds, Path(scratch), watch=not args.no_watch):
                print(row, flush=True)
    print()
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
