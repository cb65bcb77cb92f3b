"""Soak (issue 14): writer and reader processes against one store, then nothing may be lost.

A store is seeded with ``--seed-memories`` memories in one ``apply``. Then ``--writers``
processes write, apply small batches, correct, archive, link and reinforce their own
memories while ``--readers`` processes search, recall, read and list the seed, all through
the library facade, for ``--seconds`` (``bench/soak_workers.py``). At the end, before
anything opens the store again:

- every write a worker was told had landed must be at the path its ledger says (moved to
  ``archive/`` by its own archive or correction, or still active) in HEAD's tree, in the
  working tree and in the index's ``files`` table, with the content hash it was given;
- ``git fsck`` must be clean.

Reported: throughput and latency per op kind, failures by ``ERR_*`` code, lost writes, and
what ``doctor`` says afterwards. Exit 1 when a write was lost, ``git fsck`` failed or any
call failed with ``ERR_UNKNOWN``; a failure with a specific code is reported, not fatal.

Run: ``.venv/bin/python -m bench.bench_soak [--seconds 120] [--writers 4] [--readers 4]``.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from bench.machine import machine_line, percentile_ms
from bench.soak_workers import WORDS, WorkerPlan, run_worker

SEED_PATH_PREFIX: Final = "resources/soak-seed/"


def loadavg() -> str:
    """The first three fields of ``/proc/loadavg``, or ``unknown``."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def seed_store(root: Path, count: int, embed: str) -> tuple[str, ...]:
    """Initialise ``root`` and write ``count`` seed memories in one batch; their paths."""
    import memhtml
    from memhtml.app.apply_ops import parse_apply_lines
    from memhtml.app.store import init_store_at

    environ = {**os.environ, "MEMHTML_EMBED": embed}
    init_store_at(root, environ=environ)
    lines = []
    for n in range(count):
        words = " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(6))
        op = {
            "op": "write",
            "title": f"Seed {n} {words.split()[0]}",
            "type": "semantic",
            "claim": f"Seed fact {n}: the {words} setting holds at {n * 3} units.",
            "path": f"{SEED_PATH_PREFIX}seed-{n:04d}.html",
            "strict_path": True,
        }
        lines.append(json.dumps(op))
    with memhtml.open(root, environ=environ) as store:
        result = store.apply(parse_apply_lines(lines))
    return tuple(r.path for r in result.results if r.path is not None)


