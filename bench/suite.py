"""``make bench``: every benchmark and both evals in one run; BENCHMARKS.md updated from it.

Each entry runs as its own process (a fresh interpreter per benchmark, so one cannot warm the
next), its stdout saved under ``bench/results/<name>.<ext>``, and its command, wall time and exit
status recorded in ``bench/results/suite.json`` with the machine block of docs/evaluation.md §C. The
"Latest suite run" section of BENCHMARKS.md (between the two ``bench-suite`` markers) is then
rewritten from those results; the hand-written analysis around it is left alone.

``--quick`` runs the same entries at small sizes, to check the suite itself works (minutes, not
the better part of an hour). ``--only a,b`` runs the named entries.

Run: ``.venv/bin/python -m bench.suite [--quick] [--only parse,gate-fake]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

import attrs

from bench.machine import machine_block
from bench.suite_report import render_section, replace_section

ROOT: Final = Path(__file__).resolve().parent.parent
RESULTS: Final = ROOT / "bench" / "results"
BENCHMARKS_MD: Final = ROOT / "BENCHMARKS.md"
PY: Final = sys.executable
MEMHTML: Final = str(Path(sys.executable).with_name("memhtml"))


@attrs.frozen
class Entry:
    """One benchmark: its name, its full and quick command lines, the kind of output it prints."""

    name: str
    title: str
    full: tuple[str, ...]
    quick: tuple[str, ...]
    output: str = "md"  # "md" for a markdown table, "json" for an eval envelope


def _bench(module: str, *args: str) -> tuple[str, ...]:
    return (PY, "-m", f"bench.{module}", *args)


def _eval(*args: str) -> tuple[str, ...]:
    return (MEMHTML, "eval", *args)


_SMALL_GATE: Final = ("--size", "60", "--probes", "12")
# The ablations, run on both evals side by side: the original tool's fold (the constants
# before the evals chose k = 20, vector 0.5, stopwords dropped), gated priors, the query arms alone,
# and the porter stemmer.
ABLATIONS: Final = (
    (
        "seed-fold",
        "the original tool's fold",
        ("--rrf-k", "60", "--weights", "vector=1", "--no-fts-stopwords"),
    ),
    ("gate-priors", "--gate-priors", ("--gate-priors",)),
    ("query-arms", "--arms fts,vector", ("--arms", "fts,vector")),
    ("porter", "porter stemmer", ("--fts-tokenizer", "porter")),
)
_ONE_CONVERSATION: Final = ("--conversations", "1")

SUITE: Final[tuple[Entry, ...]] = (
    Entry(
        "parse", "Parsing (issue 3)",
        _bench("bench_parse"), _bench("bench_parse", "--runs", "20", "--large-runs", "3"),
    ),
    Entry(
        "index", "P1/P2 rebuild and update",
        _bench("bench_index"), _bench("bench_index", "--sizes", "300", "--runs", "1"),
    ),
    Entry(
        "search", "P3 warm search and recall",
        _bench("bench_search"),
        _bench("bench_search", "--sizes", "1000", "--queries", "5", "--repeats", "1"),
    ),
    Entry(
        "arm-cost", "What the session arm costs a warm search (issue 13)",
        _bench("bench_arm_cost"),
        _bench("bench_arm_cost", "--size", "500", "--queries", "3", "--rounds", "1"),
    ),
    Entry(
        "long-query", "Bounds on one query (issue 14)",
        _bench("bench_long_query"),
        _bench("bench_long_query", "--size", "1000", "--runs", "2", "--no-model"),
    ),
    Entry(
        "vectors", "Vector arm storage",
        _bench("bench_vectors"), _bench("bench_vectors", "--sizes", "2000", "--queries", "3"),
    ),
    Entry(
        "embed", "Local embedder",
        _bench("bench_embed"), _bench("bench_embed", "--texts", "8", "--repeats", "1"),
    ),
    Entry("cli", "P4/P5 cold CLI, apply, write", _bench("bench_cli"), _bench("bench_cli")),
    Entry(
        "soak", "Soak: 4 writers + 4 readers, 120 s (issue 14)",
        _bench("bench_soak"),
        _bench("bench_soak", "--seconds", "10", "--seed-memories", "50"),
    ),
    Entry(
        "assists", "Conflict assist: apply of 500 writes, on vs off (issue 21)",
        _bench("bench_assists"), _bench("bench_assists", "--runs", "1", "--loaded", "50"),
    ),
    Entry(
        "near-duplicates",
        "Write-time assists with the model: embedding apply of 500 writes, on vs off (issue 21)",
        _bench("bench_near_duplicates", "--runs", "7"),
        _bench("bench_near_duplicates", "--runs", "1", "--loaded", "20", "--batch", "20"),
    ),
    Entry(
        "mcp", "MCP server round trip and start-up (issue 16)",
        _bench("bench_mcp"),
        _bench("bench_mcp", "--memories", "200", "--calls", "20", "--starts", "2"),
    ),
    Entry(
        "trace", "Trace scan: 1,000 transcripts, then 10 grown (issue 20)",
        _bench("bench_trace"),
        _bench("bench_trace", "--files", "100", "--mean-kb", "50", "--runs", "1"),
    ),
    Entry(
        "sync", "Sync: 100 remote memories into 10k, no-op sync against one git fetch (issue 19)",
        _bench("bench_sync"),
        _bench("bench_sync", "--size", "300", "--incoming", "20", "--runs", "1"),
    ),
    *(
        Entry(
            f"gate-{mode}", f"Gate, default seed, {mode}",
            _eval("discriminate", "--mode", mode),
            _eval("discriminate", "--mode", mode, *_SMALL_GATE), "json",
        )
        for mode in ("fake", "local", "lexical")
    ),
    *(
        Entry(
            f"gate-sweep-{mode}", f"Gate, seeds 1–20, {mode}",
            _eval("discriminate", "--mode", mode, "--seeds", "1-20"),
            _eval("discriminate", "--mode", mode, "--seeds", "1-2", *_SMALL_GATE), "json",
        )
        for mode in ("fake", "local")
    ),
    Entry(
        "gate-size-400", "Gate, size 400, fake",
        _eval("discriminate", "--size", "400"), _eval("discriminate", *_SMALL_GATE), "json",
    ),
    Entry(
        "gate-size-800", "Gate, size 800, 60 probes, fake",
        _eval("discriminate", "--size", "800", "--probes", "60"),
        _eval("discriminate", *_SMALL_GATE), "json",
    ),
    *(
        Entry(
            f"gate-{name}", f"Gate ablation, default seed, fake: {title}",
            _eval("discriminate", *args), _eval("discriminate", *args, *_SMALL_GATE), "json",
        )
        for name, title, args in ABLATIONS
    ),
    *(
        Entry(
            f"locomo-{name}", f"LoCoMo, {title}",
            _eval("locomo", *args), _eval("locomo", *args, *_ONE_CONVERSATION), "json",
        )
        for name, title, args in (
            ("lexical", "lexical", ("--mode", "lexical")),
            ("hybrid", "hybrid (local model), defaults", ("--mode", "hybrid")),
            *((n, f"hybrid, {t}", ("--mode", "hybrid", *a)) for n, t, a in ABLATIONS),
        )
    ),
)  # fmt: skip


def run_entry(entry: Entry, *, quick: bool) -> dict[str, object]:
    """Run one entry, save its stdout, and return its record for suite.json."""
    argv = entry.quick if quick else entry.full
    print(f"[bench] {entry.name}: {_display(argv)}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    out = RESULTS / f"{entry.name}.{entry.output}"
    out.write_text(done.stdout, encoding="utf-8")
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        print(f"[bench] {entry.name} exited {done.returncode}:\n{tail}", file=sys.stderr)
    return {
        "name": entry.name,
        "title": entry.title,
        "command": _display(argv),
        "seconds": round(seconds, 1),
        "exitCode": done.returncode,
        "output": out.name,
    }


def _display(argv: tuple[str, ...]) -> str:
    """The command as a person would type it from the project root."""
    head = ".venv/bin/memhtml" if argv[0] == MEMHTML else ".venv/bin/python"
    return " ".join((head, *argv[1:]))


def main(argv: list[str] | None = None) -> int:
    """Run the suite (or part of it), write results and refresh BENCHMARKS.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes: check the suite runs")
    parser.add_argument("--only", default="", help="comma-separated entry names")
    args = parser.parse_args(argv)
    chosen = {name for name in args.only.split(",") if name}
    unknown = chosen - {entry.name for entry in SUITE}
    if unknown:
        parser.error(f"unknown entries: {', '.join(sorted(unknown))}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    records = [
        run_entry(entry, quick=args.quick) for entry in SUITE if not chosen or entry.name in chosen
    ]
    suite = {"machine": machine_block(), "quick": args.quick, "entries": records}
    (RESULTS / "suite.json").write_text(json.dumps(suite, indent=2) + "\n", encoding="utf-8")
    section = render_section(suite, RESULTS)
    BENCHMARKS_MD.write_text(
        replace_section(BENCHMARKS_MD.read_text(encoding="utf-8"), section), encoding="utf-8"
    )
    # A failing gate exits 1 with its envelope: that is a result. Anything else is a broken run.
    failed = [r["name"] for r in records if r["exitCode"] not in (0, 1)]
    print(f"[bench] done; failed: {', '.join(map(str, failed)) or 'none'}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
