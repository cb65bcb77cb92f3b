"""The pieces of crash recovery in the git adapter: the re-entrant writers' lock, who counts as
a live writer, which index lock a journal claims, and that looking changes nothing."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path
from threading import Thread

import attrs
import pytest

from memhtml.adapters.git import journal as journals
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.adapters.git.write_lock import RepositoryWriteLock
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.faults.harness import build_base, doctor_report, jsonl, run_killed_at, write_op


def test_the_writers_lock_nests_in_one_thread_and_excludes_others(tmp_path: Path) -> None:
    """A commit inside a mutation takes the lock again without waiting on itself; another
    thread meanwhile finds it taken, and free once released."""
    lock = RepositoryWriteLock(tmp_path / "writer.lock", timeout_s=1.0)
    seen: list[bool] = []

    def probe() -> None:
        with RepositoryWriteLock(tmp_path / "writer.lock").held_if_free() as held:
            seen.append(held)

    with lock.held(), lock.held():
        other = threading.Thread(target=probe)
        other.start()
        other.join()
    probe()
    assert [False, True] == seen


def test_a_writer_is_alive_only_while_its_process_and_thread_are(tmp_path: Path) -> None:
    """The calling thread counts as gone (it is recovering, not committing); another live
    thread or process counts as alive; an exited process, or a pid reused by another start
    time, does not."""
    me = journals.current_owner()
    gate = threading.Event()
    thread = threading.Thread(target=gate.wait)
    thread.start()
    sleeper = subprocess.Popen(["sleep", "30"])
    exited = subprocess.Popen(["true"])
    exited.wait()
    try:
        other_thread = attrs.evolve(me, thread=thread.ident or 0)
        live = journals.Owner(pid=sleeper.pid, start=None, thread=1)
        live_with_start = attrs.evolve(live, start=journals.current_owner().start)
        verdicts = [
            journals.is_alive(me),
            journals.is_alive(other_thread),
            journals.is_alive(live),
            journals.is_alive(journals.Owner(pid=exited.pid, start=None, thread=1)),
            journals.is_alive(live_with_start),
        ]
    finally:
        gate.set()
        thread.join()
        sleeper.kill()
        sleeper.wait()
    assert [False, True, True, False, False] == verdicts


def test_a_journal_claims_its_own_lock_and_no_later_one(tmp_path: Path) -> None:
    """By inode once recorded (not once renamed over the index); before that, by time."""
    index, lock = tmp_path / "index", tmp_path / "index.lock"
    index.write_bytes(b"old index")
    journal = journals.begin(tmp_path, ref="refs/heads/main", old=None)
    lock.write_bytes(b"")
    by_time = journals.claims_lock(journal, lock, index)
    recorded = attrs.evolve(journal, lock_inode=lock.stat().st_ino)
    by_inode = journals.claims_lock(recorded, lock, index)
    os.replace(lock, index)
    lock.write_bytes(b"")  # a git command's, taken after the writer's lock became the index
    later = journals.claims_lock(recorded, lock, index)
    stale = attrs.evolve(journal, started_ns=time.time_ns() + 10**10)
    assert [True, True, False, False] == [
        by_time,
        by_inode,
        later,
        journals.claims_lock(stale, lock, index),
    ]


@pytest.mark.parametrize("step", ["commit.prepared", "commit.ref"])
def test_plain_doctor_changes_nothing_after_a_killed_commit(tmp_path: Path, step: str) -> None:
    """Looking is not repairing: .git and the working tree stay byte-identical."""
    store = build_base(tmp_path / "store", memories=4)
    run_killed_at(store.root, step, ["apply"], stdin=jsonl([write_op(n) for n in (50, 51)]))
    before = snapshot(store.root)
    report = doctor_report(store.root)
    assert (False, before) == (report["healthy"], snapshot(store.root))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` but the databases and their side files."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and ".memhtml/index.db" not in str(path)
        and ".memhtml/state.db" not in str(path)
    }


def _store_with_one_commit(root: Path) -> tuple[DulwichGitWriter, Path, str]:
    writer = DulwichGitWriter(root, env={})
    writer.init()
    changes = ChangeSet(writes=(FileWrite(path="areas/seed.html", data=b"seed"),))
    head = writer.commit(changes, "seed", expected_head=None)
    return writer, root / ".git", head


def _writer_holding_the_index_lock(git_dir: Path, head: str, release: threading.Event) -> Thread:
    """A live writer (its own thread and journal) that holds ``index.lock`` until released."""
    holding = threading.Event()

    def hold() -> None:
        journal = journals.begin(git_dir, ref="refs/heads/main", old=head)
        (git_dir / "index.lock").write_bytes(b"")
        holding.set()
        release.wait()
        (git_dir / "index.lock").unlink()
        journals.remove(journal)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait()
    return thread


def test_a_writer_finishing_while_recovery_looks_is_not_taken_for_dead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recovery lists the journals, then asks who is alive: a writer that finishes in between
    is gone by then. Its journal went with it, so nothing is repaired, and the index lock a
    later writer holds (recognised by time only, as the finished one's journal had no inode
    yet) is left to that writer. This interleaving once removed a live writer's lock."""
    writer, git_dir, head = _store_with_one_commit(tmp_path / "repo")
    finish = threading.Event()

    def first() -> None:
        journal = journals.begin(git_dir, ref="refs/heads/main", old=head)
        finish.wait()
        journals.remove(journal)

    finishing = threading.Thread(target=first)
    finishing.start()
    time.sleep(0.01)  # the later writer's lock is younger than the first journal
    release = threading.Event()
    later = _writer_holding_the_index_lock(git_dir, head, release)
    real_is_alive = journals.is_alive

    def finishes_while_asked(owner: journals.Owner) -> bool:
        if owner.thread == finishing.ident:
            finish.set()
            finishing.join()
        return real_is_alive(owner)

    monkeypatch.setattr(journals, "is_alive", finishes_while_asked)
    try:
        findings = writer.recover()
        lock_kept = (git_dir / "index.lock").exists()
    finally:
        release.set()
        later.join()
    assert (True, []) == (lock_kept, [f for f in findings if f.repaired])


def test_a_dead_writers_journal_leaves_a_live_writers_lock_alone(tmp_path: Path) -> None:
    """A writer died before its lock's inode was recorded, and another writer now holds a
    lock taken after it: by time the lock could be either's, so recovery drops the journal
    and leaves the lock to the live writer."""
    writer, git_dir, head = _store_with_one_commit(tmp_path / "repo")
    exited = subprocess.Popen(["true"])
    exited.wait()
    dead = journals.Owner(pid=exited.pid, start=None, thread=1)
    journals.write(
        journals.Journal(
            path=journals.journal_path(git_dir, dead),
            owner=dead,
            ref="refs/heads/main",
            old=head,
            new=None,
            lock_inode=None,
            started_ns=time.time_ns(),
        )
    )
    time.sleep(0.01)
    release = threading.Event()
    later = _writer_holding_the_index_lock(git_dir, head, release)
    try:
        findings = writer.recover()
        lock_kept = (git_dir / "index.lock").exists()
        left = sorted(p.name for p in git_dir.glob(f"{journals.JOURNAL_PREFIX}*"))
    finally:
        release.set()
        later.join()
    repaired = [f.kind for f in findings if f.repaired]
    assert (True, ["interrupted-commit"], 1) == (lock_kept, repaired, len(left))
