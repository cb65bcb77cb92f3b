"""Untracked files: one walk of the working tree that lists a directory only when it changed.

A directory's entries change only together with its mtime and ctime, so a listing taken
before is reused while the directory's stamp is the one it had then and that stamp is older
than the filesystem time read before the listing was taken (git's racy rule, applied to
directories as git's untracked cache does). Which names are ignored is asked afresh each
time, and only about names the index does not hold, so edited ignore rules need no stamps.
"""

from __future__ import annotations

import os
from collections.abc import Container, Iterator
from typing import Final

from dulwich.ignore import IgnoreFilterManager
from dulwich.repo import Repo

from memhtml.adapters.git.status_cache import Listing, StatusCache, stamp_of

_GIT_DIR: Final = b".git"


def untracked_paths(
    repo: Repo,
    known: Container[bytes],
    cache: StatusCache,
    *,
    holding: Container[bytes] = frozenset(),
) -> Iterator[bytes]:
    """Files on disk the index does not know and the ignore rules do not exclude.

    A nested repository is skipped whole, as git does; a symlink is a file, never followed.
    Ignored directories are pruned without being entered; an unreadable one is skipped. A
    directory in ``holding`` (it holds a path the index knows) is entered without asking the
    ignore rules whether it could be pruned: each untracked file found in it is still asked
    whether it is ignored, and that answer covers an ignored parent directory too. In a store
    every directory holds memories, so the rules are read only when a file is untracked.
    """
    root = os.fsencode(repo.path)
    excluded = cache.excluded_directory()
    ignore: IgnoreFilterManager | None = None
    pending = [b""]
    visited: set[bytes] = set()
    while pending:
        relative = pending.pop()
        visited.add(relative)
        full = os.path.join(root, relative) if relative else root
        listing = _listing(full, relative, cache, fresh=full == excluded)
        if listing is None or (relative and _GIT_DIR in listing.subdirs + listing.files):
            continue
        prefix = relative + b"/" if relative else b""
        for name in listing.subdirs:
            if not relative and name == _GIT_DIR:
                continue
            path = prefix + name
            if path in holding:
                pending.append(path)
                continue
            if ignore is None:
                ignore = IgnoreFilterManager.from_repo(repo)
            if not ignore.may_prune_directory(os.fsdecode(path) + "/"):
                pending.append(path)
        for name in listing.files:
            path = prefix + name
            if path in known:
                continue
            if ignore is None:
                ignore = IgnoreFilterManager.from_repo(repo)
            if not ignore.is_ignored(os.fsdecode(path)):
                yield path
    gone = cache.listings.keys() - visited
    if gone:
        for relative in gone:
            del cache.listings[relative]
        cache.dirty = True


def _listing(full: bytes, relative: bytes, cache: StatusCache, *, fresh: bool) -> Listing | None:
    """The entries of one directory, from the cache when its stamp allows."""
    try:
        stamp = stamp_of(os.lstat(full))
    except OSError:
        return None
    remembered = None if fresh else cache.listings.get(relative)
    if remembered is not None and remembered.trusted_at(stamp):
        return remembered
    clock = None if fresh or not cache.lists_from_cache else cache.clock()
    try:
        if clock is not None:
            stamp = stamp_of(os.lstat(full))
        files: list[bytes] = []
        subdirs: list[bytes] = []
        with os.scandir(full) as entries:
            for entry in entries:
                try:
                    is_directory = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_directory = False
                (subdirs if is_directory else files).append(entry.name)
    except OSError:
        if cache.listings.pop(relative, None) is not None:
            cache.dirty = True
        return None
    listing = Listing(stamp=stamp, clock=clock or 0, files=tuple(files), subdirs=tuple(subdirs))
    if clock is not None:
        cache.listings[relative] = listing
        cache.dirty = True
    return listing
