"""``sync`` and ``clone`` over a real bare repository on disk, with real stores (SQLite, dulwich,
the HTML codec): what two machines write meets on both, the same-memory cases of
docs/sync.md §3 are kept and reported, access rows travel, a racing push is retried, and a
remote that refuses the push (a hook) is reported with nothing lost."""

from __future__ import annotations

import os
import stat
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo

import memhtml
from memhtml.adapters.git.dulwich_remote import DulwichRemote
from memhtml.app.store import Store, clone_store_at, init_store_at
from memhtml.app.use_cases.correct import CorrectRequest
from memhtml.app.use_cases.listing import ListRequest
from memhtml.app.use_cases.sync import MERGED, SyncPorts, SyncResult, sync_with
from memhtml.domain.sidecar import parse_sidecar
from memhtml.domain.sync_values import CASE_CONFLICT, CASE_CONVERGED, CASE_RELOCATED
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git_remote import PushRejected
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

ENV: Mapping[str, str] = {"MEMHTML_EMBED": "off"}


@pytest.fixture(autouse=True)
def no_machine_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the machine's git configuration out of every test."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """An empty bare repository whose HEAD names main, as a server's would for this store."""
    path = tmp_path / "remote.git"
    path.mkdir()
    with Repo.init_bare(str(path)) as bare:
        bare.refs.set_symbolic_ref(Ref(b"HEAD"), Ref(b"refs/heads/main"))
    return path


def open_store(root: Path) -> Store:
    return memhtml.open(root, environ=ENV, embedder=False)


def first_machine(tmp_path: Path, remote: Path) -> Path:
    """A new store pointed at ``remote`` and synced (its scaffold pushed)."""
    root = tmp_path / "a"
    init_store_at(root, environ=ENV)
    with open_store(root) as store:
        store.set_remote(str(remote))
        store.sync()
    return root


@pytest.fixture
def pair(tmp_path: Path, remote: Path) -> tuple[Path, Path]:
    """Two machines on one remote: the first initialized it, the second cloned it."""
    first = first_machine(tmp_path, remote)
    second = tmp_path / "b"
    clone_store_at(str(remote), second, environ=ENV, embedder=False)
    return first, second


def write(root: Path, title: str, claim: str) -> str:
    """Write one semantic memory; its path."""
    with open_store(root) as store:
        request = WriteRequest(title=title, memory_type="semantic", claim=claim)
        return store.write(request).path


def sync(root: Path) -> SyncResult:
    with open_store(root) as store:
        return store.sync()


def tree(root: Path) -> dict[str, bytes]:
    """HEAD's memory files (PARA folders, no scaffold), by path."""
    with open_store(root) as store:
        git = store.services.git
        head = git.head()
        assert head is not None
        entries = [
            e
            for e in git.list_tree(head)
            if e.path.endswith(".html")
            and e.path.split("/")[0] in {"areas", "projects", "resources", "archive"}
        ]
        blobs = git.read_blobs([e.blob_sha for e in entries])
        return {e.path: blobs[e.blob_sha] for e in entries}


def indexed_paths(root: Path) -> list[str]:
    """Every indexed memory, archived ones too; the index must already describe HEAD (the
    sync caught it up), so the listing's own freshness pass has nothing to do."""
    with open_store(root) as store:
        status = store.index_status()
        assert (False, store.services.git.head()) == (status.stale, status.head_sha)
        listed = store.list(ListRequest(include_archived=True, limit=500))
        return sorted(item.path for item in listed.files)


def test_clone_checks_out_the_remote_and_indexes_it(tmp_path: Path, remote: Path) -> None:
    """The next machine's clone holds the first machine's memories, indexed, at one HEAD."""
    first = first_machine(tmp_path, remote)
    path = write(first, "Deploys run on Fridays", "Deploys run on Fridays.")
    sync(first)
    second = tmp_path / "b"
    cloned = clone_store_at(str(remote), second, environ=ENV, embedder=False)
    with open_store(first) as store:
        head = store.services.git.head()
    assert (head, True, 1, [path]) == (
        cloned.head_sha,
        cloned.fetched,
        cloned.indexed,
        indexed_paths(second),
    )


def test_clone_refuses_a_folder_that_is_not_empty(tmp_path: Path, remote: Path) -> None:
    """Cloning over existing files is refused before anything is written."""
    target = tmp_path / "busy"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    with pytest.raises(memhtml.domain.errors.InvalidInput):
        clone_store_at(str(remote), target, environ=ENV, embedder=False)
    assert ["keep.txt"] == sorted(p.name for p in target.iterdir())


