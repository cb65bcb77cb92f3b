"""What status remembers between calls: in this process, and in a file beside the index.

Everything kept is either keyed by content (an index snapshot by the index file's checksum,
a commit's tree by the commit id, staged changes by both) or by a directory's stat stamp
under the racy rule (a directory listing), so a remembered answer is only ever reused for
the exact state it was computed from. The file is a cache: unreadable, foreign or damaged,
it is ignored, and a failed write costs nothing but speed.
"""

from __future__ import annotations

import contextlib
import logging
import marshal
import os
from pathlib import Path
from typing import Final, TypeVar

import attrs

from memhtml.adapters.git.index_file import IndexRecord
from memhtml.adapters.git.index_snapshot import IndexSnapshot, index_key
from memhtml.adapters.git.verified_files import Verified, read_record

_VERSION: Final = 1
# What an index with no entries hashes to, and what an unborn HEAD stands for.
EMPTY_TREE: Final = b"4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# The content key of a missing index file.
NO_INDEX: Final = b"none"
_MEMO_LIMIT: Final = 64
_SEPARATOR: Final = b"\x00"
# mtime, ctime, inode and device of a directory as ``os.lstat`` saw it.
Stamp = tuple[int, int, int, int]
Staged = dict[bytes, bytes | None]

_log = logging.getLogger(__name__)
_K = TypeVar("_K")
_V = TypeVar("_V")

# Content-addressed, so shared by every repository this process reads.
_snapshots: dict[str, IndexSnapshot] = {}
_head_trees: dict[bytes, bytes | None] = {}
_staged: dict[tuple[bytes, bytes | None], Staged] = {}


@attrs.frozen(kw_only=True)
class Listing:
    """One directory's entries as a scan saw them, and when.

    Attributes:
        stamp: The directory's stamp taken just before the scan.
        clock: The filesystem's time just before that stamp was taken. The listing is
            trusted only while the directory's mtime and ctime stay below it: a change made
            in the same timestamp tick as the scan would keep the stamp (git's racy rule).
        files: Names walked as files (symlinks included, whatever they point at).
        subdirs: Names of real subdirectories.
    """

    stamp: Stamp
    clock: int
    files: tuple[bytes, ...]
    subdirs: tuple[bytes, ...]

    def trusted_at(self, stamp: Stamp) -> bool:
        """Whether this listing still describes a directory now stamped ``stamp``."""
        return stamp == self.stamp and stamp[0] < self.clock and stamp[1] < self.clock


def stamp_of(info: os.stat_result) -> Stamp:
    """A directory's stamp."""
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def remembered_snapshot(index_path: str, key: bytes) -> IndexSnapshot | None:
    """The snapshot of the index at ``index_path`` when its content key is ``key``."""
    found = _snapshots.get(index_path)
    return found if found is not None and found.key == key else None


def remember_snapshot(index_path: str, snapshot: IndexSnapshot) -> None:
    """Keep ``snapshot`` as the latest of ``index_path`` (a writer that just wrote it)."""
    _snapshots[index_path] = snapshot


def remember_written_index(
    index_path: str,
    before: bytes,
    after: bytes,
    edit: tuple[set[bytes], list[IndexRecord]],
    trees: tuple[bytes | None, bytes],
) -> None:
    """A writer rewrote the index whose key was ``before`` into the bytes ``after``.

    When this process holds the old snapshot, the new one is derived from it by ``edit``
    (paths removed, records added) instead of being decoded by the next status. ``trees``
    are the commit's base tree and new tree: when the old index held exactly the base tree,
    the new index holds exactly the new one.
    """
    old = remembered_snapshot(index_path, before)
    if old is None or old.unmerged:
        return
    base, new = trees
    same = old.tree_known and old.tree() == (base if base is not None else EMPTY_TREE)
    removed, added = edit
    _snapshots[index_path] = old.edited(index_key(after), removed, added, new if same else None)


def head_tree(commit: bytes) -> tuple[bool, bytes | None]:
    """``(known, tree)`` of a commit id."""
    if commit in _head_trees:
        return True, _head_trees[commit]
    return False, None


def remember_head_tree(commit: bytes, tree: bytes | None) -> None:
    """Record a commit's tree (commits never change)."""
    _bounded(_head_trees)[commit] = tree


def staged_changes(key: bytes, tree: bytes | None) -> Staged | None:
    """The staged changes of index ``key`` against HEAD tree ``tree``, when computed."""
    return _staged.get((key, tree))


def remember_staged(key: bytes, tree: bytes | None, changes: Staged) -> None:
    """Record the staged changes of one index against one tree."""
    _bounded(_staged)[(key, tree)] = dict(changes)


def _bounded(memo: dict[_K, _V]) -> dict[_K, _V]:
    if len(memo) >= _MEMO_LIMIT:
        memo.pop(next(iter(memo)))
    return memo


