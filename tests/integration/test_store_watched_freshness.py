"""A warm store sees every change made between two searches, with and without its watcher.

Issue 16 item 4: an external edit between two calls is seen by the next search. The same
assertions run on a store whose git port holds a file-system watcher (the default on Linux,
armed at the store's second status) and on one whose watcher was closed (every status walks).
Changes come from other processes: a Python child writing files, and the git binary.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import memhtml
from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.app.store import Store
from memhtml.domain.write_requests import WriteRequest, checked
from memhtml.ports.retrieval import SearchRequest
from tests.integration.test_cli_commands_store import data, invoke

FACTS = (
    ("Ledger lock", "The nightly ledger lock holds for about forty minutes."),
    ("Deploy window", "Deploys run at nine in the morning, never on Fridays."),
)
LEDGER = "areas/inbox/ledger-lock.html"


@pytest.fixture(params=["watched", "walked"])
def store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Store, Path, bool]]:
    """A lexical store holding FACTS, warmed by three searches; its watcher kept or closed."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    watched = request.param == "watched" and sys.platform.startswith("linux")
    with memhtml.open(root, environ={}, embedder=False) as opened:
        git = opened.services.git
        assert isinstance(git, DulwichGit)
        if not watched:
            git.close()
        for title, claim in FACTS:
            opened.write(checked(WriteRequest(title=title, memory_type="semantic", claim=claim)))
        for query in ("ledger", "deploy", "ledger"):
            opened.search(SearchRequest(query=query))
        # Watched: the first status walked, the second armed and walked, the rest amended.
        assert (2 if watched else None) == (git.status_walks if watched else None)
        yield opened, root, watched


def _paths(store: Store, query: str) -> list[str]:
    """The hits the full-text arm ranked (the priors rank every memory)."""
    hits = store.search(SearchRequest(query=query)).hits
    return [hit.path for hit in hits if "fts" in dict(hit.ranks)]


def _elsewhere(code: str, root: Path) -> None:
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True)


def _walks(store: Store) -> int | None:
    git = store.services.git
    assert isinstance(git, DulwichGit)
    return git.status_walks


def test_an_external_edit_in_the_same_tick_is_seen_by_the_next_search(
    store: tuple[Store, Path, bool],
) -> None:
    """Another process rewrites a memory (same size, mtime put back): the next search finds
    the new word and no longer the old one."""
    opened, root, watched = store
    walks = _walks(opened)
    before = os.lstat(root / LEDGER)
    _elsewhere(
        f"p = {LEDGER!r}; t = open(p).read(); open(p, 'w').write(t.replace('nightly', 'monthly'))",
        root,
    )
    os.utime(root / LEDGER, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert ([LEDGER], []) == (_paths(opened, "monthly"), _paths(opened, "nightly"))
    assert (walks if watched else None) == (_walks(opened) if watched else None)


def test_files_created_in_a_new_folder_and_deleted_are_seen(
    store: tuple[Store, Path, bool],
) -> None:
    """A memory copied into a new folder by another process is found; once deleted, gone."""
    opened, root, _ = store
    copy = "projects/fresh/sub/tapir.html"
    _elsewhere(
        "import os; os.makedirs('projects/fresh/sub'); "
        f"t = open({LEDGER!r}).read().replace('ledger', 'tapirs').replace('Ledger', 'Tapirs'); "
        f"open({copy!r}, 'w').write(t)",
        root,
    )
    found = _paths(opened, "tapirs")
    (root / copy).unlink()
    assert ([copy], []) == (found, _paths(opened, "tapirs"))


def test_a_commit_by_the_git_binary_is_seen(store: tuple[Store, Path, bool]) -> None:
    """An edit committed by ``git`` in another process is what the next search answers."""
    opened, root, watched = store
    walks = _walks(opened)
    text = (root / LEDGER).read_text(encoding="utf-8").replace("forty", "sixty")
    (root / LEDGER).write_text(text, encoding="utf-8")
    identity = ("-c", "user.name=Someone", "-c", "user.email=someone@example.invalid")
    for args in (("add", "-A"), ("commit", "-q", "-m", "by hand")):
        subprocess.run(["git", "-C", str(root), *identity, *args], check=True)
    assert ([LEDGER], []) == (_paths(opened, "sixty"), _paths(opened, "forty"))
    assert opened.services.git.status() == ()
    assert (walks if watched else None) == (_walks(opened) if watched else None)