def test_memories_written_on_two_machines_meet_on_both(pair: tuple[Path, Path]) -> None:
    """Different memories written on each side merge cleanly: after both sync, both trees and
    both indexes hold all of them, and the merge reported no case."""
    first, second = pair
    a = write(first, "Backups are nightly", "Backups run every night at two.")
    b = write(second, "Alerts go to the on-call channel", "Alerts go to the on-call channel.")
    assert "pushed" == sync(first).action
    merged = sync(second)
    assert "fast-forward" == sync(first).action
    expected = (sorted([a, b]), sorted([a, b]), (), tree(first))
    assert expected == (indexed_paths(first), indexed_paths(second), merged.cases, tree(second))
    assert MERGED == merged.action


def test_one_memory_changed_on_both_sides_keeps_both_and_links_them(
    pair: tuple[Path, Path],
) -> None:
    """Both machines correct the same memory: both corrections survive as memories, the
    archived original converges on one file, and the rival successors are linked contradicts
    and reported."""
    first, second = pair
    original = write(first, "The build takes ten minutes", "The build takes ten minutes.")
    sync(first)
    sync(second)
    with open_store(first) as store:
        ours = store.correct(
            original,
            CorrectRequest(
                title="The build takes five minutes", claim="The build takes five minutes."
            ),
        )
    with open_store(second) as store:
        theirs = store.correct(
            original,
            CorrectRequest(title="The build takes an hour", claim="The build takes an hour now."),
        )
    sync(first)
    merged = sync(second)
    sync(first)
    files = tree(second)
    assert tree(first) == files
    assert {ours.path, theirs.path} <= set(files)
    assert [ours.archived_path] == [p for p in files if p.startswith("archive/")]
    kinds = {case.kind for case in merged.cases}
    assert {CASE_CONVERGED, CASE_CONFLICT} <= kinds
    linked = [
        path for path in (ours.path, theirs.path) if b'rel="memhtml-contradicts"' in files[path]
    ]
    assert 1 == len(linked)


def test_two_new_memories_with_one_slug_get_distinct_paths(pair: tuple[Path, Path]) -> None:
    """The same title written with different claims on both machines: both files kept, the
    earlier one moved to a free path, the case reported."""
    first, second = pair
    a = write(first, "Office hours", "Office hours are on Tuesdays.")
    b = write(second, "Office hours", "Office hours are on Thursdays.")
    assert a == b
    sync(first)
    merged = sync(second)
    files = tree(second)
    claims = sorted(
        claim
        for claim in (b"Tuesdays", b"Thursdays")
        if any(claim in body for body in files.values())
    )
    relocated = [case for case in merged.cases if case.kind == CASE_RELOCATED]
    assert ([b"Thursdays", b"Tuesdays"], 1, 2) == (claims, len(relocated), len(files))
    assert relocated[0].other_path in files


def test_access_rows_learned_on_one_machine_reach_the_other(pair: tuple[Path, Path]) -> None:
    """A memory reinforced on the first machine has its access row on the second after both
    sync; the second's own rows stay."""
    first, second = pair
    a = write(first, "Coffee is in the kitchen", "Coffee is in the kitchen.")
    sync(first)
    sync(second)
    with open_store(first) as store:
        store.reinforce([a], "positive")
    with open_store(second) as store:
        store.reinforce([a], "neutral")
        store.reinforce([a], "neutral")
    sync(first)
    sync(second)
    sync(first)
    rows = []
    for root in (first, second):
        with open_store(root) as store:
            exported = store.services.storage.state.export_access()
        rows.append({row.path: row for row in parse_sidecar(exported).rows})
    assert rows[0] == rows[1]
    assert (1, True) == (rows[1][a].reinforcement_count, rows[1][a].outcome_score > 0)


def test_both_machines_archiving_one_memory_converge(pair: tuple[Path, Path]) -> None:
    """The same memory archived on both machines ends as one archived file, reported."""
    first, second = pair
    path = write(first, "The wiki moved", "The wiki moved to the new host.")
    sync(first)
    sync(second)
    for root in (first, second):
        with open_store(root) as store:
            store.archive(path, "stale")
        time.sleep(1.1)  # archive stamps have seconds: two different files of one memory
    sync(first)
    merged = sync(second)
    files = tree(second)
    archived = [p for p in files if p.startswith("archive/")]
    assert (1, False) == (len(archived), path in files)
    assert CASE_CONVERGED in {case.kind for case in merged.cases}


def test_a_dry_run_reports_and_changes_nothing(pair: tuple[Path, Path]) -> None:
    """A dry run says a merge is due and which cases it would report, and leaves both the
    local branch and the remote where they were."""
    first, second = pair
    write(first, "Office hours", "Office hours are on Tuesdays.")
    write(second, "Office hours", "Office hours are on Thursdays.")
    sync(first)
    with open_store(second) as store:
        before = store.services.git.head()
        report = store.sync(dry_run=True)
        after = store.services.git.head()
    assert (MERGED, True, before) == (report.action, report.dry_run, after)
    assert [CASE_RELOCATED] == [case.kind for case in report.cases]
    assert (1, 1) == (report.ahead, report.behind)


