"""``doctor --fix`` over a real store: dangling links rewritten or dropped in one commit, orphan
access rows pruned, a dirty tree refused untouched, and nothing committed when nothing is wrong."""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

import memhtml
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.html import parse_memory
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.errors import DirtyTree
from memhtml.app.store import Store
from memhtml.app.use_cases.doctor_fix import Repair
from memhtml.domain.model import Link
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite
from tests.integration.test_cli_commands_store import (
    EXPORT_PATH,
    EXPORT_WRITE,
    LOCK_PATH,
    LOCK_WRITE,
    data,
    envelope,
    invoke,
    snapshot,
)
from tests.integration.test_cli_commands_store import Store as CliStore
from tests.support import access_rows_of, index_database

START: Final = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)
SOURCE: Final = WriteRequest(
    title="Invoice export runs at 03:30 UTC",
    memory_type="procedural",
    claim="The invoice export job starts at 03:30 UTC every night.",
    tags=("billing",),
)
TARGET: Final = WriteRequest(
    title="Ledger lock holds for 40 minutes",
    memory_type="semantic",
    claim="The nightly ledger lock is held for about 40 minutes.",
    tags=("billing",),
)
BROKEN: Final = b"<!doctype html><html><head><title>x</title></head><body></body></html>"
REPAIRED_KEYS: Final = ["rewritten", "dropped", "prunedAccessRows", "commitSha", "recovered"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """An initialized store opened through the facade, with a deterministic embedder."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    with memhtml.open(root, environ={}, clock=FixedClock(START), embedder=HashingEmbedder()) as s:
        yield s


def linked_pair(store: Store) -> tuple[str, str]:
    """Write the source and the target and link them: ``(source path, target path)``."""
    source = store.write(SOURCE).path
    target = store.write(TARGET).path
    assert store.link(source, "supports", target).created
    return source, target


def commit_by_hand(store: Store, changes: ChangeSet) -> str:
    """Land ``changes`` as a person's commit, outside memhtml's commands."""
    git = store.services.git
    return store.services.writer.commit(changes, "hand edit\n", expected_head=git.head())


def head_commit(root: Path) -> tuple[str, bytes, list[str]]:
    """HEAD's sha, message and parents."""
    with Repo(str(root)) as repo:
        commit = repo[repo.head()]
        assert isinstance(commit, Commit)
        return repo.head().decode(), commit.message, [p.decode() for p in commit.parents]


def links_of(store: Store, path: str) -> tuple[Link, ...]:
    """The links the file at ``path`` states in the working tree."""
    return parse_memory((store.root / path).read_bytes()).links


def edges_from(store: Store, path: str) -> list[tuple[str, str]]:
    """The index's authored edges from ``path``, as ``(rel, dst)``."""
    with index_database(store.services.settings) as db:
        rows = db.all(
            "SELECT rel, dst_path FROM edges WHERE src_path = ?1 AND derived = 0 ORDER BY dst_path",
            (path,),
        )
    return [(str(rel), str(dst)) for rel, dst in rows]


def access_paths(store: Store) -> list[str]:
    """Paths with a state row."""
    return sorted(access_rows_of(store.services.storage))


def test_a_link_to_an_archived_memory_is_rewritten_in_one_commit(store: Store) -> None:
    """The href now names the archived copy; one commit with the subject of
    docs/cli-contract.md §3.1; one line of the source changed; the index edge follows; doctor is
    healthy afterwards."""
    source, target = linked_pair(store)
    archived = store.archive(target, "replaced by a runbook").archived_path
    before_text = (store.root / source).read_text(encoding="utf-8")
    before_head = store.services.git.head()
    report = store.doctor(fix=True)
    head, message, parents = head_commit(store.root)
    assert Repair(rewritten=1, dropped=0, pruned_access_rows=0, commit_sha=head) == (
        report.repaired
    )
    assert (b"memhtml(link): repair 1 dangling links\n", [before_head]) == (message, parents)
    assert (Link("supports", archived),) == links_of(store, source)
    diff = difflib.ndiff(
        before_text.splitlines(), (store.root / source).read_text(encoding="utf-8").splitlines()
    )
    changed = [line for line in diff if line.startswith(("- ", "+ "))]
    assert [f'- <link rel="memhtml-supports" href="/{target}">'] == changed[:1]
    assert 2 == len(changed)
    assert [("supports", archived)] == edges_from(store, source)
    assert ((), True) == (report.dangling, report.healthy)
    assert store.doctor().healthy


def test_a_link_to_a_deleted_memory_is_dropped_and_its_access_row_pruned(store: Store) -> None:
    """Deleted by hand with no archived copy: the link goes, and so does the state row the
    deleted file left behind."""
    source, target = linked_pair(store)
    store.read(target)  # gives the target a state row
    commit_by_hand(store, ChangeSet(deletes=(target,)))
    report = store.doctor(fix=True)
    head, message, _ = head_commit(store.root)
    assert Repair(rewritten=0, dropped=1, pruned_access_rows=1, commit_sha=head) == (
        report.repaired
    )
    assert b"memhtml(link): repair 1 dangling links\n" == message
    assert ((), [], []) == (links_of(store, source), edges_from(store, source), access_paths(store))
    assert ((), (), True) == (report.dangling, report.orphan_access_rows, report.healthy)


def test_a_hand_move_under_archive_is_followed(store: Store) -> None:
    """A `git mv` into archive/<YYYY>/ by hand is found as the rewrite target."""
    source, target = linked_pair(store)
    moved = f"archive/2025/{target}"
    commit_by_hand(store, ChangeSet(moves=(FileMove(source=target, target=moved),)))
    report = store.doctor(fix=True)
    assert report.repaired is not None
    assert (1, 0) == (report.repaired.rewritten, report.repaired.dropped)
    assert (Link("supports", moved),) == links_of(store, source)
    assert ((), True) == (report.dangling, report.healthy)


def test_several_links_from_several_sources_land_in_one_commit(store: Store) -> None:
    """Two sources, two rewrites and a drop: one commit counting all three."""
    _, target = linked_pair(store)
    other = store.write(
        WriteRequest(title="Other note", memory_type="semantic", claim="A second note.")
    ).path
    assert store.link(other, "supports", target).created
    gone = store.write(
        WriteRequest(title="Gone note", memory_type="semantic", claim="A note to delete.")
    ).path
    assert store.link(other, "contradicts", gone).created
    store.archive(target, "replaced")
    commit_by_hand(store, ChangeSet(deletes=(gone,)))
    before_head = store.services.git.head()
    report = store.doctor(fix=True)
    _, message, parents = head_commit(store.root)
    assert report.repaired is not None
    assert (2, 1) == (report.repaired.rewritten, report.repaired.dropped)
    assert (b"memhtml(link): repair 3 dangling links\n", [before_head]) == (message, parents)
    assert report.healthy


def test_a_healthy_store_commits_nothing(store: Store) -> None:
    """Nothing dangles and no row is orphaned: no commit, commitSha null."""
    linked_pair(store)
    before = store.services.git.head()
    report = store.doctor(fix=True)
    assert Repair(rewritten=0, dropped=0, pruned_access_rows=0, commit_sha=None) == (
        report.repaired
    )
    assert before == store.services.git.head()


def test_a_target_that_fails_the_format_keeps_its_link(store: Store) -> None:
    """The target is committed but unparseable, so the index lacks it; the repair is fixing
    that file, so the link stays and nothing is committed."""
    source, target = linked_pair(store)
    commit_by_hand(store, ChangeSet(writes=(FileWrite(path=target, data=BROKEN),)))
    before = store.services.git.head()
    report = store.doctor(fix=True)
    assert report.repaired is not None
    assert (0, 0, None) == (
        report.repaired.rewritten,
        report.repaired.dropped,
        report.repaired.commit_sha,
    )
    assert (Link("supports", target),) == links_of(store, source)
    assert before == store.services.git.head()
    assert [target] == [u.path for u in report.unparseable]


def test_uncommitted_edits_to_a_source_refuse_and_write_nothing(store: Store) -> None:
    """DirtyTree names the source; the tree, git and the state plane are as they were."""
    source, target = linked_pair(store)
    store.read(target)
    commit_by_hand(store, ChangeSet(deletes=(target,)))
    with (store.root / source).open("a", encoding="utf-8") as file:
        file.write("<!-- a person's unsaved note -->\n")
    before = snapshot(store.root)
    with pytest.raises(DirtyTree) as refused:
        store.doctor(fix=True)
    assert (source,) == refused.value.paths
    assert before == snapshot(store.root)
    assert [target] == access_paths(store)


def test_cli_fix_adds_repaired_after_the_report(tmp_path: Path) -> None:
    """`doctor` with a dangling link exits 1 (ERR_STORE_UNHEALTHY, the report as detail);
    `doctor --fix` ends its data with repaired{rewritten, dropped, prunedAccessRows,
    commitSha, recovered}, after the recovery findings; plain `doctor` has no such key."""
    cli = _cli_store(tmp_path)
    cli.ok("link", EXPORT_PATH, "caused_by", LOCK_PATH)
    cli.ok("archive", LOCK_PATH, "--reason", "replaced")
    before = cli.run("doctor")
    failure = envelope(before)
    assert (1, "ERR_STORE_UNHEALTHY", ["memhtml doctor --fix"]) == (
        before.exit_code,
        failure["code"],
        failure["suggestions"],
    )
    assert 1 == len(failure["detail"]["dangling"])
    fixed = cli.ok("doctor", "--fix")
    plain = cli.ok("doctor")
    assert ["warnings", "recovery", "repaired"] == list(fixed)[-3:]
    assert REPAIRED_KEYS == list(fixed["repaired"])
    assert (1, 0, 0) == tuple(fixed["repaired"][key] for key in REPAIRED_KEYS[:3])
    assert fixed["repaired"]["commitSha"] == fixed["headSha"]
    assert (False, [], True) == ("repaired" in plain, plain["dangling"], plain["healthy"])


def test_cli_dirty_source_is_err_dirty_tree_and_leaves_the_tree_byte_identical(
    tmp_path: Path,
) -> None:
    """Exit 1 with ERR_DIRTY_TREE; every file, .git included, unchanged."""
    cli = _cli_store(tmp_path)
    cli.ok("link", EXPORT_PATH, "caused_by", LOCK_PATH)
    cli.ok("archive", LOCK_PATH, "--reason", "replaced")
    with (cli.root / EXPORT_PATH).open("a", encoding="utf-8") as file:
        file.write("<!-- unsaved -->\n")
    before = snapshot(cli.root)
    result = cli.run("doctor", "--fix")
    assert (1, "ERR_DIRTY_TREE") == (result.exit_code, envelope(result)["code"])
    assert before == snapshot(cli.root)


def _cli_store(tmp_path: Path) -> CliStore:
    root = tmp_path / "cli-store"
    data(invoke(["init", "--repo", str(root)]))
    cli = CliStore(root)
    cli.ok(*EXPORT_WRITE)
    cli.ok(*LOCK_WRITE)
    return cli
