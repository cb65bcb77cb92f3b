"""Staged changes: the git index against HEAD's tree, a staged rename paired with its source."""

from __future__ import annotations

import stat
from collections import defaultdict

from dulwich.diff_tree import CHANGE_ADD, CHANGE_DELETE, tree_changes
from dulwich.index import commit_tree
from dulwich.object_store import MemoryObjectStore, OverlayObjectStore
from dulwich.objects import ObjectID
from dulwich.objects import TreeEntry as GitTreeEntry
from dulwich.repo import Repo

from memhtml.adapters.git.index_snapshot import IndexSnapshot
from memhtml.adapters.git.repository import is_file_mode

_BlobKey = tuple[bytes, int]


def index_against_head(
    repo: Repo, snapshot: IndexSnapshot, head_tree: bytes | None
) -> dict[bytes, bytes | None]:
    """Paths whose index entry differs from HEAD; a staged rename maps to its source."""
    unmerged = snapshot.unmerged
    scratch = MemoryObjectStore()
    index_tree_built = commit_tree(
        scratch, ((path, ObjectID(sha), mode) for path, sha, mode in snapshot.entries())
    )
    store = OverlayObjectStore([scratch, repo.object_store])
    adds: dict[bytes, _BlobKey] = {}
    deletes: dict[bytes, _BlobKey] = {}
    changed: dict[bytes, bytes | None] = {}
    base = None if head_tree is None else ObjectID(head_tree)
    for change in tree_changes(store, base, index_tree_built):
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