def test_a_second_sync_with_nothing_new_changes_nothing(pair: tuple[Path, Path]) -> None:
    """Syncing twice in a row: the second is up to date and commits nothing, not even the
    sidecar."""
    first, _ = pair
    write(first, "Lunch is at noon", "Lunch is at noon.")
    sync(first)
    with open_store(first) as store:
        head = store.services.git.head()
        again = store.sync()
    assert ("up-to-date", False, head) == (again.action, again.exported, again.head_after)


class RacingRemote(DulwichRemote):
    """The real remote, except that before our first push another machine pushes."""

    def __init__(self, root: Path, rival: Path) -> None:
        super().__init__(root)
        self.rival = rival
        self.pushes = 0

    def push(
        self,
        name: str,
        *,
        new: str,
        expected: str | None,
        progress: ProgressSink = NO_PROGRESS,
    ) -> None:
        self.pushes += 1
        if self.pushes == 1:
            write(self.rival, "The rival wrote first", "The rival pushed between fetch and push.")
            sync(self.rival)
        super().push(name, new=new, expected=expected, progress=progress)


def test_a_push_refused_because_someone_pushed_first_is_merged_and_retried(
    pair: tuple[Path, Path],
) -> None:
    """Someone pushes between our fetch and our push: the push is refused as stale, the next
    round merges their commit too, and the retry lands everything on the remote."""
    first, second = pair
    ours = write(first, "Our memory", "Ours was written first but pushed second.")
    racing = RacingRemote(first, second)
    with open_store(first) as store:
        s = store.services
        ports = SyncPorts(
            git=s.git,
            writer=s.writer,
            history=s.history,
            landing=s.landing,
            remote=racing,
            indexer=s.indexer,
            codec=s.codec,
            clock=s.clock,
            state=s.storage.state,
            embed=False,
            pause=lambda _: None,
        )
        result = sync_with(ports)
    sync(second)
    assert (2, 2, MERGED) == (result.attempts, racing.pushes, result.action)
    assert tree(first) == tree(second)
    assert ours in tree(second)
    assert any(b"The rival pushed" in body for body in tree(first).values())


@pytest.fixture
def ssh_shim(tmp_path: Path) -> Path:
    """A stand-in for ssh that runs the requested git command locally, so the remote side is
    git's own receive-pack, hooks and all."""
    shim = tmp_path / "local-ssh"
    shim.write_text('#!/bin/sh\nfor last; do :; done\nexec sh -c "$last"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return shim


def test_a_remote_hook_refusing_the_push_is_reported_and_loses_nothing(
    tmp_path: Path, remote: Path, ssh_shim: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-receive hook declines: sync fails with the remote's reason, the remote keeps its
    branch, and the local commit stays (the next sync after the hook is gone pushes it)."""
    monkeypatch.setenv("GIT_SSH_COMMAND", str(ssh_shim))
    root = tmp_path / "a"
    init_store_at(root, environ=ENV)
    with open_store(root) as store:
        store.set_remote(f"ssh://localhost{remote}")
        store.sync()
    hook = remote / "hooks" / "pre-receive"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'memory is frozen' >&2\nexit 1\n")
    hook.chmod(0o755)
    with Repo(str(remote)) as bare:
        remote_before = bare.refs[Ref(b"refs/heads/main")]
    path = write(root, "Written while frozen", "This memory must survive a refused push.")
    with open_store(root) as store, pytest.raises(PushRejected) as refused:
        store.sync()
    with Repo(str(remote)) as bare:
        remote_after = bare.refs[Ref(b"refs/heads/main")]
    assert (False, remote_before) == (refused.value.moved, remote_after)
    assert path in tree(root)
    hook.unlink()
    assert "pushed" == sync(root).action


def test_git_fsck_finds_a_merged_store_sound(pair: tuple[Path, Path], remote: Path) -> None:
    """After a merge, git's own fsck finds the clone and the remote sound, and the clone's
    status is clean."""
    first, second = pair
    write(first, "Backups are nightly", "Backups run every night at two.")
    write(second, "Alerts go to the on-call channel", "Alerts go to the on-call channel.")
    sync(first)
    sync(second)
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    for where in (second, remote):
        fsck = subprocess.run(
            ["git", "-C", str(where), "fsck", "--no-progress", "--no-dangling"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert (0, "") == (fsck.returncode, fsck.stdout + fsck.stderr)
    status = subprocess.run(
        ["git", "-C", str(second), "status", "--porcelain"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "" == status.stdout
