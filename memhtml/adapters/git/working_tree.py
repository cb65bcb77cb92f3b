"""Bringing working-tree files in line with a change set that has just been committed."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from memhtml.faults import fault_point
from memhtml.ports.git_writer import ChangeSet


def write_file(target: Path, data: bytes) -> None:
    """Write ``data`` at ``target`` through a sibling temporary file and a rename.

    The rename replaces a symlink at ``target`` instead of writing through it, and a crash
    leaves the old file or the new one, never half of one. ``open(…, "xb")`` rather than
    ``mkstemp`` so the file gets the usual permissions under the umask, not 0600.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "xb") as handle:
            handle.write(data)
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def remove_file(root: Path, target: Path) -> None:
    """Remove ``target`` if present, then every directory it leaves empty, up to ``root``."""
    target.unlink(missing_ok=True)
    prune_empty_parents(root, target.parent)


def prune_empty_parents(root: Path, directory: Path) -> None:
    """Remove ``directory`` and its parents while they are empty, stopping at ``root``."""
    while directory != root and root in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def apply_change_set(root: Path, changes: ChangeSet, missing_sources: dict[str, bytes]) -> None:
    """Move, write and delete working files as the committed change set says.

    Moves first so that a write to a move's target lands on top of the moved file. A move
    carries the working file as it is, unstaged edits included (``git mv`` does the same);
    a source already gone from the disk is materialised from ``missing_sources``.
    """
    for move in changes.moves:
        source, target = root / move.source, root / move.target
        if move.source in missing_sources:
            write_file(target, missing_sources[move.source])
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, target)
        prune_empty_parents(root, source.parent)
        fault_point("commit.worktree")
    for write in changes.writes:
        write_file(root / write.path, write.data)
        fault_point("commit.worktree")
    for path in changes.deletes:
        remove_file(root, root / path)
        fault_point("commit.worktree")
