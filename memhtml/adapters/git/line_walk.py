"""The files each commit of a first-parent line changed: ``GitPort.first_parent_changes``'s diff.

A line of thousands of commits over a tree of thousands of files is diffed one commit at a time,
and each commit changes a handful of files among many siblings: ``tree_diff.leaf_changes``
compares two versions of a directory by their differing entries only, and keeps each parsed tree
for the next step, whose old trees are this step's new ones. This module reads its leaves as the
span walk wants them: files and symlinks, by path, with the blob after.
"""

from __future__ import annotations

from dulwich.object_store import BaseObjectStore

from memhtml.adapters.git.repository import decode_path, is_file_mode
from memhtml.adapters.git.tree_diff import leaf_changes


def changed_files(
    store: BaseObjectStore, old: bytes | None, new: bytes | None
) -> tuple[tuple[str, str | None], ...]:
    """``(path, blob after)`` of every file whose blob differs between two trees, by path.

    ``None`` after: the path holds no file in ``new`` (deleted, now a directory, or now a
    submodule). Paths that are not UTF-8, and submodules, are skipped; no rename detection. The
    same answer as dulwich's ``tree_changes`` read file by file.
    """
    found: dict[str, str | None] = {}
    for raw_path, was, now in leaf_changes(store, old, new):
        path = decode_path(raw_path)
        if path is None:
            continue
        if was is not None and is_file_mode(was[0]):
            found[path] = None
        if now is not None and is_file_mode(now[0]):
            found[path] = now[1].decode("ascii")
    return tuple(sorted(found.items()))
