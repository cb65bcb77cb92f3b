"""This tool against the original TypeScript one, on one generated corpus, timed in turns.

Both command lines get the same apply ops (title, type, a body whose first sentence is the
claim, a tag), the same queries and ``MEMHTML_EMBED=off MEMHTML_LLM=off``. Every number is a
fresh process, as an agent calling either CLI pays it. Measures, each once per tool per round,
the order of the two tools alternating from round to round (ABBA…) so a noisy neighbour slows
both alike:

- ``apply`` of ``--apply-ops`` ops into a fresh store (``init`` not timed);
- ``index rebuild --no-embed --force`` of a store built from ``--files`` ops;
- a cold ``search`` in that store, a different query each round;
- ``--help``.

Then the medians and the ratio this tool / the original, of wall time and of CPU time (user +
system of the process and everything it waited for; steadier than wall on a shared box).
The original is never part of this project: it is run from where it was installed, named by
``--original`` (its CLI entry file, run with ``--node``, or any executable) or
``$MEMHTML_ORIGINAL`` (and ``$MEMHTML_ORIGINAL_NODE``).
Without it the script says so and exits 0 (CI has no Node).

Run: ``.venv/bin/python -m bench.side_by_side --original /path/to/memhtml.mjs
--node /path/to/node [--rounds 7]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from bench.machine import machine_line

PYTHON_CLI: Final = Path(sys.executable).with_name("memhtml")
TOPICS: Final = ("billing", "search", "checkout", "ledger", "catalog", "release", "mobile", "ops")
QUERIES: Final = (
    "which shard keeps setting 42",
    "billing pipeline review",
    "ledger value for shard 7",
    "catalog owners agreed",
    "release service setting",
    "mobile retry budget",
    "checkout shard value",
)
BATCH: Final = 500


def ops(count: int, offset: int = 0) -> str:
    """``count`` write ops as JSONL, every one distinct; the same for both tools."""
    lines = []
    for i in range(offset, offset + count):
        topic = TOPICS[i % len(TOPICS)]
        body = (
            f"The {topic} service keeps setting {i} at value {i * 7 % 1000} for shard {i % 13}. "
            f"Observed during review {i // 10} of the {topic} pipeline, after the change "
            f"window {i % 17} closed."
        )
        lines.append(
            json.dumps(
                {
                    "op": "write",
                    "title": f"{topic} fact number {i}",
                    "type": "semantic",
                    "body": body,
                    "tag": topic,
                }
            )
        )
    return "\n".join(lines) + "\n"


class Tool:
    """One command line and the environment it runs in."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        """Name the tool, its argv prefix and its environment."""
        self.name = name
        self.argv = argv
        self.env = env

    def run(self, root: Path, *args: str, stdin: str | None = None) -> float:
        """Wall seconds of one command in the store at ``root``; a failure stops the bench."""
        return self.timed(root, *args, stdin=stdin)[0]

    def timed(self, root: Path, *args: str, stdin: str | None = None) -> tuple[float, float]:
        """Wall and CPU (user + system, every thread and child) seconds of one command.

        On a box shared with other work the CPU figure is the steadier one: waiting for a
        core does not count in it.
        """
        env = {**self.env, "MEMHTML_ROOT": str(root)}
        before = _children_cpu()
        start = time.perf_counter()
        done = subprocess.run(
            [*self.argv, *args], env=env, input=stdin, capture_output=True, text=True, check=False
        )
        elapsed = time.perf_counter() - start
        cpu = _children_cpu() - before
        if done.returncode != 0:
            raise SystemExit(
                f"{self.name} {' '.join(args)} exited {done.returncode}: {done.stdout[:300]}"
            )
        return elapsed, cpu


def _children_cpu() -> float:
    """User + system seconds of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def original_argv(original: str | None, node: str | None) -> list[str] | None:
    """The original's argv prefix, or ``None`` when it is not installed here."""
    if not original or not Path(original).exists():
        return None
    if original.endswith((".mjs", ".js", ".cjs")):
        runtime = node or shutil.which("node")
        if runtime is None or not Path(runtime).exists():
            return None
        return [runtime, original]
    return [original]


def load_average() -> str:
    """The first three fields of ``/proc/loadavg``."""
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])
    except OSError:
        return "unknown"


