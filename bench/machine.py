"""The header every benchmark prints, so a number is never separated from where it was taken."""

from __future__ import annotations

import datetime as dt
import os
import platform
import statistics
import sys
from collections.abc import Sequence


def machine_line() -> str:
    """Date, CPU count, platform and Python version in one line."""
    today = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d")
    return (
        f"{today} · {os.cpu_count()} cores · {platform.machine()} {platform.system()} · "
        f"Python {sys.version.split()[0]}"
    )


def median_ms(samples_s: Sequence[float]) -> float:
    """Median of samples taken in seconds, in milliseconds."""
    return statistics.median(samples_s) * 1000.0


def percentile_ms(samples_s: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile of samples taken in seconds, in milliseconds."""
    ordered = sorted(samples_s)
    index = max(0, min(len(ordered) - 1, round(pct / 100.0 * len(ordered)) - 1))
    return ordered[index] * 1000.0


def machine_block() -> dict[str, str]:
    """docs/evaluation.md §C's machine block: where a suite's numbers were taken, as key → value."""
    import shutil
    import subprocess

    import sqlean

    def run(*argv: str) -> str:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return "unknown"
        return done.stdout.strip() or "unknown"

    cpu = "unknown"
    meminfo = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next(
                (ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu
            )
        with open("/proc/meminfo", encoding="utf-8") as f:
            kib = int(next(ln.split()[1] for ln in f if ln.startswith("MemTotal")))
            meminfo = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration, ValueError):
        pass
    disk = shutil.disk_usage(".")
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "cpu": f"{cpu} × {os.cpu_count()} cores",
        "ram": meminfo,
        "disk": f"{disk.total / 1e9:.0f} GB ({disk.free / 1e9:.0f} GB free)",
        "os": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": sys.version.split()[0],
        "sqlite": sqlean.sqlite_version,
        "git": run("git", "--version"),
        "embedder": "all-MiniLM-L6-v2 int8 ONNX, 384 dims, CPU (onnxruntime)",
        "commit": run("git", "rev-parse", "--short", "HEAD"),
    }
