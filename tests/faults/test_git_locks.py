"""Git lock files and half-finished commits that are not a memhtml writer's clean kill: a lock
held by a git command, a stale one, a file edited between the crash and the repair, and an
index left at HEAD's parent by a crash of memhtml before the journal existed."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memhtml.adapters.git.locks import STALE_LOCK_AGE_S
from tests.faults.harness import (
    BaseStore,
    assert_recovered,
    build_base,
    clone,
    doctor_report,
    git,
    head_count,
    jsonl,
    run,
    run_killed_at,
    write_op,
)

WRITE = (
    "write",
    "--title",
    "After the lock",
    "--type",
    "semantic",
    "--claim",
    "Written while a lock file was in the way.",
)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> BaseStore:
    """One built store per module."""
    return build_base(tmp_path_factory.mktemp("base") / "store")


@pytest.fixture
def store(base: BaseStore, tmp_path: Path) -> BaseStore:
    """A copy of the base store."""
    return clone(base, tmp_path / "store")


@pytest.fixture
def git_at_work(store: BaseStore) -> Iterator[subprocess.Popen[bytes]]:
    """A live ``git`` process working in the store (waiting on its standard input)."""
    process = subprocess.Popen(
        ["git", "hash-object", "--stdin"], cwd=store.root, stdin=subprocess.PIPE
    )
    yield process
    process.communicate(b"")


def index_lock(store: BaseStore, *, age_s: float = 0.0) -> Path:
    """Plant ``.git/index.lock`` as a git command would, ``age_s`` seconds old."""
    lock = store.root / ".git" / "index.lock"
    lock.write_bytes(b"")
    then = time.time() - age_s
    os.utime(lock, (then, then))
    return lock


def test_a_young_foreign_lock_refuses_with_err_git_locked(store: BaseStore) -> None:
    """A lock no memhtml writer claims, too young to call stale: nothing is written and the
    refusal names the lock, the wait, the exact removal command and doctor --fix."""
    lock = index_lock(store)
    before = head_count(store.root)
    result = run(store.root, *WRITE)
    failure = json.loads(result.stdout)
    assert (1, "ERR_GIT_LOCKED", before) == (
        result.exit_code,
        failure["code"],
        head_count(store.root),
    )
    assert f"rm '{lock}'" in " ".join(failure["suggestions"])
    assert "memhtml doctor --fix" in failure["suggestions"]
    assert lock.exists()


def test_a_stale_foreign_lock_is_removed_by_the_next_write(store: BaseStore) -> None:
    """Older than the threshold with no git process here: removed, and the write lands."""
    lock = index_lock(store, age_s=STALE_LOCK_AGE_S + 5)
    result = run(store.root, *WRITE)
    assert (0, False) == (result.exit_code, lock.exists()), result.stdout + result.stderr
    assert "repaired stale-lock" in result.stderr
    assert_recovered(store.root)


def test_an_old_lock_is_kept_while_a_git_process_works_here(
    store: BaseStore, git_at_work: subprocess.Popen[bytes]
) -> None:
    """However old, a lock is not removed while a git process runs in the repository; doctor
    reports it as held, with the wait as its fix."""
    lock = index_lock(store, age_s=STALE_LOCK_AGE_S * 10)
    result = run(store.root, *WRITE)
    failure = json.loads(result.stdout)
    report = doctor_report(store.root)
    held = [f for f in report["recovery"] if f["kind"] == "held-lock"]
    assert ("ERR_GIT_LOCKED", True) == (failure["code"], lock.exists())
    assert f"git process {git_at_work.pid} is running here" in failure["error"]
    assert [f"{lock} (git process {git_at_work.pid} is running here)"] == [
        f["detail"] for f in held
    ]


def test_a_file_edited_after_the_crash_is_kept(store: BaseStore) -> None:
    """A commit killed after its branch moved, then one of its files written by hand before
    the repair: the repair finishes the rest and keeps the hand-written file as an edit."""
    ops = [write_op(n) for n in range(200, 203)]
    run_killed_at(store.root, "commit.ref", ["apply"], stdin=jsonl(ops))
    landed = git(store.root, "diff", "--name-only", "HEAD~1", "HEAD").stdout.split()
    edited = store.root / landed[1]
    edited.parent.mkdir(parents=True, exist_ok=True)
    edited.write_text("<p>typed by a person after the crash</p>\n")
    result = run(store.root, *WRITE)
    assert 0 == result.exit_code, result.stdout + result.stderr
    assert "1 files edited since are kept as they are" in result.stderr
    assert [f" M {landed[1]}"] == git(store.root, "status", "--porcelain").stdout.splitlines()
    assert "<p>typed by a person after the crash</p>\n" == edited.read_text()
    assert all((store.root / path).is_file() for path in landed)


def test_an_index_left_at_heads_parent_is_repaired_by_doctor_fix(store: BaseStore) -> None:
    """What memhtml before the journal left after a kill (HEAD moved, index and working tree
    behind, no journal; the user removed the lock by hand): doctor reports it, --fix finishes
    the commit."""
    run_killed_at(store.root, "commit.ref", ["apply"], stdin=jsonl([write_op(300)]))
    git_dir = store.root / ".git"
    for leftover in [*git_dir.glob("memhtml-commit-*"), git_dir / "index.lock"]:
        leftover.unlink()
    report = doctor_report(store.root)
    assert ["index-behind-head"] == [f["kind"] for f in report["recovery"]]
    repaired = assert_recovered(store.root)
    assert ["index-behind-head"] == [f["kind"] for f in repaired["recovered"]]
