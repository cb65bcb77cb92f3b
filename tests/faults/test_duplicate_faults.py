"""An update killed right after it displaced a stored holder (a copy at a smaller path took the
content over) forgets nothing: the displaced file is remembered before its row goes, so it comes
back when the copy is deleted, as a rebuild would index it."""

from __future__ import annotations

from pathlib import Path

from memhtml.adapters.sqlite.connection import Database
from tests.faults.harness import assert_recovered, build_base, git, ok, run_killed_at


def indexed(root: Path) -> set[str]:
    """The paths the store's index holds now."""
    with Database.open(root / ".memhtml" / "index.db") as db:
        return {str(row[0]) for row in db.all("SELECT path FROM files")}


def test_a_holder_displaced_by_a_killed_update_comes_back(tmp_path: Path) -> None:
    """Killed between the displacement and the projection, replayed, then the copy deleted:
    the original file is indexed again and the store keeps every promise of issue 14."""
    store = build_base(tmp_path / "store", memories=4)
    root, holder = store.root, store.paths[0]
    copy = f"{holder.rsplit('/', 1)[0]}/0-copy.html"
    (root / copy).write_bytes((root / holder).read_bytes())
    assert 0 == git(root, "add", copy).returncode
    assert 0 == git(root, "commit", "-q", "-m", "copy a memory").returncode
    run_killed_at(root, "update.batch", ["index", "update"])
    killed = indexed(root)
    ok(root, "index", "update")
    assert 0 == git(root, "rm", "-q", copy).returncode
    assert 0 == git(root, "commit", "-q", "-m", "drop the copy").returncode
    ok(root, "index", "update")
    assert (False, False, True) == (holder in killed, copy in killed, holder in indexed(root))
    assert_recovered(root)
