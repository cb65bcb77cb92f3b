"""Reading a linked worktree's ``.git`` file: which main working tree it points into."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.linked_worktree import main_working_tree

names = st.text(alphabet="abcdefghij-_0123456789", min_size=1, max_size=12)


@given(parts=st.lists(names, min_size=1, max_size=3), name=names, relative=st.booleans())
def test_a_pointer_as_git_writes_it_names_the_main_tree(
    parts: list[str], name: str, relative: bool
) -> None:
    """``gitdir: <main>/.git/worktrees/<name>``, absolute or relative to the worktree's
    folder, reads back as ``<main>``."""
    with tempfile.TemporaryDirectory() as directory:
        top = Path(directory).resolve()
        main = top.joinpath("main", *parts)
        pointer = top / "wt" / ".git"
        pointer.parent.mkdir()
        target = main / ".git" / "worktrees" / name
        shown = Path("..", *target.relative_to(top).parts) if relative else target
        pointer.write_text(f"gitdir: {shown}\n", encoding="utf-8")
        assert main == main_working_tree(pointer)


def test_anything_else_reads_as_unknown(tmp_path: Path) -> None:
    """A pointer outside ``.git/worktrees/``, a file without one, and a missing file: None."""
    odd = tmp_path / "odd"
    odd.write_text("gitdir: /srv/repo.git\n", encoding="utf-8")
    plain = tmp_path / "plain"
    plain.write_text("not a pointer\n", encoding="utf-8")
    assert [None, None, None] == [
        main_working_tree(odd),
        main_working_tree(plain),
        main_working_tree(tmp_path / "missing"),
    ]
