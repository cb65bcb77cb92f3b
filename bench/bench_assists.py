"""What the conflict assist costs an ``apply`` of 500 write ops (issue 21: at most 1.2×).

A store holding ``--loaded`` one-fact memories (each with a number, so each has a frame key)
takes a batch of 500 new writes, half of which restate a loaded relation with another value
(real conflicts to report), through the library's ``apply`` with the real SQLite index. The
same batch is applied with the assist on (``AssistLookup`` over the index) and off (a lookup
that holds no claims: the assist's one query and its comparisons gone, nothing else changed),
each on a fresh copy of the loaded store, the two interleaved ``--runs`` times. Lexical-only
(``MEMHTML_EMBED=off``), so the model's cost does not drown the difference. Prints medians and
the ratio of medians. Run: ``.venv/bin/python -m bench.bench_assists [--runs 7]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import attrs

from bench.machine import machine_line
from memhtml.app.apply_ops import parse_apply_lines
from memhtml.app.store import init_store_at, open_store
from memhtml.app.use_cases.apply import apply_batch
from memhtml.ports.assist_lookup import FrameMatch, NearMatch, NearQuery

OFF: Final = {"MEMHTML_EMBED": "off"}
BATCH: Final = 500
SUBJECTS: Final = ("checkout", "ledger", "billing", "search", "export", "mobile", "gateway")
NOUNS: Final = ("pool", "queue", "cache", "worker", "lock", "timer", "budget", "window")


class NoClaims:
    """An ``AssistLookup`` that holds nothing: the batch with the assist switched off."""

    def active_frames_for(self, keys: Sequence[str]) -> Mapping[str, tuple[FrameMatch, ...]]:
        """No claims."""
        return {}

    def first_chunk_vectors(self, paths: Sequence[str], *, model: str) -> Mapping[str, bytes]:
        """No vectors."""
        return {}

    def active_nearest_for(
        self,
        queries: Sequence[NearQuery],
        *,
        model: str,
        floor: float,
        limit: int,
        exclude_types: Sequence[str] = (),
    ) -> tuple[tuple[NearMatch, ...], ...]:
        """No neighbours."""
        return tuple(() for _ in queries)


def _name(i: int) -> str:
    """A word naming memory ``i`` (letters only: a digit would be a value, not the relation)."""
    letters = ""
    while True:
        i, digit = divmod(i, 26)
        letters += chr(ord("a") + digit)
        if i == 0:
            return "unit-" + letters


def _claim(i: int, value: int) -> tuple[str, str]:
    subject, noun = SUBJECTS[i % len(SUBJECTS)], NOUNS[(i // len(SUBJECTS)) % len(NOUNS)]
    title = f"{subject} {noun} limit {_name(i)}"
    return title, f"The {subject} {noun} {_name(i)} allows {value} requests per minute."


def _lines(indices: Sequence[int], value: int, tag: str) -> list[str]:
    lines = []
    for i in indices:
        title, claim = _claim(i, value)
        lines.append(
            json.dumps(
                {"op": "write", "title": f"{title} {tag}", "type": "semantic", "claim": claim}
            )
        )
    return lines


def _apply(root: Path, lines: list[str], *, assist: bool) -> tuple[float, int]:
    with open_store(root, environ=OFF, embedder=False) as store:
        deps = store.write_deps(embed=False)
        if not assist:
            deps = attrs.evolve(deps, assists=NoClaims())
        ops = parse_apply_lines(lines, None)
        started = time.perf_counter()
        result = apply_batch(deps, ops)
        elapsed = time.perf_counter() - started
    return elapsed, sum(1 for r in result.results if r.conflicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--loaded", type=int, default=500)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="memhtml-bench-assists-"))
    try:
        base = work / "base"
        init_store_at(base, environ=OFF)
        with open_store(base, environ=OFF, embedder=False) as store:
            store.apply(_lines(range(args.loaded), 50, "loaded"), embed=False)
        # Half the batch restates loaded relations with another value; half is new.
        half = BATCH // 2
        batch = _lines(range(half), 80, "new") + _lines(
            range(args.loaded, args.loaded + BATCH - half), 80, "new"
        )
        timings: dict[bool, list[float]] = {True: [], False: []}
        reported: dict[bool, int] = {}
        for run in range(args.runs):
            for assist in (run % 2 == 0, run % 2 == 1):  # alternate which goes first
                copy = work / f"run-{run}-{int(assist)}"
                shutil.copytree(base, copy, symlinks=True)
                elapsed, conflicts = _apply(copy, batch, assist=assist)
                timings[assist].append(elapsed)
                reported[assist] = conflicts
                shutil.rmtree(copy)
        on, off = statistics.median(timings[True]), statistics.median(timings[False])
        with open("/proc/loadavg", encoding="ascii") as f:
            load = " ".join(f.read().split()[:3])
        print(f"`{machine_line()}` · load average {load} (2 shared cores, other agents busy)\n")
        print(
            f"apply of {BATCH} writes over {args.loaded} loaded memories, lexical-only, "
            f"median of {args.runs} interleaved runs each\n"
        )
        print("| assist | median | conflicts reported |")
        print("|---|---:|---:|")
        print(f"| off (no claims) | {off:.3f} s | {reported[False]} |")
        print(f"| on | {on:.3f} s | {reported[True]} |")
        print(f"\nratio on/off: {on / off:.3f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
