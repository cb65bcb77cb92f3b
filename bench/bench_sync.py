"""``memhtml sync`` against a bare repository on disk (issue 19's targets).

Builds a store of ``--size`` generated memories, pushes it to a bare remote and copies it as a
second machine. Then, per run: the first machine commits ``--incoming`` new memories and
pushes; a fresh copy of the second machine syncs them in, once as a fast-forward and once as
a merge (it has one commit of its own), timed around ``Store.sync`` (fetch, merge, branch move,
push, lexical index catch-up, state import). The template the copies come from syncs after
each timed sync, so every copy is exactly ``--incoming`` memories behind (before, the n-th
copy was n times that behind). Last, a no-op sync is timed against one ``git fetch`` of the
same remote by the system git, interleaved. Copies get their git index's stat data refreshed
first (``copied``), as a real clone's would be.

    PYTHONPATH=. .venv/bin/python -m bench.bench_sync --size 10000 --incoming 100 --runs 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Final

from dulwich.refs import Ref
from dulwich.repo import Repo

from bench.bench_index import memory_file
from bench.machine import machine_line, median_ms
from memhtml.adapters.git import DulwichGit, DulwichGitWriter
from memhtml.app.store import Store, init_store_at, open_store
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git_writer import ChangeSet, FileWrite

ENV: Final = {"MEMHTML_EMBED": "off"}


def path_of(index: int) -> str:
    return f"areas/topic-{index % 40:02d}/s{index:06d}.html"


def commit_memories(root: Path, start: int, count: int) -> None:
    """One commit of ``count`` new generated memories on ``root``'s HEAD."""
    writes = tuple(
        FileWrite(path=path_of(i), data=memory_file(i)) for i in range(start, start + count)
    )
    DulwichGitWriter(root).commit(
        ChangeSet(writes=writes), "bench", expected_head=DulwichGit(root).head()
    )


def copied(source: Path, target: Path) -> None:
    """A copy of a machine whose git index vouches for its files, as a real clone's does.

    ``copytree`` gives every file a new ctime, so the index's stat data no longer matches and
    every status walk would hash all files (the profile showed it as nearly all of a no-op
    sync). System git refreshes the stat data once, a second after the copy so no entry is
    racily clean.
    """
    shutil.copytree(source, target, symlinks=True)
    time.sleep(1.1)
    subprocess.run(["git", "-C", str(target), "update-index", "-q", "--refresh"], check=False)


def opened(root: Path) -> Store:
    return open_store(root, environ=ENV, embedder=False)


def timed_sync(root: Path) -> tuple[float, str]:
    with opened(root) as store:
        start = time.perf_counter()
        result = store.sync()
        return time.perf_counter() - start, result.action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--incoming", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    with tempfile.TemporaryDirectory(prefix="bench-sync-") as scratch:
        top = Path(scratch)
        remote = top / "remote.git"
        remote.mkdir()
        with Repo.init_bare(str(remote)) as bare:
            bare.refs.set_symbolic_ref(Ref(b"HEAD"), Ref(b"refs/heads/main"))
        first = top / "a"
        init_store_at(first, environ=ENV)
        commit_memories(first, 0, args.size)
        with opened(first) as store:
            store.index_update()
            store.set_remote(str(remote))
            store.sync()
        template = top / "b-template"
        shutil.copytree(first, template, symlinks=True)
        rows: dict[str, list[float]] = {"fast-forward": [], "merge": []}
        next_index = args.size
        for run in range(args.runs):
            for kind in ("fast-forward", "merge"):
                machine = top / f"b-{run}-{kind}"
                copied(template, machine)
                if kind == "merge":
                    with opened(machine) as store:
                        store.write(
                            WriteRequest(
                                title=f"Local {run}", memory_type="semantic", claim=f"Local {run}."
                            )
                        )
                commit_memories(first, next_index, args.incoming)
                next_index += args.incoming
                with opened(first) as store:
                    store.sync()
                seconds, action = timed_sync(machine)
                assert action == ("fast-forward" if kind == "fast-forward" else "merged"), action
                rows[kind].append(seconds)
                shutil.rmtree(machine)
                # The next copy must be exactly ``--incoming`` memories behind the remote.
                with opened(template) as store:
                    store.sync()
        idle = top / "b-idle"
        copied(template, idle)
        with opened(idle) as store:
            store.sync()
        noop, fetch = [], []
        for _ in range(max(5, args.runs)):
            seconds, action = timed_sync(idle)
            assert action == "up-to-date", action
            noop.append(seconds)
            start = time.perf_counter()
            subprocess.run(["git", "-C", str(idle), "fetch", "-q", str(remote), "main"], check=True)
            fetch.append(time.perf_counter() - start)
    with open("/proc/loadavg", encoding="ascii") as load:
        loadavg = " ".join(load.read().split()[:3])
    print(f"# {machine_line()} · load {loadavg} · 2 shared noisy cores")
    print(f"# store {args.size} memories, {args.incoming} incoming per sync, {args.runs} runs")
    for kind, samples in rows.items():
        print(f"sync {kind:13s} median {median_ms(samples):8.1f} ms  runs {len(samples)}")
    print(f"sync no-op        median {median_ms(noop):8.1f} ms  runs {len(noop)}")
    print(f"git fetch (no-op) median {median_ms(fetch):8.1f} ms  runs {len(fetch)}")


if __name__ == "__main__":
    main()
