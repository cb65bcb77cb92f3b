"""A ``memhtml sync`` killed (a real SIGKILL of a real process, ``MEMHTML_FAULT_AT``) at each of
its steps, mid-merge of two diverged machines: the next ``sync`` completes, and the store then
keeps every promise of issue 14 (:func:`tests.faults.harness.assert_recovered`) with nothing
either machine wrote lost (docs/sync.md §5)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Final

import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo

from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_remote import DulwichRemote
from memhtml.domain.sidecar import parse_sidecar
from tests.faults.harness import assert_recovered, build_base, invoke, ok, run_killed_at

SYNC_STEPS: Final = (
    "sync.fetched",
    "advance.prepared",
    "advance.ref",
    "advance.index",
    "sync.merged",
    "sync.pushed",
    "sync.indexed",
)
"""Every fault step a sync reaches, in order (the merge path reaches them all)."""

BRANCH: Final = Ref(b"refs/heads/main")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A remote and two machines that diverged: each wrote a memory and touched an access
    row since they last met; the first already pushed."""
    top = tmp_path_factory.mktemp("sync-template")
    remote = top / "remote.git"
    remote.mkdir()
    with Repo.init_bare(str(remote)) as bare:
        bare.refs.set_symbolic_ref(Ref(b"HEAD"), BRANCH)
    base = build_base(top / "a", memories=6)
    ok(base.root, "init", "--remote", str(remote))
    ok(base.root, "sync")
    assert 0 == invoke(["clone", str(remote), str(top / "b")]).exit_code
    ok(
        top / "a",
        "write",
        "--title",
        "Written on a",
        "--type",
        "semantic",
        "--claim",
        "A wrote it.",
    )
    ok(top / "a", "reinforce", base.paths[0], "--signal", "positive")
    ok(top / "a", "sync")
    ok(
        top / "b",
        "write",
        "--title",
        "Written on b",
        "--type",
        "semantic",
        "--claim",
        "B wrote it.",
    )
    ok(top / "b", "reinforce", base.paths[1], "--signal", "negative")
    return top


def copied(template: Path, into: Path) -> tuple[Path, Path, Path]:
    """A copy of the template whose machines point at the copied remote."""
    shutil.copytree(template, into, symlinks=True)
    remote, first, second = into / "remote.git", into / "a", into / "b"
    for root in (first, second):
        DulwichRemote(root).set_remote("origin", str(remote))
    return remote, first, second


def tree(root: Path) -> dict[str, str]:
    git = DulwichGit(root)
    head = git.head()
    assert head is not None
    return {entry.path: entry.blob_sha for entry in git.list_tree(head)}


@pytest.mark.parametrize("step", SYNC_STEPS)
def test_a_sync_killed_at_each_step_is_completed_by_the_next(
    template: Path, tmp_path: Path, step: str
) -> None:
    """Killed at ``step``, the next sync finishes the merge and the push; the store is sound,
    both memories are on both machines and on the remote, and both access rows travelled."""
    remote, first, second = copied(template, tmp_path / "copy")
    run_killed_at(second, step, ["sync"])
    ok(second, "sync")
    assert_recovered(second)
    ok(first, "sync")
    files = tree(second)
    written = sorted(p for p in files if "written-on-" in p)
    with Repo(str(remote)) as bare:
        remote_head = bare.refs[BRANCH].decode()
    assert (files, remote_head) == (tree(first), DulwichGit(second).head())
    assert ["areas/inbox/written-on-a.html", "areas/inbox/written-on-b.html"] == written
    sidecar = (second / ".memhtml/state/access.jsonl").read_text(encoding="utf-8")
    assert sidecar == (first / ".memhtml/state/access.jsonl").read_text(encoding="utf-8")
    reinforced = sorted(
        row.outcome_score > 0 for row in parse_sidecar(sidecar).rows if row.reinforcement_count
    )
    assert [False, True] == reinforced  # b's negative signal and a's positive one
