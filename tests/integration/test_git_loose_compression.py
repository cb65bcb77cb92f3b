"""The writer's loose objects: git's own default level unless the repository names one
(``repository.write_loose_as_git``), and readable by the system git either way."""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.ports.git_writer import ChangeSet, FileWrite

# The second byte of a zlib stream's header carries the level class: 0x01 for the fastest
# level (git's default for loose objects), 0x9C for zlib's default, 0xDA for the best.
HEADER_OF_LEVEL = {1: b"\x78\x01", -1: b"\x78\x9c", 9: b"\x78\xda"}


def _committed_tree(root: Path, config: dict[bytes, bytes]) -> bytes:
    """A repository with ``core`` ``config``, one commit through the writer: its tree's
    loose object as stored."""
    writer = DulwichGitWriter(root)
    writer.init()
    with Repo(str(root)) as repo:
        repo_config = repo.get_config()
        for key, value in config.items():
            repo_config.set((b"core",), key, value)
        repo_config.write_to_path()
    body = b"".join(b"<p>memory %d</p>\n" % n for n in range(200))
    writer.commit(
        ChangeSet(writes=(FileWrite(path="areas/inbox/a.html", data=body),)),
        "one memory",
        expected_head=None,
    )
    with Repo(str(root)) as repo:
        commit = repo[repo.head()]
        assert isinstance(commit, Commit)
        tree: str = commit.tree.decode("ascii")
    return (root / ".git" / "objects" / tree[:2] / tree[2:]).read_bytes()


@pytest.mark.parametrize(
    ("config", "level"),
    [
        ({}, 1),
        ({b"looseCompression": b"9"}, 9),
        ({b"compression": b"9"}, 9),
        ({b"compression": b"-1"}, -1),
    ],
)
def test_loose_objects_take_gits_default_level_unless_configured(
    tmp_path: Path, config: dict[bytes, bytes], level: int
) -> None:
    stored = _committed_tree(tmp_path, config)
    assert stored[:2] == HEADER_OF_LEVEL[level]
    assert zlib.decompress(stored).startswith(b"tree ")
    fsck = subprocess.run(
        ["git", "-C", str(tmp_path), "fsck", "--strict"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr
