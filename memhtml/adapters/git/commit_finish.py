"""Bringing the working tree and the index to a commit that landed without them.

A commit killed after its branch moved leaves some working files at the old content (or
missing) and the index at the old tree. Finishing it walks the change from the old tree to the
new one path by path, and never overwrites what someone changed since: a working file is
written only when it is missing or still holds the old blob (its own, or that of a path the
commit removes: a moved file), and removed only when it still holds the old blob. Anything
else is kept as it is, its index entry left unstamped, so status shows it as the edit it is.
Every step is idempotent, so a finish that is itself killed is simply run again.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Final

import attrs
from dulwich.objects import ObjectID, TreeEntry
from dulwich.repo import Repo

from memhtml.adapters.git.index_file import (
    UNSTAMPED,
    IndexRecord,
    StatStamp,
    encode_entry,
    index_bytes,
    stamp_of,
)
from memhtml.adapters.git.repository import (
    commit_tree_or_empty,
    decode_path,
    is_file_mode,
    tree_path_lookup,
)
from memhtml.adapters.git.tree_diff import leaf_changes
from memhtml.adapters.git.working_tree import prune_empty_parents, remove_file, write_file
from memhtml.faults import fault_point
from memhtml.ports.git import blob_sha

_EXECUTABLE: Final = 0o755
# An encoded entry's size field: after ctime, mtime (two words each), dev, ino, mode, uid, gid.
_SIZE_AT: Final = 36
_SIZE_WIDTH: Final = 4
# What `_working_blob` answers for a directory or a symlink: never a blob id, never overwritten.
_NOT_A_FILE: Final = "not-a-file"


@attrs.frozen(kw_only=True)
class IndexEdit:
    """One path's new index entry: a blob and mode, or ``None`` to drop the path."""

    path: str
    blob: tuple[str, int] | None


@attrs.frozen(kw_only=True)
class FinishedTree:
    """What finishing a commit did to the working tree.

    Attributes:
        edits: The index edits that bring the index to the new tree.
        verified: Paths whose working file now holds the committed blob (stamped in the index).
        kept: Paths left as someone edited them (or not a plain file), so not the commit's.
        written: Working files written or removed by this pass.
        directories: Every directory a changed path lives in (for temporary-file cleanup).
    """

    edits: tuple[IndexEdit, ...]
    verified: frozenset[str]
    kept: tuple[str, ...]
    written: int
    directories: frozenset[str]


def commit_changes(repo: Repo, old: str | None, new: str) -> list[tuple[str, TreeEntry | None]]:
    """Each file path that differs between commits ``old`` and ``new``, with its new entry
    (``None`` when ``new`` drops it). Submodules and non-UTF-8 paths are skipped.

    Through ``tree_diff.leaf_changes``: dulwich's ``tree_changes`` compares every entry of
    each folder it enters in Python (0.2 s for a sync of 100 files into 10,000).
    """
    old_tree = commit_tree_or_empty(repo, old)
    new_tree = commit_tree_or_empty(repo, new)
    out: dict[str, TreeEntry | None] = {}
    for raw, gone, came in leaf_changes(repo.object_store, old_tree, new_tree):
        path = decode_path(raw)
        if path is None:
            continue
        if came is not None and is_file_mode(came[0]):
            out[path] = TreeEntry(raw, came[0], ObjectID(came[1]))
        elif gone is not None and is_file_mode(gone[0]):
            out[path] = None
    return sorted(out.items())


def finish_working_tree(
    repo: Repo,
    root: Path,
    old: str | None,
    new: str,
    changes: list[tuple[str, TreeEntry | None]] | None = None,
) -> FinishedTree:
    """Bring the working files to commit ``new`` from ``old``, keeping every foreign edit.

    ``changes`` is ``commit_changes(repo, old, new)`` when the caller has it already.
    """
    in_old = tree_path_lookup(repo, commit_tree_or_empty(repo, old))
    edits: list[IndexEdit] = []
    verified: set[str] = set()
    kept: list[str] = []
    written = 0
    if changes is None:
        changes = commit_changes(repo, old, new)
    before: dict[str, str] = {}
    for path, _ in changes:
        found = in_old(path)
        if found is not None and is_file_mode(found[0]):
            before[path] = found[1].decode("ascii")
    # A move's target that is also rewritten (an archive stamps the file it moves) holds the
    # source's old content once the move is done: that content is in git, so replacing it
    # with the commit's loses nothing, where keeping it would leave a needless edit behind.
    moved_away = {before[path] for path, entry in changes if entry is None and path in before}
    for path, entry in changes:
        target = root / path
        if _through_symlink(root, path):
            # A write through a symlinked directory lands outside the tree: the index still
            # follows the commit, the working tree is not touched.
            blob = None if entry is None else (_hex(entry.sha), entry.mode or 0)
            edits.append(IndexEdit(path=path, blob=blob))
            kept.append(path)
            continue
        if entry is None:
            edits.append(IndexEdit(path=path, blob=None))
            if _remove_if_old(root, target, before.get(path)):
                written += 1
            elif os.path.lexists(target):
                kept.append(path)
            continue
        sha, mode = _hex(entry.sha), entry.mode or 0
        edits.append(IndexEdit(path=path, blob=(sha, mode)))
        state = _working_blob(target)
        if state == sha:
            verified.add(path)
        elif state is None or state == before.get(path) or state in moved_away:
            _materialise(repo, target, entry)
            fault_point("recover.worktree")
            verified.add(path)
            written += 1
        else:
            kept.append(path)
    return FinishedTree(
        edits=tuple(edits),
        verified=frozenset(verified),
        kept=tuple(kept),
        written=written,
        directories=frozenset(os.path.dirname(path) for path, _ in changes),
    )


