"""The trace scan (issue 20): a first scan of 1,000 transcripts (~200 MB) and a rescan with 10
grown files, as fresh ``memhtml trace scan`` processes: wall time and the process's peak RSS.

Transcripts are generated in both agents' line formats (70 % Claude Code sessions, some with a
subagent file; 30 % Codex CLI rollouts), with assistant turns, tool calls and tool results of
realistic sizes. Rows: the first scan of a fresh store; a rescan of unchanged files (all
skipped); a rescan after 10 files grew by ~20 KB each (10 tails, the rest skipped). Each row is
the median of ``--runs`` interleaved runs. Run: ``.venv/bin/python -m bench.bench_trace``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from bench.machine import machine_line

MEMHTML: Final = Path(sys.executable).with_name("memhtml")
WORDS: Final = [
    "the",
    "build",
    "cache",
    "was",
    "cold",
    "again",
    "so",
    "the",
    "ledger",
    "lock",
    "waited",
    "on",
    "the",
    "export",
    "job",
    "while",
    "checkout",
    "retried",
    "twice",
    "and",
    "the",
    "mobile",
    "release",
    "kept",
    "its",
    "old",
    "timezone",
    "fixture",
]


def _text(rng: random.Random, size: int) -> str:
    out: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)


def _stamp(second: int) -> str:
    minute, sec = divmod(second, 60)
    hour, minute = divmod(minute, 60)
    return f"2025-08-30T{hour % 24:02d}:{minute:02d}:{sec:02d}.123Z"


def claude_lines(rng: random.Random, session: str, target: int, agent: str | None) -> list[str]:
    """A Claude Code session of about ``target`` bytes."""
    envelope: dict[str, object] = {
        "parentUuid": None,
        "isSidechain": agent is not None,
        "userType": "external",
        "cwd": f"/home/ada/code/project-{rng.randrange(40)}",
        "sessionId": session,
        "version": "1.0.98",
        "gitBranch": rng.choice(["main", "fix/tz", "feature/export"]),
        **({"agentId": agent} if agent else {}),
    }
    lines: list[str] = []
    size = second = 0
    while size < target:
        second += rng.randrange(1, 30)
        record: dict[str, object]
        message: dict[str, object]
        base: dict[str, object] = {
            **envelope,
            "uuid": f"{session}-{len(lines)}-{rng.randrange(10**9)}",
            "timestamp": _stamp(second),
        }
        roll = rng.random()
        if roll < 0.08:
            record = {
                **base,
                "type": "user",
                "message": {"role": "user", "content": _text(rng, 160)},
            }
        elif roll < 0.45:
            content = [{"type": "text", "text": _text(rng, rng.randrange(200, 2500))}]
            message = {"role": "assistant", "model": "claude-sonnet-4-20250514", "content": content}
            record = {**base, "type": "assistant", "message": message}
        elif roll < 0.70:
            call = {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "Bash",
                "input": {"command": "pytest -q"},
            }
            message = {"role": "assistant", "model": "claude-sonnet-4-20250514", "content": [call]}
            record = {**base, "type": "assistant", "message": message}
        else:
            result = {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": _text(rng, rng.randrange(300, 6000)),
            }
            record = {**base, "type": "user", "message": {"role": "user", "content": [result]}}
        line = json.dumps(record) + "\n"
        lines.append(line)
        size += len(line)
    return lines


def codex_lines(rng: random.Random, session: str, target: int) -> list[str]:
    """A Codex CLI rollout of about ``target`` bytes."""
    meta = {
        "id": session,
        "timestamp": _stamp(0),
        "cwd": "/home/ada/code/billing",
        "originator": "codex_cli_rs",
        "cli_version": "0.36.0",
        "git": {"branch": "main"},
    }
    lines = [json.dumps({"timestamp": _stamp(0), "type": "session_meta", "payload": meta}) + "\n"]
    size = len(lines[0])
    second = 0
    while size < target:
        second += rng.randrange(1, 30)
        roll = rng.random()
        if roll < 0.06:
            payload: dict[str, object] = {
                "type": "user_message",
                "message": _text(rng, 150),
                "kind": "plain",
            }
            kind = "event_msg"
        elif roll < 0.35:
            payload = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": _text(rng, rng.randrange(200, 2000))}],
            }
            kind = "response_item"
        elif roll < 0.55:
            payload = {
                "type": "function_call",
                "name": "shell",
                "arguments": json.dumps({"command": ["bash", "-lc", "rg export"]}),
                "call_id": "c1",
            }
            kind = "response_item"
        elif roll < 0.85:
            payload = {
                "type": "function_call_output",
                "call_id": "c1",
                "output": _text(rng, rng.randrange(300, 5000)),
            }
            kind = "response_item"
        else:
            payload = {"type": "token_count", "info": None}
            kind = "event_msg"
        line = json.dumps({"timestamp": _stamp(second), "type": kind, "payload": payload}) + "\n"
        lines.append(line)
        size += len(line)
    return lines


def generate(folder: Path, count: int, mean_bytes: int, seed: int = 20) -> list[Path]:
    """``count`` transcripts under ``folder`` in the agents' layouts; returns their paths."""
    rng = random.Random(seed)
    paths: list[Path] = []
    for n in range(count):
        target = int(mean_bytes * rng.uniform(0.3, 1.7))
        session = f"{n:04d}aaaa-5b1d-4c8e-9f00-1a2b3c4d5e6f"
        if n % 10 < 7:
            project = folder / "claude" / f"-home-ada-code-project-{n % 40}"
            project.mkdir(parents=True, exist_ok=True)
            if n % 10 == 0:  # a subagent's file beside the session
                sub = claude_lines(rng, session, target // 4, agent=f"{n:08x}")
                path = project / f"agent-{n:08x}.jsonl"
                path.write_text("".join(sub), encoding="utf-8")
                paths.append(path)
                target -= target // 4
            path = project / f"{session}.jsonl"
            path.write_text("".join(claude_lines(rng, session, target, None)), encoding="utf-8")
        else:
            day = folder / "codex" / "2025" / "09" / f"{1 + n % 28:02d}"
            day.mkdir(parents=True, exist_ok=True)
            path = day / f"rollout-2025-09-01T08-00-00-{session}.jsonl"
            path.write_text("".join(codex_lines(rng, session, target)), encoding="utf-8")
        paths.append(path)
    return paths


def scan_with_rss(store: Path, folder: Path) -> tuple[float, float, dict[str, object]]:
    """One ``memhtml trace scan`` process: wall seconds, its own peak RSS in MiB (from
    ``wait4``, so no other child counts), and its report."""
    env = dict(os.environ, MEMHTML_EMBED="off")
    args = [str(MEMHTML), "--repo", str(store), "--dense", "trace", "scan", str(folder)]
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        child = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if child.returncode != 0:
        raise SystemExit("trace scan failed")
    return wall, usage.ru_maxrss / 1024.0, json.loads(text)["data"]


def init_store(path: Path) -> None:
    """A fresh store at ``path``."""
    env = dict(os.environ, MEMHTML_EMBED="off")
    subprocess.run(
        [str(MEMHTML), "init", "--repo", str(path)], env=env, capture_output=True, check=True
    )


def main(argv: list[str] | None = None) -> None:
    """Print the markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=1000, help="transcripts to generate")
    parser.add_argument("--mean-kb", type=int, default=200, help="mean transcript size, KB")
    parser.add_argument("--grown", type=int, default=10, help="files grown before the rescan")
    parser.add_argument("--runs", type=int, default=3, help="runs per row (medians)")
    args = parser.parse_args(argv)
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"`{machine_line()} · load average {load} (shared machine, 2 noisy cores)`\n")
    root = Path(tempfile.mkdtemp(prefix="bench-trace-"))
    try:
        folder = root / "transcripts"
        paths = generate(folder, args.files, args.mean_kb * 1000)
        total = sum(p.stat().st_size for p in paths)
        rows: dict[str, list[tuple[float, float, dict[str, object]]]] = {
            "first": [],
            "unchanged": [],
            "grown": [],
        }
        rng = random.Random(7)
        for run in range(args.runs):
            store = root / f"store-{run}"
            init_store(store)
            rows["first"].append(scan_with_rss(store, folder))
            rows["unchanged"].append(scan_with_rss(store, folder))
            mains = [p for p in paths if not p.name.startswith("agent-")]
            chosen = rng.sample(mains, args.grown)
            sizes = {path: path.stat().st_size for path in chosen}
            for path in chosen:
                extra = (
                    claude_lines(rng, path.stem, 20_000, None)
                    if path.name.endswith("-1a2b3c4d5e6f.jsonl") and "claude" in path.parts
                    else codex_lines(rng, path.stem[-36:], 20_000)[1:]
                )
                with path.open("a", encoding="utf-8") as handle:
                    handle.write("".join(extra))
            rows["grown"].append(scan_with_rss(store, folder))
            for path, size in sizes.items():  # the next run's first scan reads the same bytes
                os.truncate(path, size)
        print(f"{len(paths)} transcript files, {total / 1e6:.1f} MB; median of {args.runs} runs\n")
        print("| scan | files read | MB read | wall s | MB/s | peak RSS MiB |")
        print("|---|---:|---:|---:|---:|---:|")
        titles = {
            "first": "first scan, fresh store",
            "unchanged": "rescan, nothing changed",
            "grown": f"rescan, {args.grown} files grown ~20 KB",
        }
        for key, samples in rows.items():
            wall = statistics.median(s[0] for s in samples)
            rss = statistics.median(s[1] for s in samples)
            report = samples[-1][2]
            read = int(report["rescanned"]) + int(report["tailed"])  # type: ignore[call-overload]
            megabytes = int(report["bytesRead"]) / 1e6  # type: ignore[call-overload]
            rate = f"{megabytes / wall:.1f}" if megabytes else "—"
            print(f"| {titles[key]} | {read} | {megabytes:.1f} | {wall:.2f} | {rate} | {rss:.0f} |")
        load_after = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        print(f"\nload average after: {load_after}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
