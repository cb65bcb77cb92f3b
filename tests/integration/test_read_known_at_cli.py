"""``read PATH --known-at T``: the file as the store knew it at T, read from git, end to end
through the command line over a real store (embedding off)."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

from tests.integration.test_cli_commands_store import Store, envelope, invoke

LOCK = "areas/inbox/ledger-lock.html"


def head_time(root: Path) -> int:
    """HEAD's commit time, in seconds since the epoch."""
    with Repo(str(root)) as repo:
        commit = repo[repo.head()]
        assert isinstance(commit, Commit)
        return int(commit.commit_time)


def stamp(seconds: int) -> str:
    """``seconds`` as the ISO instant a caller would pass."""
    return dt.datetime.fromtimestamp(seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def next_second(after: int) -> None:
    """Wait until the wall clock has left the second ``after`` (commit times are seconds)."""
    while time.time() < after + 1:
        time.sleep(0.05)


@pytest.fixture
def history(tmp_path: Path) -> tuple[Store, int]:
    """A memory written, then corrected in a later second; and the first commit's time."""
    root = tmp_path / "store"
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    store = Store(root)
    store.ok(
        "write", "--title", "Ledger lock starts at 01:00", "--type", "semantic", "--path", LOCK,
        "--claim", "The nightly ledger lock starts at 01:00 UTC.",
    )  # fmt: skip
    written = head_time(root)
    next_second(written)
    store.ok(
        "correct", LOCK, "--title", "Ledger lock starts at 02:00",
        "--claim", "The nightly ledger lock now starts at 02:00 UTC.",
    )  # fmt: skip
    return store, written


def test_known_at_reads_the_file_as_it_was_committed_then(history: tuple[Store, int]) -> None:
    """At the first commit's second the path holds the first version; its commit is named."""
    store, written = history
    then = store.ok("read", LOCK, "--known-at", stamp(written))
    assert ("Ledger lock starts at 01:00", "The nightly ledger lock starts at 01:00 UTC.") == (
        then["title"],
        then["gist"],
    )
    assert isinstance(then["knownAtCommit"], str)
    assert 40 == len(then["knownAtCommit"])


def test_a_path_gone_since_is_still_read_at_an_earlier_instant(
    history: tuple[Store, int],
) -> None:
    """`correct` moved the old version under archive/ and wrote the replacement elsewhere:
    today the path holds nothing, at the earlier instant it holds the first version."""
    store, written = history
    now = store.run("read", LOCK)
    then = store.ok("read", LOCK, "--known-at", stamp(written))
    assert ("ERR_PATH_NOT_FOUND", "Ledger lock starts at 01:00") == (
        envelope(now)["code"],
        then["title"],
    )


def test_before_the_first_commit_nothing_is_known(history: tuple[Store, int]) -> None:
    """An instant older than every commit: ERR_PATH_NOT_FOUND."""
    store, _ = history
    result = store.run("read", LOCK, "--known-at", "2001-01-01")
    assert "ERR_PATH_NOT_FOUND" == envelope(result)["code"]


def test_an_unreadable_instant_is_refused(history: tuple[Store, int]) -> None:
    """`--known-at yesterday` is not an ISO instant: ERR_INVALID_FLAG."""
    store, _ = history
    assert (
        "ERR_INVALID_FLAG" == envelope(store.run("read", LOCK, "--known-at", "yesterday"))["code"]
    )