def updated_index(
    records: Iterable[IndexRecord],
    root: Path,
    edits: Iterable[IndexEdit],
    stamped: set[str],
    *,
    racy_after: int | None,
) -> bytes:
    """The index with the edited paths' entries replaced; every other entry kept verbatim,
    unless it is racily clean (:func:`smudged_if_racily_clean`).

    A path in ``stamped`` gets its working file's stat data, as ``git add`` would; any other
    gets none, so status re-hashes it and sees whether the working file is the blob.
    ``racy_after`` is the mtime of the index the records were read from (``None``: none).
    """
    kept, added, _ = updated_entries(records, root, edits, stamped, racy_after=racy_after)
    return index_bytes([*kept, *added])


def updated_entries(
    records: Iterable[IndexRecord],
    root: Path,
    edits: Iterable[IndexEdit],
    stamped: set[str],
    *,
    racy_after: int | None,
) -> tuple[list[IndexRecord], list[IndexRecord], set[bytes]]:
    """``updated_index``'s parts: the untouched records, the new ones (the smudged among
    them), and the paths whose records changed."""
    edit_list = list(edits)
    changed = {edit.path.encode("utf-8") for edit in edit_list}
    kept = []
    added: list[IndexRecord] = []
    for record in records:
        if record.path in changed:
            continue
        smudged = smudged_if_racily_clean(record, root, racy_after)
        if smudged is None:
            kept.append(record)
        else:
            added.append(smudged)
    changed.update(record.path for record in added)
    for edit in edit_list:
        if edit.blob is None:
            continue
        sha, mode = edit.blob
        stamp = _stamp(root / edit.path) if edit.path in stamped else UNSTAMPED
        added.append(encode_entry(edit.path.encode("utf-8"), sha.encode("ascii"), mode, stamp))
    return kept, added, changed


def index_mtime_ns(index_path: str) -> int | None:
    """The index file's mtime, the instant its entries are racy after; ``None`` without one."""
    try:
        return os.stat(index_path).st_mtime_ns
    except FileNotFoundError:
        return None


def smudged_if_racily_clean(
    record: IndexRecord, root: Path, racy_after: int | None
) -> IndexRecord | None:
    """git's racy-clean rule for writing an index (``ce_smudge_racily_clean_entry``).

    An entry stamped no earlier than the index it was read from can hide an edit that kept the
    size and landed in the same clock tick: status re-hashes such an entry only while that
    index stands. Rewritten later, the new index would make the stamp look trustworthy. So an
    entry whose stamp still matches its working file but whose content is not its blob is
    written with size 0, which no stat can match, and status hashes it again. Returns that
    record, or ``None`` to keep ``record`` as it is.
    """
    if racy_after is None or record.stage or record.mtime_ns < racy_after:
        return None
    if not stat.S_ISREG(record.mode):
        return None
    target = root / os.fsdecode(record.path)
    try:
        info = os.lstat(target)
        if (info.st_size, info.st_mtime_ns) != (record.size, record.mtime_ns):
            return None  # the stamp no longer matches: status sees the edit anyway
        data = target.read_bytes()
    except OSError:
        return None
    if blob_sha(data).encode("ascii") == record.sha:
        return None
    raw = record.raw[:_SIZE_AT] + bytes(_SIZE_WIDTH) + record.raw[_SIZE_AT + _SIZE_WIDTH :]
    return record._replace(size=0, raw=raw)


def tree_records(repo: Repo, commit: str) -> list[IndexRecord]:
    """Unstamped index records of every file in commit ``commit``'s tree."""
    tree = commit_tree_or_empty(repo, commit)
    if tree is None:
        return []
    return [
        encode_entry(entry.path, entry.sha, entry.mode)
        for entry in repo.object_store.iter_tree_contents(tree)
        if entry.path is not None
        and entry.sha is not None
        and entry.mode is not None
        and is_file_mode(entry.mode)
    ]


def _hex(sha: bytes | None) -> str:
    assert sha is not None
    return sha.decode("ascii")


def _stamp(path: Path) -> StatStamp:
    try:
        return stamp_of(os.lstat(path))
    except OSError:
        return UNSTAMPED


def _through_symlink(root: Path, path: str) -> bool:
    parts = path.split("/")
    return any(os.path.islink(root.joinpath(*parts[:depth])) for depth in range(1, len(parts)))


def _working_blob(target: Path) -> str | None:
    """The blob id of a plain working file; ``None`` when missing; ``_NOT_A_FILE`` for a
    directory or a symlink."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return _NOT_A_FILE
    return blob_sha(target.read_bytes())


def _remove_if_old(root: Path, target: Path, old: str | None) -> bool:
    state = _working_blob(target)
    if state is None:
        prune_empty_parents(root, target.parent)
        return False
    if old is not None and state == old:
        remove_file(root, target)
        return True
    return False


def _materialise(repo: Repo, target: Path, entry: TreeEntry) -> None:
    assert entry.sha is not None
    mode = entry.mode or 0
    data = repo.object_store[entry.sha].as_raw_string()
    if stat.S_ISLNK(mode):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        os.symlink(data, target)
        return
    write_file(target, data)
    if mode & 0o111:
        os.chmod(target, _EXECUTABLE)