def run_workers(plans: Sequence[WorkerPlan]) -> list[dict[str, Any]]:
    """Every plan in its own spawned process at once; their results in plan order."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(len(plans), mp_context=context) as pool:
        return list(pool.map(run_worker, plans))


def git_lines(root: Path, *args: str) -> tuple[int, list[str]]:
    """Exit status and output lines of one git command in ``root``."""
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    return done.returncode, (done.stdout + done.stderr).splitlines()


def indexed_hashes(root: Path) -> dict[str, str]:
    """``files.path → content_hash`` read straight from index.db, without catching it up."""
    import sqlean

    uri = f"file:{root / '.memhtml' / 'index.db'}?mode=ro"
    with sqlean.connect(uri, uri=True) as connection:
        return dict(connection.execute("SELECT path, content_hash FROM files").fetchall())


def lost_writes(root: Path, results: Sequence[dict[str, Any]]) -> list[str]:
    """Every acknowledged memory missing from HEAD, the working tree or the index, or held
    there under another content hash, as ``path: what is wrong``."""
    _, tree_lines = git_lines(root, "ls-tree", "-r", "--name-only", "HEAD")
    in_head = set(tree_lines)
    indexed = indexed_hashes(root)
    lost = []
    for result in results:
        for path, content_hash in {**result["live"], **result["archived"]}.items():
            problems = [
                what
                for what, missing in (
                    ("not in HEAD", path not in in_head),
                    ("not in the working tree", not (root / path).is_file()),
                    ("not in the index", path not in indexed),
                    (
                        "another hash in the index",
                        path in indexed and content_hash not in (None, indexed[path]),
                    ),
                )
                if missing
            ]
            if problems:
                lost.append(f"{path}: {', '.join(problems)}")
    return lost


def doctor_says(root: Path, embed: str) -> str:
    """``healthy``, or the concerns of an unhealthy report."""
    import memhtml
    from memhtml.app.use_cases.doctor_verdict import concerns

    environ = {**os.environ, "MEMHTML_EMBED": embed}
    with memhtml.open(root, environ=environ, heal=False, thorough=True) as store:
        report = store.doctor()
    return "healthy" if report.healthy else "; ".join(c.what for c in concerns(report))


def tables(results: Sequence[dict[str, Any]], seconds: float) -> list[str]:
    """Markdown: per op kind throughput and latency, then failures by code."""
    timings: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    failures: collections.Counter[tuple[str, str, str]] = collections.Counter()
    for result in results:
        for kind, elapsed, code in result["calls"]:
            timings[(result["role"], kind)].append(elapsed)
            if code is not None:
                failures[(result["role"], kind, code)] += 1
    lines = [
        "| role | op | calls | per s | p50 ms | p95 ms | failed |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for (role, kind), samples in sorted(timings.items()):
        failed = sum(n for (r, k, _), n in failures.items() if (r, k) == (role, kind))
        lines.append(
            f"| {role} | {kind} | {len(samples)} | {len(samples) / seconds:.2f} "
            f"| {percentile_ms(samples, 50):.0f} | {percentile_ms(samples, 95):.0f} | {failed} |"
        )
    lines += ["", "| role | op | code | count |", "|---|---|---|---:|"]
    lines += [f"| {r} | {k} | {c} | {n} |" for (r, k, c), n in sorted(failures.items())]
    if not failures:
        lines.append("| — | — | no failures | 0 |")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Seed, soak, check; print the report; 1 when something was lost or unexplained."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--seed-memories", type=int, default=300)
    parser.add_argument("--embed", choices=("off", "local"), default="off")
    parser.add_argument("--json", dest="json_path", help="also write the raw summary here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="memhtml-soak-") as directory:
        root = Path(directory) / "store"
        seed = seed_store(root, args.seed_memories, args.embed)
        plans = [
            WorkerPlan(role=role, number=n, root=str(root), seconds=args.seconds, embed=args.embed,
                       seed_paths=seed)
            for role, count in (("writer", args.writers), ("reader", args.readers))
            for n in range(count)
        ]  # fmt: skip
        load_before = loadavg()
        started = time.monotonic()
        results = run_workers(plans)
        wall = time.monotonic() - started
        load_after = loadavg()
        lost = lost_writes(root, results)
        fsck_status, fsck_lines = git_lines(root, "fsck", "--no-progress")
        acknowledged = sum(len(r["live"]) + len(r["archived"]) for r in results)
        doctor = doctor_says(root, args.embed)
    unknown = sum(1 for r in results for *_, code in r["calls"] if code and "ERR_UNKNOWN" in code)
    print(f"`{machine_line()}`\n")
    print(
        f"{args.writers} writers + {args.readers} readers, {args.seconds:.0f} s each "
        f"({wall:.1f} s wall with start-up), {args.seed_memories} seed memories, "
        f"embedding {args.embed}; load average {load_before} before, {load_after} after.\n"
    )
    print("\n".join(tables(results, args.seconds)))
    print(
        f"\nAcknowledged memories checked: {acknowledged}; lost: {len(lost)}; "
        f"git fsck: {'clean' if fsck_status == 0 else 'FAILED'}; doctor afterwards: {doctor}."
    )
    for line in lost[:20] + ([] if fsck_status == 0 else fsck_lines[:20]):
        print(f"- {line}")
    if args.json_path:
        summary = {"lost": lost, "fsck": fsck_status, "doctor": doctor, "results": results}
        Path(args.json_path).write_text(json.dumps(summary) + "\n", encoding="utf-8")
    return 1 if lost or fsck_status != 0 or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