def build_store(tool: Tool, root: Path, files: int) -> None:
    """A store at ``root`` holding ``files`` memories, written through ``apply``."""
    tool.run(root, "init")
    for offset in range(0, files, BATCH):
        tool.run(root, "apply", "--file", "-", stdin=ops(min(BATCH, files - offset), offset))


Samples = dict[str, dict[str, list[tuple[float, float]]]]
"""measure -> tool -> ``(wall s, CPU s)`` per round."""


def measure(tools: list[Tool], rounds: int, files: int, apply_ops: int, scratch: Path) -> Samples:
    """Every measure, ``rounds`` times per tool, alternating which tool goes first."""
    samples: Samples = {
        measure: {tool.name: [] for tool in tools}
        for measure in ("apply", "rebuild", "search", "help")
    }
    stores = {tool.name: scratch / f"{tool.name}-store" for tool in tools}
    for tool in tools:
        build_store(tool, stores[tool.name], files)
    batch = ops(apply_ops, offset=10 * files)
    for round_ in range(rounds):
        order = tools if round_ % 2 == 0 else list(reversed(tools))
        for tool in order:
            fresh = scratch / f"{tool.name}-apply-{round_}"
            tool.run(fresh, "init")
            samples["apply"][tool.name].append(
                tool.timed(fresh, "apply", "--file", "-", stdin=batch)
            )
            shutil.rmtree(fresh, ignore_errors=True)
        for tool in order:
            samples["rebuild"][tool.name].append(
                tool.timed(stores[tool.name], "index", "rebuild", "--no-embed", "--force")
            )
        query = QUERIES[round_ % len(QUERIES)]
        for tool in order:
            samples["search"][tool.name].append(tool.timed(stores[tool.name], "search", query))
        for tool in order:
            samples["help"][tool.name].append(tool.timed(stores[tool.name], "--help"))
        print(f"round {round_ + 1}/{rounds} done, load {load_average()}", file=sys.stderr)
    return samples


def median(samples: list[tuple[float, float]], which: int) -> float:
    """The median wall (``which`` 0) or CPU (1) seconds."""
    return statistics.median(sample[which] for sample in samples)


def main() -> int:
    """Run both tools and print the table; exit 0 with a note when the original is absent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--original", default=os.environ.get("MEMHTML_ORIGINAL"))
    parser.add_argument("--node", default=os.environ.get("MEMHTML_ORIGINAL_NODE"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--files", type=int, default=1000, help="memories in the rebuild store")
    parser.add_argument("--apply-ops", type=int, default=500)
    args = parser.parse_args()
    argv = original_argv(args.original, args.node)
    if argv is None:
        print(
            "side_by_side: skipped: the original tool is not installed here "
            "(give --original PATH [--node PATH] or set MEMHTML_ORIGINAL)."
        )
        return 0
    env = {
        **os.environ,
        "MEMHTML_EMBED": "off",
        "MEMHTML_LLM": "off",
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@localhost.invalid",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@localhost.invalid",
    }
    tools = [Tool("python", [str(PYTHON_CLI)], env), Tool("original", argv, env)]
    before = load_average()
    with tempfile.TemporaryDirectory() as scratch:
        samples = measure(tools, args.rounds, args.files, args.apply_ops, Path(scratch))
    after = load_average()
    print(machine_line())
    print(f"load average before: {before}; after: {after}")
    print(f"original: {' '.join(argv)}")
    print()
    print(
        "| measure | this tool, wall (median s) | original, wall | this / original, wall "
        "| this tool, CPU (median s) | original, CPU | this / original, CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    names = {
        "apply": f"apply {args.apply_ops} ops, lexical, fresh store",
        "rebuild": f"index rebuild --no-embed, {args.files:,} files",
        "search": f"cold search, {args.files:,} files",
        "help": "--help",
    }
    for key, label in names.items():
        cells = []
        for which in (0, 1):
            ours = median(samples[key]["python"], which)
            theirs = median(samples[key]["original"], which)
            cells.append(f"{ours:.3f} | {theirs:.3f} | {ours / theirs:.2f}×")
        print(f"| {label} | {' | '.join(cells)} |")
    print()
    print(f"rounds: {args.rounds}; each sample [wall s, CPU s], in round order:")
    rounded = {
        key: {name: [[round(w, 4), round(c, 4)] for w, c in runs] for name, runs in by.items()}
        for key, by in samples.items()
    }
    print(json.dumps(rounded))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
