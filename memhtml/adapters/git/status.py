"""Working-tree status over dulwich: the index against HEAD, then the files against the index.

Read-only: unlike ``porcelain.status`` this never refreshes the index's stat cache, because
rewriting the index from a snapshot read before a concurrent commit would drop that commit's
entries. Sized for a 10,000-file store: the index is decoded in bulk, staged changes are found
by hashing the index into trees and walking only the subtrees that differ from HEAD's, and
untracked files come from one walk that asks the ignore rules only about untracked paths.
"""

from __future__ import annotations

import os
import stat
from collections import defaultdict
from collections.abc import Collection, Iterator
from typing import Final, Literal

from dulwich.diff_tree import CHANGE_ADD, CHANGE_DELETE, tree_changes
from dulwich.ignore import IgnoreFilterManager
from dulwich.index import commit_tree
from dulwich.object_store import MemoryObjectStore, OverlayObjectStore
from dulwich.objects import S_ISGITLINK, ObjectID
from dulwich.objects import TreeEntry as GitTreeEntry
from dulwich.repo import Repo

from memhtml.adapters.git.index_file import IndexRecord, read_index, tree_id
from memhtml.adapters.git.repository import (
    commit_tree_or_empty,
    decode_path,
    head_commit,
    is_file_mode,
)
from memhtml.ports.git import StatusEntry, blob_sha

WorkingState = Literal["clean", "modified", "deleted"]
_BlobKey = tuple[bytes, int]
_GIT_DIR: Final = ".git"
# What an index with no entries hashes to, and what an unborn HEAD stands for.
_EMPTY_TREE: Final = b"4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def working_tree_status(repo: Repo) -> tuple[StatusEntry, ...]:
    """Every uncommitted path, one entry each, ordered by path (see ``GitPort.status``)."""
    tracked: dict[bytes, IndexRecord] = {}
    unmerged: set[bytes] = set()
    for record in read_index(repo.index_path()):
        if record.stage:
            unmerged.add(record.path)
        else:
            tracked[record.path] = record
    for conflicted in unmerged:
        tracked.pop(conflicted, None)
    changed = _staged_changes(repo, tracked, unmerged)
    root = os.fsencode(repo.path)
    racy_after = _index_mtime_ns(repo)
    for tracked_path, record in tracked.items():
        if tracked_path in changed or S_ISGITLINK(record.mode):
            continue
        if _working_state(root, tracked_path, record, racy_after) != "clean":
            changed[tracked_path] = None
    for untracked in _untracked(repo, tracked.keys() | unmerged):
        changed.setdefault(untracked, None)

    entries: list[StatusEntry] = []
    for raw_path, raw_source in changed.items():
        path = decode_path(raw_path)
        source = None if raw_source is None else decode_path(raw_source)
        if path is None or (raw_source is not None and source is None):
            continue
        deleted = not _is_file(os.path.join(root, raw_path))
        entries.append(StatusEntry(path=path, deleted=deleted, from_path=source))
    return tuple(sorted(entries, key=lambda entry: entry.path))


def _staged_changes(
    repo: Repo, tracked: dict[bytes, IndexRecord], unmerged: set[bytes]
) -> dict[bytes, bytes | None]:
    """Paths whose index entry differs from HEAD; a staged rename maps to its source."""
    head = head_commit(repo)
    head_tree = commit_tree_or_empty(repo, None if head is None else head.decode("ascii"))
    index_tree = tree_id(tracked.values())
    if index_tree == (head_tree if head_tree is not None else _EMPTY_TREE):
        return {}
    scratch = MemoryObjectStore()
    index_tree_built = commit_tree(
        scratch, ((path, ObjectID(r.sha), r.mode) for path, r in tracked.items())
    )
    store = OverlayObjectStore([scratch, repo.object_store])
    adds: dict[bytes, _BlobKey] = {}
    deletes: dict[bytes, _BlobKey] = {}
    changed: dict[bytes, bytes | None] = {}
    for change in tree_changes(store, head_tree, index_tree_built):
        old, new = _blob_key(change.old), _blob_key(change.new)
        entry = change.new if change.new is not None else change.old
        path = None if entry is None else entry.path
        if path is None or path in unmerged or (old is None and new is None):
            continue
        if change.type == CHANGE_ADD and new is not None:
            adds[path] = new
        elif change.type == CHANGE_DELETE and old is not None:
            deletes[path] = old
        else:
            changed[path] = None
    # A type change walks as a delete plus an add of one path: that is a modification.
    for path in adds.keys() & deletes.keys():
        del adds[path], deletes[path]
        changed[path] = None
    sources_by_blob: dict[_BlobKey, list[bytes]] = defaultdict(list)
    for path in sorted(deletes):
        sources_by_blob[deletes[path]].append(path)
    for path in sorted(adds):
        sources = sources_by_blob.get(adds[path])
        changed[path] = sources.pop(0) if sources else None
    for sources in sources_by_blob.values():
        changed.update((path, None) for path in sources)
    return changed


def _blob_key(entry: GitTreeEntry | None) -> _BlobKey | None:
    """Blob sha and file type of one side of a change; ``None`` when absent or a gitlink."""
    if entry is None or entry.mode is None or entry.sha is None or not is_file_mode(entry.mode):
        return None
    return entry.sha, stat.S_IFMT(entry.mode)


def _index_mtime_ns(repo: Repo) -> int:
    try:
        return os.stat(repo.index_path()).st_mtime_ns
    except FileNotFoundError:
        return 0


def _working_state(root: bytes, path: bytes, record: IndexRecord, racy_after: int) -> WorkingState:
    """Compare one working file with its index entry.

    Size, mtime and ctime are trusted only for an entry stamped before the index file itself
    was written: a file changed within the same timestamp tick as the index write keeps all
    three, and would otherwise pass as clean (git's "racy git" rule).
    """
    full = os.path.join(root, path)
    try:
        info = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return "deleted"
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        return "deleted"
    unchanged = (
        record.size == info.st_size & 0xFFFFFFFF
        and record.mtime_ns == info.st_mtime_ns
        and record.ctime_ns == info.st_ctime_ns
    )
    if unchanged and record.mtime_ns < racy_after:
        return "clean"
    if stat.S_ISLNK(info.st_mode):
        data = os.readlink(full)
    else:
        with open(full, "rb") as handle:
            data = handle.read()
    return "clean" if blob_sha(data).encode("ascii") == record.sha else "modified"


def _untracked(repo: Repo, known: Collection[bytes]) -> Iterator[bytes]:
    """Files on disk the index does not know and the ignore rules do not exclude.

    A nested repository is skipped whole, as git does; a symlink is a file, never followed.
    Ignored directories are pruned without being entered.
    """
    ignore = IgnoreFilterManager.from_repo(repo)
    root = repo.path
    for directory, subdirectories, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        prefix = "" if relative == os.curdir else relative.replace(os.sep, "/") + "/"
        keep: list[str] = []
        for name in subdirectories:
            full = os.path.join(directory, name)
            if name == _GIT_DIR and not prefix:
                continue
            if os.path.islink(full):
                files.append(name)
            elif not os.path.lexists(os.path.join(full, _GIT_DIR)) and not (
                ignore.may_prune_directory(prefix + name + "/")
            ):
                keep.append(name)
        subdirectories[:] = keep
        for name in files:
            path = os.fsencode(prefix + name)
            if path not in known and not ignore.is_ignored(prefix + name):
                yield path


def _is_file(full: bytes) -> bool:
    try:
        info = os.lstat(full)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)
