"""One status pass's answer in the pieces a watcher's later pass amends, and its entries."""

from __future__ import annotations

import os
import stat

import attrs
from dulwich.objects import ObjectID

from memhtml.adapters.git.index_snapshot import IndexSnapshot
from memhtml.adapters.git.repository import decode_path
from memhtml.ports.git import StatusEntry


@attrs.frozen(kw_only=True, eq=False)
class StatusParts:
    """What one status pass found, in the pieces a watcher's later pass amends.

    Attributes:
        snapshot: The index as read.
        head: HEAD's commit, ``None`` when unborn.
        tree: HEAD's tree (``None`` when unborn).
        racy_after: The index file's mtime: entries stamped at or after it are racy.
        staged: Paths whose index entry differs from HEAD (a staged rename maps to its source).
        dirty: Tracked paths not staged whose working file differs from (or lacks) its entry.
        untracked: Files on disk the index does not know and the ignore rules keep.
    """

    snapshot: IndexSnapshot
    head: ObjectID | None
    tree: bytes | None
    racy_after: int
    staged: dict[bytes, bytes | None]
    dirty: frozenset[bytes]
    untracked: frozenset[bytes]

    def changed(self) -> dict[bytes, bytes | None]:
        """Every uncommitted path, with a staged rename's source."""
        changed = dict(self.staged)
        changed.update((path, None) for path in self.dirty if path not in self.staged)
        for path in self.untracked:
            changed.setdefault(path, None)
        return changed


def status_entries(root: bytes, changed: dict[bytes, bytes | None]) -> tuple[StatusEntry, ...]:
    """``changed`` as port entries, ordered by path; non-UTF-8 paths are dropped."""
    entries: list[StatusEntry] = []
    for raw_path, raw_source in changed.items():
        entry = status_entry(root, raw_path, raw_source)
        if entry is not None:
            entries.append(entry)
    return tuple(sorted(entries, key=lambda entry: entry.path))


def status_entry(root: bytes, raw_path: bytes, raw_source: bytes | None) -> StatusEntry | None:
    """One changed path as a port entry (``None`` when a path is not UTF-8)."""
    path = decode_path(raw_path)
    source = None if raw_source is None else decode_path(raw_source)
    if path is None or (raw_source is not None and source is None):
        return None
    deleted = not _is_file(os.path.join(root, raw_path))
    return StatusEntry(path=path, deleted=deleted, from_path=source)


def _is_file(full: bytes) -> bool:
    try:
        info = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)
