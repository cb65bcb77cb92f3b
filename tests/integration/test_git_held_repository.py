"""A warm git port keeps its repository open: what another process does is still seen."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.adapters.git.held_repository import HeldRepository
from memhtml.adapters.git.inotify_watch import InotifyTreeWatch
from memhtml.ports.git import TreeEntry, blob_sha
from memhtml.ports.git_writer import ChangeSet, FileWrite


def _git(root: Path, *args: str) -> None:
    identity = ("-c", "user.name=Someone", "-c", "user.email=someone@example.invalid")
    subprocess.run(["git", "-C", str(root), *identity, *args], check=True, capture_output=True)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with one committed memory."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "repo"
    writer = DulwichGitWriter(root, env={})
    writer.init()
    change = ChangeSet(writes=(FileWrite(path="areas/a.html", data=b"<p>a</p>\n"),))
    writer.commit(change, "seed", expected_head=None)
    return root


def test_commits_repacks_and_packed_refs_by_git_are_seen(root: Path) -> None:
    """``git commit`` then ``git gc`` (objects into a new pack, refs into packed-refs) in
    another process: the held repository answers HEAD, trees and blobs as a fresh one does."""
    warm = DulwichGit(root, watch=InotifyTreeWatch(root))
    first = warm.list_tree("HEAD")
    (root / "areas" / "b.html").write_bytes(b"<p>b</p>\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "by hand")
    _git(root, "gc", "-q", "--prune=now")
    fresh = DulwichGit(root)
    expected = (fresh.head(), fresh.list_tree("HEAD"))
    assert expected == (warm.head(), warm.list_tree("HEAD"))
    sha = blob_sha(b"<p>b</p>\n")
    assert TreeEntry(path="areas/b.html", blob_sha=sha) in expected[1]
    assert {sha: b"<p>b</p>\n"} == dict(warm.read_blobs([sha]))
    assert 1 == len(first)
    warm.close()


def test_a_replaced_config_opens_the_repository_again(root: Path) -> None:
    """The config is read once per open repository: a new one is a new repository object."""
    held = HeldRepository(str(root))
    with held.use("probe") as before:
        pass
    with held.use("probe") as again:
        pass
    _git(root, "config", "user.name", "Someone Else")
    with held.use("probe") as after:
        pass
    held.close()
    assert (True, False) == (before is again, again is after)
