"""A killed ``index rebuild`` leaves no process behind: its fork-pool parse workers die with it,
whether it was killed while they parsed or between two of the batches it streams.

Before, each kill left both workers running for good (they hold a copy of the pool's pipes, so
they never read EOF, and of the database files). Read from ``/proc``: no psutil here.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Final

from memhtml.app.indexing.parse_pool import DEFAULT_POOL_MIN_FILES, DEFAULT_WORKERS
from memhtml.app.indexing.rebuild import PROJECTION_BATCH
from tests.faults.harness import (
    assert_recovered,
    cli_command,
    invoke,
    jsonl,
    ok,
    process_env,
    run_killed_at,
    write_op,
)

WAIT_S: Final = 60.0
POLL_S: Final = 0.01
GRACE_S: Final = 5.0


def children(pid: int) -> dict[int, bytes]:
    """Live children of ``pid``, each with its start time (so a reused pid is not mistaken)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = _stat(int(entry))
            if stat is not None and int(stat[1]) == pid and stat[0] != b"Z":
                found[int(entry)] = stat[19]
    return found


def alive(pid: int, start: bytes) -> bool:
    """Whether the process that started at ``start`` still runs (a zombie does not)."""
    stat = _stat(pid)
    return stat is not None and stat[19] == start and stat[0] != b"Z"


def _stat(pid: int) -> list[bytes] | None:
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return data[data.rindex(b")") + 2 :].split()


def test_killed_rebuild_leaves_no_worker_alive(tmp_path: Path) -> None:
    """kill -9 of a rebuild while its parse pool runs: every worker is gone within seconds,
    and the store recovers."""
    root = tmp_path / "store"
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    memories = DEFAULT_POOL_MIN_FILES + 40
    ok(root, "apply", stdin=jsonl([write_op(n) for n in range(memories)]))
    rebuild = subprocess.Popen(
        cli_command(root, ["index", "rebuild"]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=process_env(),
    )
    deadline = time.monotonic() + WAIT_S
    workers: dict[int, bytes] = {}
    while len(workers) < DEFAULT_WORKERS and time.monotonic() < deadline:
        assert rebuild.poll() is None, "the rebuild ended before its pool started"
        workers = children(rebuild.pid)
        time.sleep(POLL_S)
    assert DEFAULT_WORKERS == len(workers)
    rebuild.send_signal(signal.SIGKILL)
    assert -signal.SIGKILL == rebuild.wait()
    deadline = time.monotonic() + GRACE_S
    while any(alive(pid, start) for pid, start in workers.items()):
        assert time.monotonic() < deadline, f"workers outlived their parent: {workers}"
        time.sleep(POLL_S)
    assert_recovered(root)


def test_a_rebuild_killed_between_streamed_batches_leaves_no_worker_and_recovers(
    tmp_path: Path,
) -> None:
    """kill -9 right after the second of three batches was written, the pool's workers still
    holding the third: no worker outlives the rebuild, and the store recovers to an index
    equal to a fresh rebuild (``assert_recovered`` checks both)."""
    root = tmp_path / "store"
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    memories = PROJECTION_BATCH * 2 + 40
    assert memories > DEFAULT_POOL_MIN_FILES  # so the rebuild streams through the pool
    ok(root, "apply", stdin=jsonl([write_op(n) for n in range(memories)]))
    run_killed_at(root, "rebuild.batch:2", ["index", "rebuild"])
    assert_recovered(root)
    assert memories == ok(root, "index", "status")["files"]
