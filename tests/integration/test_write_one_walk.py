"""A write walks the working tree once and still never loses an edit made around it.

Issue 18 item 3: the preflight's status answer places the write, the index update after the
commit applies the commit alone, and an edit someone makes meanwhile is indexed by the next
command's pass. Real git (dulwich), real SQLite, the store opened in-process.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import memhtml
from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.app.store import Store
from memhtml.domain.write_requests import WriteRequest, checked
from memhtml.ports.git import StatusEntry
from memhtml.ports.git_writer import ChangeSet
from memhtml.ports.retrieval import SearchRequest
from tests.integration.test_cli_commands_store import data, invoke

LEDGER = "areas/inbox/ledger-lock.html"


def _request(title: str, claim: str) -> WriteRequest:
    return checked(WriteRequest(title=title, memory_type="semantic", claim=claim))


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every ``DulwichGit.status`` call from now on appends one entry."""
    calls: list[int] = []
    original = DulwichGit.status

    def counted(self: DulwichGit) -> tuple[StatusEntry, ...]:
        calls.append(1)
        return original(self)

    monkeypatch.setattr(DulwichGit, "status", counted)
    return calls


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Store, Path]]:
    """A lexical store holding the ledger fact, its watcher closed (a one-shot command's)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    with memhtml.open(root, environ={}, embedder=False) as opened:
        git = opened.services.git
        assert isinstance(git, DulwichGit)
        git.close()
        written = opened.write(_request("Ledger lock", "The nightly ledger lock holds an hour."))
        assert LEDGER == written.path
        yield opened, root


def _fts_paths(store: Store, query: str) -> list[str]:
    hits = store.search(SearchRequest(query=query)).hits
    return [hit.path for hit in hits if "fts" in dict(hit.ranks)]


def test_a_write_walks_the_working_tree_once(store: tuple[Store, Path], walks: list[int]) -> None:
    """One status walk for preflight, placement and the index update after the commit; the
    new memory is indexed all the same."""
    opened, _ = store
    written = opened.write(_request("Deploy window", "Deploys run at nine, never on Fridays."))
    assert 1 == len(walks)
    assert written.indexed
    assert [written.path] == _fts_paths(opened, "fridays")


def test_a_write_over_a_dirty_tree_keeps_the_edit_indexed(
    store: tuple[Store, Path], walks: list[int]
) -> None:
    """An uncommitted edit made before a write stays the indexed content after it, and the
    write does not land on top of it; the preflight indexed the edit, so placement walks
    again rather than trust an answer older than that pass's writes."""
    opened, root = store
    edited = (root / LEDGER).read_text(encoding="utf-8").replace("an hour", "a marmot hour")
    (root / LEDGER).write_text(edited, encoding="utf-8")
    written = opened.write(_request("Ledger lock", "The ledger lock is taken by the exporter."))
    assert 2 == len(walks)
    assert LEDGER != written.path
    assert [LEDGER] == _fts_paths(opened, "marmot")
    assert edited == (root / LEDGER).read_text(encoding="utf-8")


def test_an_edit_made_during_a_write_is_indexed_by_the_next_read(
    store: tuple[Store, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit that lands after the write's one walk (here: right after its commit) is not in
    the index update after the commit, and the next search finds it."""
    opened, root = store
    original = DulwichGitWriter.commit

    def commit_then_edit(
        self: DulwichGitWriter, changes: ChangeSet, message: str, *, expected_head: str | None
    ) -> str:
        sha = original(self, changes, message, expected_head=expected_head)
        text = (root / LEDGER).read_text(encoding="utf-8").replace("an hour", "a wombat hour")
        (root / LEDGER).write_text(text, encoding="utf-8")
        return sha

    monkeypatch.setattr(DulwichGitWriter, "commit", commit_then_edit)
    written = opened.write(_request("Deploy window", "Deploys run at nine, never on Fridays."))
    assert written.indexed
    assert [LEDGER] == _fts_paths(opened, "wombat")
    assert [written.path] == _fts_paths(opened, "fridays")
