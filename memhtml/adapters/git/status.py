"""Working-tree status over dulwich: the index against HEAD, then the files against the index.

Read-only: unlike ``porcelain.status`` this never refreshes the index's stat cache, because
rewriting the index from a snapshot read before a concurrent commit would drop that commit's
entries. Sized for a 10,000-file store, and for being asked on every read: the index is
decoded once per content (``index_snapshot``), staged changes are computed once per index and
HEAD (hashing the index into trees and walking only the subtrees that differ from HEAD's),
each tracked file costs one ``lstat`` unless its stat data cannot vouch for it, and untracked
files come from one walk that lists only the directories that changed (``untracked``).
What is reused between calls, and why it stays exact, is in ``status_cache``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Container, Iterator
from operator import attrgetter
from typing import Final, Literal

from dulwich.objects import S_ISGITLINK, ObjectID
from dulwich.repo import Repo

from memhtml.adapters.git.index_snapshot import (
    IndexSnapshot,
    index_key,
    read_snapshot,
    snapshot_of,
)
from memhtml.adapters.git.index_vs_head import index_against_head
from memhtml.adapters.git.repository import (
    commit_tree_or_empty,
    head_commit,
)
from memhtml.adapters.git.status_cache import (
    EMPTY_TREE,
    NO_INDEX,
    StatusCache,
    head_tree,
    remember_head_tree,
    remember_snapshot,
    remember_staged,
    remembered_snapshot,
    staged_changes,
)
from memhtml.adapters.git.status_parts import StatusParts, status_entries
from memhtml.adapters.git.untracked import untracked_paths
from memhtml.adapters.git.verified_files import Verified, verified_record
from memhtml.ports.git import StatusEntry, blob_sha

WorkingState = Literal["clean", "modified", "deleted"]
_BlobKey = tuple[bytes, int]
_WORD: Final = 0xFFFFFFFF
# What ``IndexSnapshot.signatures`` holds per path, read off an ``os.lstat`` result.
_SIGNATURE: Final = attrgetter("st_mtime_ns", "st_ctime_ns", "st_size")


def working_tree_status(repo: Repo, cache: StatusCache | None = None) -> tuple[StatusEntry, ...]:
    """Every uncommitted path, one entry each, ordered by path (see ``GitPort.status``).

    ``cache`` keeps what can be reused between calls (``status_cache``); without one, only
    this process's content-addressed memos are used and every directory is listed.
    """
    return status_entries(os.fsencode(repo.path), full_status(repo, cache).changed())


def full_status(repo: Repo, cache: StatusCache | None = None) -> StatusParts:
    """One whole status pass: the index against HEAD, every tracked file, every directory."""
    cache = cache if cache is not None else StatusCache(None)
    root = os.fsencode(repo.path)
    snapshot, head, tree, racy_after = git_side(repo, cache)
    staged = _staged(repo, snapshot, tree, cache)
    dirty = frozenset(
        path
        for path, state in _dirty_tracked(root, snapshot, staged, racy_after, cache)
        if state != "clean"
    )
    known = snapshot.known_paths()
    untracked = frozenset(untracked_paths(repo, known, cache, holding=snapshot.directories()))
    staged_memo = staged_changes(snapshot.key, tree)
    cache.save(
        root,
        snapshot,
        None if head is None else (head, tree),
        None if staged_memo is None else (tree, staged_memo),
    )
    return StatusParts(
        snapshot=snapshot,
        head=head,
        tree=tree,
        racy_after=racy_after,
        staged=staged,
        dirty=dirty,
        untracked=untracked,
    )


def git_side(
    repo: Repo, cache: StatusCache
) -> tuple[IndexSnapshot, ObjectID | None, bytes | None, int]:
    """The index snapshot, HEAD, HEAD's tree and the index file's mtime, from memos when
    they hold this exact index and commit."""
    index_path = repo.index_path()
    data, racy_after = _read_index_file(index_path)
    snapshot = _snapshot(index_path, data, cache.load(os.fsencode(repo.path)), cache)
    head = head_commit(repo)
    return snapshot, head, _head_tree(repo, head, cache), racy_after


def staged_of(
    repo: Repo, snapshot: IndexSnapshot, tree: bytes | None, cache: StatusCache
) -> dict[bytes, bytes | None]:
    """Paths whose index entry differs from HEAD's tree (see ``_staged``)."""
    return _staged(repo, snapshot, tree, cache)


def _read_index_file(index_path: str) -> tuple[bytes | None, int]:
    """The index file's bytes and its mtime (``None`` and 0 when there is no index)."""
    try:
        with open(index_path, "rb") as handle:
            mtime = os.fstat(handle.fileno()).st_mtime_ns
            return handle.read(), mtime
    except FileNotFoundError:
        return None, 0


