"""Writers in separate processes on one fresh store: every write lands, once, and is indexed.

Each process has its own SQLite connection and its own view of git; they meet only at the
index lock and HEAD's compare-and-swap (``HeadMoved`` re-plans the losing write) and at SQLite's
busy handling. The workers wait on one barrier so their writes start together.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any, Final

import pytest
from dulwich.repo import Repo

import memhtml
from memhtml.adapters.git.write_lock import RepositoryWriteLock
from memhtml.app.use_cases.listing import ListRequest
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git_writer import HeadMoved
from memhtml.ports.retrieval import SearchRequest

CONSOLE_SCRIPT: Final = Path(sys.executable).parent / "memhtml"
# Long enough for a spawned interpreter to import the package on a loaded machine.
BARRIER_TIMEOUT_S: Final = 60.0
WRITE_TIMEOUT_S: Final = 60.0

# (worker, n, exit code, stdout, stderr) of one write.
Outcome = tuple[int, int, int, str, str]


def _environment() -> dict[str, str]:
    """The test's environment without any MEMHTML_* setting, lexical only."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    return {**env, "MEMHTML_EMBED": "off"}


def _claim(worker: int, n: int) -> str:
    # A word no other memory holds, so a search for it has one right answer.
    return f"Worker {worker} recorded fact {n} under codeword zq{worker}x{n}."


def _cli_lane(root: Path, worker: int, count: int, barrier: threading.Barrier) -> list[Outcome]:
    """Wait for the other lane, then run ``count`` ``memhtml write`` processes one after another.

    A thread only drives the lane: each write is its own ``memhtml`` process, as an agent runs
    it, and the two lanes' processes overlap.
    """
    env = _environment()
    barrier.wait(BARRIER_TIMEOUT_S)
    outcomes = []
    for n in range(count):
        title = f"cli worker {worker} note {n}"
        args = ["write", "--repo", str(root), "--dense", "--type", "semantic", "--title", title]
        done = subprocess.run(
            [str(CONSOLE_SCRIPT), *args, "--claim", _claim(worker, n)],
            capture_output=True,
            text=True,
            env=env,
            timeout=WRITE_TIMEOUT_S,
            check=False,
        )
        outcomes.append((worker, n, done.returncode, done.stdout, done.stderr[-2000:]))
    return outcomes


def _library_worker(root: str, worker: int, count: int, barrier: Barrier, out: Any) -> None:
    """Wait for the others, then write ``count`` memories through one open store, back to back.

    No process start-up between writes, so the commits of the workers overlap far more than
    the command line's do.
    """
    store = memhtml.open(root, environ=_environment(), embedder=False)
    results = []
    try:
        barrier.wait(BARRIER_TIMEOUT_S)
        for n in range(count):
            request = WriteRequest(
                title=f"library worker {worker} note {n}",
                memory_type="semantic",
                claim=_claim(worker, n),
            )
            try:
                written = store.write(request)
            except Exception as error:  # reported to the parent, which fails the test
                results.append((1, "", f"{type(error).__name__}: {error}"))
                continue
            payload = {"data": {"path": written.path, "created": written.created}}
            results.append((0, json.dumps(payload), ""))
    finally:
        store.close()
    out.put((worker, results))