class StatusCache:
    """The on-disk half: the latest snapshot, staged changes and directory listings.

    ``path`` names the cache file; ``None`` keeps everything in this process and lists
    every directory afresh. The file's directory is never listed from the cache: the file's
    own rewrites (and SQLite's next to it) change that directory at every call.
    """

    def __init__(self, path: Path | None) -> None:
        """Bind the cache to a file (created on the first save) or to none."""
        self.path = path
        self.listings: dict[bytes, Listing] = {}
        self.verified: dict[bytes, Verified] = {}
        self.dirty = False
        self._loaded: tuple[tuple[int, int, int], bytes] | None = None
        self._clock: int | None = None
        self._scratch: str | None = None

    @property
    def lists_from_cache(self) -> bool:
        """Whether listings are kept at all."""
        return self.path is not None

    def excluded_directory(self) -> bytes | None:
        """The absolute directory of the cache file, which is always listed afresh."""
        return None if self.path is None else os.fsencode(self.path.parent.absolute())

    def load(self, root: bytes) -> IndexSnapshot | None:
        """Read the file (unless it is unchanged since the last read) for repository ``root``.

        Returns the snapshot it holds, if any; listings, head trees and staged changes go to
        their memos.
        """
        self.dirty = False
        self._clock = None
        if self.path is None:
            return None
        try:
            info = os.stat(self.path)
            signature = (info.st_mtime_ns, info.st_size, info.st_ino)
            if self._loaded is not None and self._loaded == (signature, root):
                return None
            with open(self.path, "rb") as handle:
                fields = marshal.loads(handle.read())
            snapshot = self._adopt(fields, root)
        except FileNotFoundError:
            self.listings, self.verified = {}, {}
            return None
        except (OSError, ValueError, TypeError, KeyError, EOFError) as failure:
            _log.debug("git status cache ignored: %s", type(failure).__name__)
            self.listings, self.verified = {}, {}
            return None
        self._loaded = (signature, root)
        return snapshot

    def _adopt(self, fields: object, root: bytes) -> IndexSnapshot | None:
        if not isinstance(fields, dict) or fields.get("v") != _VERSION:
            raise ValueError("foreign cache")
        if fields["root"] != root:
            raise ValueError("another repository's cache")
        self.listings = {
            directory: Listing(
                stamp=(mtime, ctime, inode, device),
                clock=clock,
                files=_split(files),
                subdirs=_split(subdirs),
            )
            for directory, (mtime, ctime, inode, device, clock, files, subdirs) in fields[
                "listings"
            ].items()
        }
        self.verified = {path: read_record(record) for path, record in fields.get("ok", {}).items()}
        for commit, tree in fields["heads"]:
            remember_head_tree(commit, tree or None)
        for key, tree, pairs in fields["staged"]:
            remember_staged(key, tree or None, {path: source or None for path, source in pairs})
        encoded = fields["snapshot"]
        return None if encoded is None else IndexSnapshot.decode(encoded)

    def clock(self) -> int | None:
        """The filesystem's time now, from a scratch file beside the cache; ``None`` without one.

        Taken once per call, before the first directory is listed afresh.
        """
        if self.path is None:
            return None
        if self._clock is None:
            scratch = f"{self.path}.{os.getpid()}.tmp"
            try:
                with open(scratch, "wb") as handle:
                    self._clock = os.fstat(handle.fileno()).st_mtime_ns
            except OSError:
                return None
            self._scratch = scratch
        return self._clock

    def save(
        self,
        root: bytes,
        snapshot: IndexSnapshot,
        head: tuple[bytes, bytes | None] | None,
        staged: tuple[bytes | None, Staged] | None,
    ) -> None:
        """Write the file when anything changed since it was read; failures are ignored."""
        if self.path is None or not self.dirty:
            self._drop_scratch()
            return
        fields = {
            "v": _VERSION,
            "root": root,
            "snapshot": snapshot.encode(),
            "heads": [] if head is None else [(head[0], head[1] or b"")],
            "staged": []
            if staged is None
            else [
                (
                    snapshot.key,
                    staged[0] or b"",
                    [(path, source or b"") for path, source in staged[1].items()],
                )
            ],
            "listings": {
                directory: (
                    *listing.stamp,
                    listing.clock,
                    _SEPARATOR.join(listing.files),
                    _SEPARATOR.join(listing.subdirs),
                )
                for directory, listing in self.listings.items()
            },
            "ok": self.verified,
        }
        scratch = self._scratch or f"{self.path}.{os.getpid()}.tmp"
        self._scratch = None
        try:
            with open(scratch, "wb") as handle:
                handle.write(marshal.dumps(fields))
            os.replace(scratch, self.path)
            info = os.stat(self.path)
            self._loaded = ((info.st_mtime_ns, info.st_size, info.st_ino), root)
        except OSError as failure:
            _log.debug("git status cache not written: %s", type(failure).__name__)
            _remove(scratch)
        self.dirty = False

    def _drop_scratch(self) -> None:
        if self._scratch is not None:
            _remove(self._scratch)
            self._scratch = None


def _split(joined: bytes) -> tuple[bytes, ...]:
    return tuple(joined.split(_SEPARATOR)) if joined else ()


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)


def forget_all() -> None:
    """Drop everything this process remembers (what a new process starts with)."""
    _snapshots.clear()
    _head_trees.clear()
    _staged.clear()
