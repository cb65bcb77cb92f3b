"""A store is a repository's main working tree, never a linked worktree (``git worktree add``).

A linked worktree's ``.git`` is a one-line file pointing into the main repository's
``.git/worktrees/<name>/``, where its HEAD and index live, while refs and objects stay in the
main ``.git``. memhtml's crash journals, its quick look for a killed writer, the file watcher of
a warm process and the held repository all read the ``.git`` folder of the working tree, so in
a linked worktree a killed write could go unnoticed and a warm process could miss a commit.
Until those learn the split, opening one is refused with the main working tree named.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Final

from memhtml.app.errors import RepoRequired

_GIT: Final = ".git"
_POINTER: Final = "gitdir:"


def main_working_tree(git_file: Path) -> Path | None:
    """The main working tree a linked worktree's ``.git`` file points into, when it reads as
    git writes it (``gitdir: <main>/.git/worktrees/<name>``); ``None`` otherwise."""
    try:
        line = git_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith(_POINTER):
        return None
    target = Path(line[len(_POINTER) :].strip())
    if not target.is_absolute():
        target = git_file.parent / target
    main_git = target.parent.parent
    if target.parent.name != "worktrees" or main_git.name != _GIT:
        return None
    return main_git.parent.resolve()


def refuse_linked_worktree(root: Path) -> None:
    """Raise when ``root`` is a linked worktree (its ``.git`` is a file, not a folder).

    Raises:
        RepoRequired: With the main working tree as the suggested ``--repo`` when it is known.
    """
    git = root / _GIT
    if not git.is_file():
        return
    main = main_working_tree(git)
    suggestions = (
        (f"memhtml --repo {shlex.quote(str(main))} <command>",)
        if main is not None
        else ("git clone <the store's main working tree> <folder>",)
    )
    raise RepoRequired(
        f"{root} is a linked git worktree (its .git is a file); memhtml opens a repository's "
        "main working tree, where its crash journals and file watcher live",
        root=str(root),
        suggestions=suggestions,
    )