def _snapshot(
    index_path: str, data: bytes | None, from_disk: IndexSnapshot | None, cache: StatusCache
) -> IndexSnapshot:
    """The snapshot of ``data``: remembered in this process, read from the cache, or decoded."""
    key = NO_INDEX if data is None else index_key(data)
    found = remembered_snapshot(index_path, key)
    if found is None and from_disk is not None and from_disk.key == key:
        found = from_disk
    if found is None:
        found = snapshot_of(NO_INDEX, ()) if data is None else read_snapshot(data)
        cache.dirty = True
    remember_snapshot(index_path, found)
    return found


def _head_tree(repo: Repo, head: ObjectID | None, cache: StatusCache) -> bytes | None:
    """The tree HEAD's commit holds (``None`` on an unborn branch)."""
    if head is None:
        return None
    known, tree = head_tree(head)
    if not known:
        tree = commit_tree_or_empty(repo, head.decode("ascii"))
        remember_head_tree(head, tree)
        cache.dirty = True
    return tree


def _staged(
    repo: Repo, snapshot: IndexSnapshot, tree: bytes | None, cache: StatusCache
) -> dict[bytes, bytes | None]:
    """Paths whose index entry differs from HEAD, remembered per (index, HEAD tree)."""
    remembered = staged_changes(snapshot.key, tree)
    if remembered is not None:
        return dict(remembered)
    if not snapshot.tree_known:
        cache.dirty = True
    if snapshot.tree() == (tree if tree is not None else EMPTY_TREE):
        changes: dict[bytes, bytes | None] = {}
    else:
        changes = index_against_head(repo, snapshot, tree)
    remember_staged(snapshot.key, tree, changes)
    cache.dirty = True
    return changes


def _dirty_tracked(
    root: bytes,
    snapshot: IndexSnapshot,
    skip: Container[bytes],
    racy_after: int,
    cache: StatusCache,
) -> Iterator[tuple[bytes, WorkingState]]:
    """The working state of every tracked path whose stat data cannot vouch for it.

    One ``lstat`` per path, compared in bulk: mtime, ctime and size are trusted only for an
    entry stamped before the index file itself was written (``_working_state``); anything
    else is read and hashed, unless the cache verified this very stat data against this
    blob before (``verified_files``). A type change comes with a new ctime, so it never passes.
    """
    full = snapshot.full_paths(root)
    expected = snapshot.signatures()
    try:
        observed: list[tuple[int, int, int] | None] = list(map(_SIGNATURE, map(os.lstat, full)))
    except (FileNotFoundError, NotADirectoryError):
        observed = [_signature_or_none(path) for path in full]
    suspects: set[int] = set()
    if observed != expected:
        pairs = zip(observed, expected, strict=True)
        suspects.update(position for position, (a, b) in enumerate(pairs) if a != b)
    if snapshot.newest_mtime() >= racy_after:
        mtimes = snapshot.mtimes
        suspects.update(position for position, mtime in enumerate(mtimes) if mtime >= racy_after)
    kept: dict[bytes, Verified] = {}
    for position in sorted(suspects):
        path = snapshot.paths[position]
        if path in skip or S_ISGITLINK(snapshot.modes[position]):
            continue
        sha, seen = snapshot.sha(position), observed[position]
        record = cache.verified.get(path)
        if seen is not None and record is not None and record[:3] == seen and record[3] == sha:
            kept[path] = record
            continue
        clock = cache.clock() if seen is not None else None
        state = _working_state(root, path, sha)
        if state == "clean" and clock is not None and seen is not None:
            verified = verified_record(seen, sha, clock)
            if verified is not None:
                kept[path] = verified
        yield path, state
    if kept != cache.verified:
        cache.verified = kept
        cache.dirty = True


def tracked_state(
    root: bytes, snapshot: IndexSnapshot, position: int, racy_after: int
) -> WorkingState:
    """The working state of the tracked entry at ``position``, by the rules of
    ``_dirty_tracked``: stat data vouches for an entry stamped before the index file was
    written; anything else is read and hashed."""
    if S_ISGITLINK(snapshot.modes[position]):
        return "clean"
    path = snapshot.paths[position]
    seen = _signature_or_none(os.path.join(root, path))
    if seen is None:
        return "deleted"
    expected = (snapshot.mtimes[position], snapshot.ctimes[position], snapshot.sizes[position])
    if seen == expected and snapshot.mtimes[position] < racy_after:
        return "clean"
    return _working_state(root, path, snapshot.sha(position))


def _signature_or_none(full: bytes) -> tuple[int, int, int] | None:
    try:
        return _SIGNATURE(os.lstat(full))
    except (FileNotFoundError, NotADirectoryError):
        return None


def _working_state(root: bytes, path: bytes, sha: bytes) -> WorkingState:
    """Compare one working file with its index entry by content.

    Reached only when the stat data cannot vouch for the file: it changed, or the entry was
    stamped in the same timestamp tick as the index file was written, where a later edit
    could keep size, mtime and ctime (git's "racy git" rule).
    """
    full = os.path.join(root, path)
    try:
        info = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return "deleted"
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        return "deleted"
    if stat.S_ISLNK(info.st_mode):
        data = os.readlink(full)
    else:
        with open(full, "rb") as handle:
            data = handle.read()
    return "clean" if blob_sha(data).encode("ascii") == sha else "modified"
