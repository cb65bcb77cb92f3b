"""A linked git worktree of a store is refused with the main working tree named (not opened).

Its ``.git`` is a file pointing into the main repository, where memhtml's crash journals and
the warm process's watcher do not look (docs: ARCHITECTURE.md, "A store is a main working
tree"). The worktree is made with dulwich's own ``worktree_add``, as ``git worktree add`` would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich import porcelain

import memhtml
from memhtml.app.errors import RepoRequired
from memhtml.app.store import init_store_at
from tests.integration.test_cli_commands_store import EXPORT_WRITE, data, envelope, invoke


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A store with one memory, and a linked worktree of it on a branch of its own."""
    main = tmp_path / "store"
    data(invoke(["init", "--repo", str(main)]))
    data(invoke(["--repo", str(main), *EXPORT_WRITE]))
    worktree = tmp_path / "linked"
    porcelain.worktree_add(str(main), str(worktree), branch="side")
    assert (worktree / ".git").is_file()
    return main, worktree


def test_opening_a_linked_worktree_names_the_main_working_tree(
    linked: tuple[Path, Path],
) -> None:
    """The library refuses before creating anything in the worktree."""
    main, worktree = linked
    with pytest.raises(RepoRequired, match="linked git worktree") as raised:
        memhtml.open(worktree, embedder=False)
    assert raised.value.suggestions == (f"memhtml --repo {main.resolve()} <command>",)
    assert [] == sorted(p.name for p in (worktree / ".memhtml").glob("*.db"))


def test_init_refuses_a_linked_worktree(linked: tuple[Path, Path]) -> None:
    """``init`` there would build a second index over the main store's history."""
    _, worktree = linked
    with pytest.raises(RepoRequired, match="linked git worktree"):
        init_store_at(worktree)
    assert [] == sorted(p.name for p in (worktree / ".memhtml").glob("*.db"))


def test_the_command_line_refuses_it_with_err_repo_required(
    linked: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found from inside the worktree (no --repo), a read exits 2 with the main tree named."""
    main, worktree = linked
    monkeypatch.chdir(worktree / "areas")
    monkeypatch.delenv("MEMHTML_ROOT", raising=False)
    result = invoke(["search", "export"])
    document = envelope(result)
    assert (2, "ERR_REPO_REQUIRED") == (result.exit_code, document["code"])
    assert [f"memhtml --repo {main.resolve()} <command>"] == document["suggestions"]


def test_the_main_working_tree_still_opens(linked: tuple[Path, Path]) -> None:
    """Adding a worktree changes nothing for the store itself."""
    main, _ = linked
    with memhtml.open(main, embedder=False) as store:
        assert store.search("export").hits