def _run_workers(root: Path, target: Any, workers: int, count: int) -> Iterator[Outcome]:
    """Start the workers (spawned, so nothing is inherited), release them together, and
    yield ``(worker, n, exit code, stdout, stderr)`` for every write."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(workers)
    out = context.Queue()
    processes = [
        context.Process(target=target, args=(str(root), w, count, barrier, out))
        for w in range(workers)
    ]
    for process in processes:
        process.start()
    try:
        # Read before joining: a child blocks on exit until its queued results are read.
        collected = dict(
            out.get(timeout=BARRIER_TIMEOUT_S + workers * count * 30) for _ in processes
        )
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    for worker in range(workers):
        for n, (code, stdout, stderr) in enumerate(collected[worker]):
            yield worker, n, code, stdout, stderr


def _init_store(root: Path) -> None:
    done = subprocess.run(
        [str(CONSOLE_SCRIPT), "init", "--repo", str(root), "--dense"],
        capture_output=True,
        text=True,
        env=_environment(),
        check=False,
    )
    assert 0 == done.returncode, done.stdout


def _commit_count(root: Path) -> int:
    with Repo(str(root)) as repo:
        return sum(1 for _ in repo.get_walker())


def _head_paths(root: Path) -> set[str]:
    with memhtml.open(root, environ=_environment(), embedder=False) as store:
        git = store.services.git
        head = git.head()
        assert head is not None
        return {entry.path for entry in git.list_tree(head)}


def _check_everything_landed(root: Path, outcomes: list[Outcome], commits_before: int) -> None:
    """Every write: exit 0, created; each in HEAD, one commit each, all indexed and found."""
    failures = [(w, n, code, out, err) for w, n, code, out, err in outcomes if code != 0]
    assert [] == failures
    data = [json.loads(stdout)["data"] for _, _, _, stdout, _ in outcomes]
    assert all(d["created"] is True for d in data)
    paths = {d["path"] for d in data}
    assert len(outcomes) == len(paths)
    assert paths <= _head_paths(root)
    assert commits_before + len(outcomes) == _commit_count(root)
    with memhtml.open(root, environ=_environment(), embedder=False) as store:
        store.index_update()
        listed = {f.path for f in store.list(ListRequest(limit=500)).files}
        assert paths <= listed
        for worker, n, _, stdout, _ in outcomes:
            # The codeword is in one file only, so full text puts that file first.
            hits = store.search(SearchRequest(query=f"zq{worker}x{n}")).hits
            assert json.loads(stdout)["data"]["path"] == hits[0].path


@pytest.fixture
def fresh_store(tmp_path: Path) -> Path:
    """A just-initialised store (one commit: the scaffold)."""
    root = tmp_path / "store"
    _init_store(root)
    assert 1 == _commit_count(root)
    return root


def test_concurrent_cli_writes_from_two_processes_all_land(fresh_store: Path) -> None:
    """Two lanes of five `memhtml write` processes, started together: ten commits, none lost."""
    barrier = threading.Barrier(2)
    with ThreadPoolExecutor(max_workers=2) as lanes:
        futures = [lanes.submit(_cli_lane, fresh_store, w, 5, barrier) for w in range(2)]
        outcomes = [outcome for future in futures for outcome in future.result()]
    assert 10 == len(outcomes)
    _check_everything_landed(fresh_store, outcomes, commits_before=1)


def test_concurrent_library_writers_in_three_processes_all_land(fresh_store: Path) -> None:
    """Three processes writing back to back through `memhtml.open`: every write one commit."""
    outcomes = list(_run_workers(fresh_store, _library_worker, workers=3, count=5))
    assert 15 == len(outcomes)
    _check_everything_landed(fresh_store, outcomes, commits_before=1)


def test_a_held_write_lock_makes_another_writer_wait_then_give_up(tmp_path: Path) -> None:
    """A second holder waits; past its timeout it reports a write conflict; then it gets in."""
    first = RepositoryWriteLock(tmp_path / "writer.lock")
    second = RepositoryWriteLock(tmp_path / "writer.lock", timeout_s=0.05)
    with first.held(), pytest.raises(HeadMoved), second.held():
        pass  # never reached: the lock is taken
    with second.held():
        pass


def test_the_write_lock_leaves_no_change_in_status(fresh_store: Path) -> None:
    """The store's lock file is one git ignores, so status stays clean after a write."""
    with memhtml.open(fresh_store, environ=_environment(), embedder=False) as store:
        store.write(WriteRequest(title="T", memory_type="semantic", claim="One fact."))
        assert store.services.settings.write_lock_path.exists()
        assert () == store.services.git.status()
