"""Small readings of a dulwich repository shared by the reader and the writer."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from dulwich.errors import NotTreeError
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Commit, ObjectID
from dulwich.objectspec import parse_commit
from dulwich.refs import HEADREF
from dulwich.repo import Repo

from memhtml.adapters.git.tree_diff import tree_entries
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import (
    REFUSED_GIT_DIR,
    REFUSED_SYMLINK,
    REFUSED_SYMLINK_ESCAPE,
    PathRefused,
    check_repo_path,
)

GIT_LOOSE_COMPRESSION: Final = 1
"""The zlib level git itself writes loose objects at when neither ``core.looseCompression`` nor
``core.compression`` is set (best speed); dulwich's own default is zlib's (6)."""
_COMPRESSION_KEYS: Final = (b"looseCompression", b"compression")
BARE_REASON: Final = "bare repository"
FORMAT_REASON: Final = "unsupported object format"
_SUPPORTED_FORMAT: Final = "sha1"


@contextmanager
def open_repository(root: str, operation: str) -> Iterator[Repo]:
    """Open the repository at ``root`` (no discovery upwards), closing it afterwards.

    SHA-1 only: blob shas cross the port as 40 hex digits and the index codec reads 20-byte
    object ids, so a SHA-256 repository is refused rather than misread.
    """
    with Repo(root) as repo:
        require_sha1(repo, operation)
        yield repo


def write_loose_as_git(repo: Repo) -> None:
    """Write this repository's loose objects at git's default level unless its config names
    one (dulwich reads the repository's own config for it, as here).

    A commit writes the trees on the changed path as loose objects; at 10,000 memories in one
    folder that tree is 761 KB, and compressing it at zlib's default level took 48.6 ms against
    12.4 ms at git's (a 9 % larger object), of a ~320 ms write. The objects are ordinary zlib
    streams: any git reads them, and a repack recompresses them anyway.
    """
    store = repo.object_store
    if not isinstance(store, DiskObjectStore) or store.loose_compression_level != -1:
        return
    config = repo.get_config()
    for key in _COMPRESSION_KEYS:
        try:
            config.get((b"core",), key)
        except KeyError:
            continue
        return  # set, to -1 itself: dulwich already honours it
    store.loose_compression_level = GIT_LOOSE_COMPRESSION


def require_sha1(repo: Repo, operation: str) -> None:
    """Refuse a repository whose objects are not named by SHA-1 (see ``open_repository``)."""
    if repo.object_format.name != _SUPPORTED_FORMAT:
        raise GitFailure(f"{operation} ({FORMAT_REASON})")


def head_commit(repo: Repo) -> ObjectID | None:
    """The commit HEAD resolves to, ``None`` on an unborn branch."""
    _, sha = repo.refs.follow(HEADREF)
    return sha


def commit_tree(repo: Repo, ref: str | bytes) -> ObjectID:
    """The root tree of the commit ``ref`` names (a sha or a ref name)."""
    return ObjectID(parse_commit(repo, ref).tree)


def commit_tree_or_empty(repo: Repo, sha: str | None) -> ObjectID | None:
    """The tree of a commit sha, ``None`` (the empty tree) when there is no commit."""
    if sha is None:
        return None
    commit = repo[sha.encode("ascii")]
    if not isinstance(commit, Commit):
        raise TypeError("not a commit")
    return ObjectID(commit.tree)


def is_file_mode(mode: int) -> bool:
    """A tree mode that names a blob in the file sense: a plain file or a symlink."""
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)


def decode_path(raw: bytes) -> str | None:
    """A tree path as text, or ``None`` when it is not UTF-8 (such paths are skipped)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def tree_path_lookup(
    repo: Repo, tree_id: ObjectID | None
) -> Callable[[str], tuple[int, ObjectID] | None]:
    """Looks up paths of one tree: the mode and sha at a path, ``None`` when absent or below a
    non-directory. Each tree object is read once, however many paths are asked.

    Every lookup walks from the root tree, and a loose tree object is a file to open and
    inflate: 500 paths under one folder would read the same two or three trees 500 times
    each. The trees come from ``tree_diff.tree_entries``, kept per tree id in this process.
    """
    store = repo.object_store

    def lookup(path: str) -> tuple[int, ObjectID] | None:
        if tree_id is None:
            return None
        entries = tree_entries(store, tree_id)  # the root must be a tree: raises otherwise
        parts = [part for part in path.encode("utf-8").split(b"/") if part]
        if not parts:
            if path:
                raise ValueError("No valid path found")
            return stat.S_IFDIR, tree_id
        found: tuple[int, bytes] | None = None
        try:
            for part in parts:
                if found is not None:
                    if not stat.S_ISDIR(found[0]):
                        return None  # below a file, a symlink or a gitlink
                    entries = tree_entries(store, found[1])
                found = entries.get(part)
                if found is None:
                    return None
        except (KeyError, NotTreeError):
            return None
        assert found is not None
        return found[0], ObjectID(found[1])

    return lookup


def require_worktree(repo: Repo, operation: str) -> None:
    """Refuse a working-tree operation on a bare repository."""
    if repo.bare:
        raise GitFailure(f"{operation} ({BARE_REASON})")


def working_path(
    root: Path,
    path: str,
    operation: str,
    *,
    follow_final: bool,
    plain_directories: set[str] | None = None,
) -> Path:
    """The filesystem path of a repo-relative path, refused if it could leave the working tree.

    No directory on the way may be a symlink (git refuses a path "beyond a symbolic link"):
    a write through one lands wherever the link points. ``follow_final`` is for reads, which
    may follow a symlinked file as long as it resolves inside the root and outside ``.git``;
    a write replaces the last segment rather than writing through it.

    Args:
        root: The working tree's root.
        path: The repo-relative path.
        operation: The port operation to name in a refusal.
        follow_final: Resolve the last segment too (reads).
        plain_directories: Directories (repo-relative) already found not to be symlinks;
            checked ones are added, so a commit of many files in few folders stats each once.

    Raises:
        PathRefused: The path is unsafe, passes through a symlinked directory, or (a read)
            resolves outside the working tree or into ``.git``.
    """
    check_repo_path(path, operation)
    known = plain_directories if plain_directories is not None else set()
    parts = path.split("/")
    for depth in range(1, len(parts)):
        directory = "/".join(parts[:depth])
        if directory in known:
            continue
        if os.path.islink(os.path.join(root, directory)):
            raise PathRefused(operation, path, REFUSED_SYMLINK)
        known.add(directory)
    target = root / path
    if follow_final:
        real_root = os.path.realpath(root)
        resolved = os.path.realpath(target)
        if os.path.commonpath([real_root, resolved]) != real_root:
            raise PathRefused(operation, path, REFUSED_SYMLINK_ESCAPE)
        if os.path.relpath(resolved, real_root).split(os.sep)[0].lower() == ".git":
            raise PathRefused(operation, path, REFUSED_GIT_DIR)
    return target
