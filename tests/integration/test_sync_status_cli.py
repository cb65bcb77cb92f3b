"""``index status`` and ``doctor`` report where a store stands against its sync remote (issue 19
item 4, docs/sync.md §6): ahead and behind against the remote-tracking branch and the last sync,
read from local refs only. Real processes of the shipped console script, real stores and a real
bare repository on disk as the remote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest
from dulwich.refs import Ref
from dulwich.repo import Repo

from tests.integration.test_cli_key_naming import bad_keys

CONSOLE_SCRIPT: Final = Path(sys.executable).parent / "memhtml"
STAMP: Final = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A lexical process environment with the machine's git configuration kept out."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("MEMHTML_", "GIT_"))}
    return {
        **keep,
        "MEMHTML_EMBED": "off",
        "GIT_CONFIG_GLOBAL": str(tmp_path / "no-global-config"),
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def run(env: dict[str, str], root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE_SCRIPT), "--repo", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def ok(env: dict[str, str], root: Path, *args: str) -> Any:
    """The success data of one command, failing loudly otherwise."""
    done = run(env, root, *args)
    assert 0 == done.returncode, done.stdout + done.stderr
    return json.loads(done.stdout)["data"]


def doctor_sync(env: dict[str, str], root: Path) -> Any:
    """``doctor``'s ``sync`` object, whether the store is judged healthy or not."""
    done = run(env, root, "doctor")
    body = json.loads(done.stdout)
    report = body["data"] if done.returncode == 0 else body["detail"]
    return report["sync"]


def head(root: Path) -> str:
    with Repo(str(root)) as repo:
        return repo.refs[Ref(b"refs/heads/main")].decode("ascii")


def bare_remote(path: Path) -> Path:
    path.mkdir()
    with Repo.init_bare(str(path)) as bare:
        bare.refs.set_symbolic_ref(Ref(b"HEAD"), Ref(b"refs/heads/main"))
    return path


def write(env: dict[str, str], root: Path, title: str) -> None:
    ok(env, root, "write", "--title", title, "--type", "semantic", "--claim", f"{title}.")


def test_a_store_without_a_remote_says_so_and_succeeds(tmp_path: Path, env: dict[str, str]) -> None:
    """No remote is an answer in both commands, not an error: configured false, no counts,
    a note naming the command that sets one."""
    root = tmp_path / "solo"
    ok(env, root, "init")
    status = ok(env, root, "index", "status")["sync"]
    expected = {
        "remote": "origin",
        "configured": False,
        "url": None,
        "trackingSha": None,
        "ahead": None,
        "behind": None,
        "lastSync": None,
    }
    assert expected == {k: v for k, v in status.items() if k != "note"}
    assert "no remote named 'origin' is configured" in status["note"]
    assert "memhtml init --remote URL" in status["note"]
    assert status == doctor_sync(env, root)


def test_status_and_doctor_count_ahead_and_behind_from_local_refs(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Two machines on one bare remote: the second's counts follow its own commits at once,
    the remote's only after a fetch (a dry run), and a sync levels them and records itself;
    then, with the remote gone, both commands still answer the same (no network)."""
    remote = bare_remote(tmp_path / "remote.git")
    first, second = tmp_path / "a", tmp_path / "b"
    ok(env, first, "init", "--remote", str(remote))
    ok(env, first, "sync")
    done = subprocess.run(
        [str(CONSOLE_SCRIPT), "clone", str(remote), str(second)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert 0 == done.returncode, done.stdout + done.stderr
    cloned_at = head(second)
    write(env, first, "Deploys run on Fridays")
    ok(env, first, "sync")
    write(env, second, "Backups run nightly")

    before = ok(env, second, "index", "status")["sync"]
    assert (True, str(remote), cloned_at, 1, 0) == (
        before["configured"],
        before["url"],
        before["trackingSha"],
        before["ahead"],
        before["behind"],
    )
    assert {"headSha": cloned_at, "remoteSha": cloned_at} == {
        k: v for k, v in before["lastSync"].items() if k != "at"
    }

    ok(env, second, "sync", "--dry-run")
    fetched = ok(env, second, "index", "status")["sync"]
    assert (head(first), 1, 1, before["lastSync"]) == (
        fetched["trackingSha"],
        fetched["ahead"],
        fetched["behind"],
        fetched["lastSync"],
    )
    assert "1 commit here not on origin, 1 on origin not here" in fetched["note"]

    ok(env, second, "sync")
    synced = ok(env, second, "index", "status")["sync"]
    merged = head(second)
    assert (merged, 0, 0, merged, merged) == (
        synced["trackingSha"],
        synced["ahead"],
        synced["behind"],
        synced["lastSync"]["headSha"],
        synced["lastSync"]["remoteSha"],
    )
    assert synced["lastSync"]["at"] >= before["lastSync"]["at"]
    assert [] == list(bad_keys(synced))

    (tmp_path / "remote.git").rename(tmp_path / "gone.git")
    assert synced == ok(env, second, "index", "status")["sync"]
    assert synced == doctor_sync(env, second)


def test_pretty_output_shows_the_sync_block(tmp_path: Path, env: dict[str, str]) -> None:
    """The human rendering carries the block and its note, a configured remote never fetched
    included."""
    remote = bare_remote(tmp_path / "remote.git")
    root = tmp_path / "a"
    ok(env, root, "init", "--remote", str(remote))
    done = run(env, root, "--pretty", "index", "status")
    assert 0 == done.returncode, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    block = lines[lines.index("sync:") :]
    assert any(line.split() == ["configured", "yes"] for line in block)
    assert any(line.split() == ["ahead", "—"] for line in block)
    assert "origin is configured but was never fetched here" in " ".join(
        " ".join(line.split()) for line in block
    )
