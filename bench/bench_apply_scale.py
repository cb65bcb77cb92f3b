"""Does an apply batch cost more as the store grows? (issue 17, item 5)

Grows one store per tool to ``--files`` memories through the command line, ``--batch`` new
write ops per ``apply`` (each a fresh process, lexical, ``MEMHTML_EMBED=off``), timing every
batch: wall, and CPU of the process (user + system; steadier on a shared box). The two tools
take turns batch by batch, so a noisy neighbour slows both alike. Prints the median batch time
over the first and the last ``--window`` batches and their ratio (1.0 = flat). With
``--original`` (see ``bench.side_by_side``) the original tool is grown and timed the same way;
without it only this tool is.

Run: ``.venv/bin/python -m bench.bench_apply_scale [--files 10000] [--batch 500]
[--original PATH --node PATH] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

from bench.machine import machine_line
from bench.side_by_side import PYTHON_CLI, Tool, load_average, ops, original_argv

Series = dict[str, list[tuple[int, float, float]]]
"""tool -> ``(store size before the batch, wall s, CPU s)`` per batch."""


def grow(tools: list[Tool], files: int, batch: int, scratch: Path) -> Series:
    """Each tool's timings of every batch, in turns."""
    roots = {tool.name: scratch / f"{tool.name}-store" for tool in tools}
    for tool in tools:
        tool.run(roots[tool.name], "init")
    timings: Series = {tool.name: [] for tool in tools}
    for number, offset in enumerate(range(0, files, batch)):
        lines = ops(min(batch, files - offset), offset)
        order = tools if number % 2 == 0 else list(reversed(tools))
        for tool in order:
            wall, cpu = tool.timed(roots[tool.name], "apply", "--file", "-", stdin=lines)
            timings[tool.name].append((offset, wall, cpu))
        if number % 4 == 3:
            print(f"{offset + batch:,} files, load {load_average()}", file=sys.stderr)
    return timings


def main() -> int:
    """Grow the stores and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--original", default=os.environ.get("MEMHTML_ORIGINAL"))
    parser.add_argument("--node", default=os.environ.get("MEMHTML_ORIGINAL_NODE"))
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--window", type=int, default=4, help="batches per end of the curve")
    parser.add_argument("--keep", type=Path, help="grow the stores here and keep them")
    args = parser.parse_args()
    env = {
        **os.environ,
        "MEMHTML_EMBED": "off",
        "MEMHTML_LLM": "off",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@localhost.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@localhost.invalid",
    }
    tools = [Tool("python", [str(PYTHON_CLI)], env)]
    argv = original_argv(args.original, args.node)
    if argv is not None:
        tools.append(Tool("original", argv, env))
    before = load_average()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        timings = grow(tools, args.files, args.batch, args.keep)
    else:
        with tempfile.TemporaryDirectory() as scratch:
            timings = grow(tools, args.files, args.batch, Path(scratch))
    print(machine_line())
    print(f"load average before: {before}; after: {load_average()}")
    print()
    window = args.window
    print(
        f"| tool | time | {args.batch}-op apply, first {window} batches (median s) "
        f"| last {window} batches, up to {args.files:,} files (median s) | last / first |"
    )
    print("|---|---|---:|---:|---:|")
    for name, series in timings.items():
        for which, label in ((1, "wall"), (2, "CPU")):
            first = statistics.median(row[which] for row in series[:window])
            last = statistics.median(row[which] for row in series[-window:])
            print(f"| {name} | {label} | {first:.3f} | {last:.3f} | {last / first:.2f}× |")
    print()
    print("every batch, [store size before it, wall s, CPU s]:")
    rounded = {
        name: [[size, round(wall, 4), round(cpu, 4)] for size, wall, cpu in series]
        for name, series in timings.items()
    }
    print(json.dumps(rounded))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
