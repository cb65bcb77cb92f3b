"""The files each commit of a first-parent line changed: ``GitPort.first_parent_changes``'s diff.

A line of thousands of commits over a tree of thousands of files is diffed one commit at a time,
and each commit changes a handful of files among many siblings. dulwich's general tree diff
builds an entry object for every sibling it passes; here two versions of a directory are compared
as sets of ``(name, mode, sha)`` entries, so the siblings they share cost one hash each, and only
the entries that differ (and the subtrees among them) are looked at. Directory listings are
parsed straight from the raw tree objects and kept for the next step, whose old trees are this
step's new ones. A loose tree object (what every commit of this tool writes) is read as git
stores it, one zlib stream of ``tree <size>\\0`` and the entries, instead of through dulwich's
object reader, which parses the tree into an object and serializes it again; anything else
(packed, in an alternate, or a store that is not on disk) goes through dulwich.
"""

from __future__ import annotations

import os
import stat
import zlib
from typing import Final

from dulwich.object_store import BaseObjectStore, DiskObjectStore
from dulwich.objects import ObjectID, Tree, parse_tree

from memhtml.adapters.git.repository import decode_path, is_file_mode
from memhtml.ports.errors import GitFailure

Listing = frozenset[tuple[bytes, int, bytes]]
"""A directory: its ``(name, mode, hex sha)`` entries."""

_LISTINGS_KEPT: Final = 512
"""Listings held before the older half is let go (a step reads a few; the next reuses them)."""

_EMPTY: Final[Listing] = frozenset()
_TREE_HEADER: Final = b"tree "


class ListingMemo:
    """Parsed directory listings by tree id, the last step's kept for the next."""

    def __init__(self, store: BaseObjectStore, operation: str) -> None:
        self._store = store
        self._operation = operation
        self._loose = os.fsencode(store.path) if isinstance(store, DiskObjectStore) else None
        self._held: dict[bytes, Listing] = {}
        self._previous: dict[bytes, Listing] = {}

    def listing(self, tree: bytes | None) -> Listing:
        """The entries of ``tree`` (hex id); ``None`` is the empty tree."""
        if tree is None:
            return _EMPTY
        found = self._held.get(tree) or self._previous.get(tree)
        if found is None:
            raw = self._raw_tree(tree)
            found = frozenset(parse_tree(raw, len(tree) // 2))
        self._held[tree] = found
        if len(self._held) > _LISTINGS_KEPT:
            self._previous, self._held = self._held, {}
        return found

    def _raw_tree(self, tree: bytes) -> bytes:
        if self._loose is not None:
            path = os.path.join(self._loose, tree[:2], tree[2:])
            try:
                with open(path, "rb") as handle:
                    data = zlib.decompress(handle.read())
            except FileNotFoundError:
                pass  # packed, or in an alternate
            except zlib.error as error:
                raise GitFailure(self._operation) from error
            else:
                header, _, body = data.partition(b"\0")
                if not header.startswith(_TREE_HEADER):
                    raise GitFailure(self._operation)
                return body
        kind, raw = self._store.get_raw(ObjectID(tree))
        if kind != Tree.type_num:
            raise GitFailure(self._operation)
        return raw


def changed_files(
    memo: ListingMemo, old: bytes | None, new: bytes | None
) -> tuple[tuple[str, str | None], ...]:
    """``(path, blob after)`` of every file whose blob differs between two trees, by path.

    ``None`` after: the path holds no file in ``new`` (deleted, or now a directory). Paths that
    are not UTF-8, and entries that are neither files nor symlinks (submodules), are skipped;
    no rename detection. The same answer as dulwich's ``tree_changes`` read file by file.
    """
    found: dict[str, str | None] = {}
    _diff(memo, old, new, b"", found)
    return tuple(sorted(found.items()))


def _diff(
    memo: ListingMemo,
    old: bytes | None,
    new: bytes | None,
    prefix: bytes,
    found: dict[str, str | None],
) -> None:
    if old == new:
        return
    before, after = memo.listing(old), memo.listing(new)
    gone = {name: (mode, sha) for name, mode, sha in before - after}
    came = {name: (mode, sha) for name, mode, sha in after - before}
    for name in gone.keys() | came.keys():
        was, now = gone.get(name), came.get(name)
        path = prefix + name
        subtrees = _tree_sha(was), _tree_sha(now)
        _record(path, was, None, found)
        _record(path, now, now[1] if now is not None else None, found)
        if subtrees != (None, None):
            _diff(memo, subtrees[0], subtrees[1], path + b"/", found)


def _tree_sha(entry: tuple[int, bytes] | None) -> bytes | None:
    return entry[1] if entry is not None and stat.S_ISDIR(entry[0]) else None


def _record(
    path: bytes, entry: tuple[int, bytes] | None, blob: bytes | None, found: dict[str, str | None]
) -> None:
    if entry is None or not is_file_mode(entry[0]):
        return
    text = decode_path(path)
    if text is not None:
        found[text] = None if blob is None else blob.decode("ascii")
