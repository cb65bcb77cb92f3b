"""What the write-time assists cost an embedding ``apply`` of 500 write ops (issue 21: ≤ 1.2×).

A store holding ``--loaded`` one-fact memories, all embedded with the local model, takes a
batch of 500 new writes, half of which restate a loaded relation with another value (so they
are both conflicts and near-duplicates to report), through the library's ``apply`` with the real
SQLite index and the model warm (the Python API and the MCP server's case: the batch embeds
anyway). With assists: the conflict lookup, and the near-duplicate assist embedding the 500 first
chunks before the commit, asking one nearest-neighbour question, and handing the vectors to the
index update. Without: a lookup holding no claims and no embedder for the assist, so the index
update embeds the same 500 chunks itself. Each run applies the batch to a fresh copy, the two
sides alternating which goes first; medians of ``--runs``.
Run: ``.venv/bin/python -m bench.bench_near_duplicates [--runs 5] [--loaded 500]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Final

import attrs

from bench.bench_assists import BATCH, NoClaims, _lines
from bench.machine import machine_line
from memhtml.app.apply_ops import parse_apply_lines
from memhtml.app.bootstrap import build_embedder
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.store import init_store_at, open_store
from memhtml.app.use_cases.apply import apply_batch
from memhtml.ports.embedder import EmbeddingModel

LOCAL: Final = {"MEMHTML_EMBED": "local"}


def _apply(
    root: Path, lines: list[str], model: EmbeddingModel, *, assists: bool
) -> tuple[float, float, int, int]:
    with open_store(root, environ=LOCAL, embedder=model) as store:
        deps = store.write_deps(embed=True)
        if not assists:
            deps = attrs.evolve(deps, assists=NoClaims(), embedder=None)
        ops = parse_apply_lines(lines, None)
        started, cpu = time.perf_counter(), time.process_time()
        result = apply_batch(deps, ops)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        coverage = store.index_status()
    near = sum(1 for r in result.results if r.near_duplicates)
    assert coverage.embeddings == coverage.chunks, "every chunk must carry a vector afterwards"
    return elapsed, cpu, near, sum(1 for r in result.results if r.conflicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--loaded", type=int, default=500)
    parser.add_argument("--batch", type=int, default=BATCH)
    args = parser.parse_args()
    model = build_embedder(EmbedSettings(backend="local"))
    assert model is not None
    work = Path(tempfile.mkdtemp(prefix="memhtml-bench-near-"))
    try:
        base = work / "base"
        init_store_at(base, environ=LOCAL)
        with open_store(base, environ=LOCAL, embedder=model) as store:
            store.apply(_lines(range(args.loaded), 50, "loaded"), embed=True)
        half = min(args.batch // 2, args.loaded)
        batch = _lines(range(half), 80, "new") + _lines(
            range(args.loaded, args.loaded + args.batch - half), 80, "new"
        )
        timings: dict[bool, list[float]] = {True: [], False: []}
        cpus: dict[bool, list[float]] = {True: [], False: []}
        reported: dict[bool, tuple[int, int]] = {}
        with open("/proc/loadavg", encoding="ascii") as f:
            load_before = " ".join(f.read().split()[:3])
        for run in range(args.runs):
            for assists in (run % 2 == 0, run % 2 == 1):  # alternate which goes first
                copy = work / f"run-{run}-{int(assists)}"
                shutil.copytree(base, copy, symlinks=True)
                elapsed, cpu, near, conflicts = _apply(copy, batch, model, assists=assists)
                timings[assists].append(elapsed)
                cpus[assists].append(cpu)
                reported[assists] = (near, conflicts)
                shutil.rmtree(copy)
        with open("/proc/loadavg", encoding="ascii") as f:
            load_after = " ".join(f.read().split()[:3])
        on, off = statistics.median(timings[True]), statistics.median(timings[False])
        print(
            f"`{machine_line()}` · load average {load_before} before, {load_after} after "
            "(2 shared cores, other agents busy)\n"
        )
        print(
            f"embedding apply of {args.batch} writes over {args.loaded} loaded memories, local "
            f"model warm, median of {args.runs} interleaved runs each\n"
        )
        print(
            "| assists | wall median | CPU median | wall runs | near-duplicates reported "
            "| conflicts reported |"
        )
        print("|---|---:|---:|---|---:|---:|")
        for side, name in ((False, "off"), (True, "on")):
            runs = ", ".join(f"{t:.2f}" for t in timings[side])
            near, conflicts = reported[side]
            print(
                f"| {name} | {statistics.median(timings[side]):.3f} s | "
                f"{statistics.median(cpus[side]):.3f} s | {runs} | {near} | {conflicts} |"
            )
        cpu_ratio = statistics.median(cpus[True]) / statistics.median(cpus[False])
        print(f"\nratio on/off: wall {on / off:.3f}, CPU {cpu_ratio:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
