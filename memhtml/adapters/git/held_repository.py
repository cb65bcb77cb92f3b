"""One repository object kept open across a warm process's reads, while it is still valid.

Opening a dulwich ``Repo`` parses the config and, on the first object read, loads every pack
index: ~1–2 ms each time, and an index update opens it about six times. A warm process (one
whose git port holds a file-system watcher) keeps one open instead. What it caches stays
true: refs and HEAD are read from their files on every call, dulwich re-reads the packed refs
when that file is replaced and rescans the pack folder when an object is missing or a pack
vanished (a fetch, a repack). What it reads once — the config, the alternates, the git
folder itself — is stamped, and a changed stamp opens the repository afresh.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from dulwich.repo import Repo

from memhtml.adapters.git.repository import require_sha1

_Stamp = tuple[tuple[int, ...] | None, ...]
# Folders by identity (their contents change at every commit and are read afresh anyway)…
_IDENTIFIED = (b"", b"objects")
# …and the files an open repository reads once, by their full stat data.
_STAMPED = (b"config", b"objects/info/alternates", b"commondir")


class HeldRepository:
    """The repository at ``root``, opened once and reused while its stamp holds."""

    def __init__(self, root: str) -> None:
        """Bind to a working tree; nothing is opened until first used."""
        self._root = root
        self._git = os.path.join(os.fsencode(root), b".git")
        self._repo: Repo | None = None
        self._stamp: _Stamp = ()
        self._lock = threading.RLock()

    @contextmanager
    def use(self, operation: str) -> Iterator[Repo]:
        """The held repository (opened again when stale), for one operation at a time."""
        with self._lock:
            stamp = self._current_stamp()
            if self._repo is None or stamp != self._stamp:
                self.close()
                repo = Repo(self._root)
                try:
                    require_sha1(repo, operation)
                except BaseException:
                    repo.close()
                    raise
                self._repo, self._stamp = repo, stamp
            yield self._repo

    def close(self) -> None:
        """Close the held repository, if any."""
        with self._lock:
            if self._repo is not None:
                self._repo.close()
            self._repo, self._stamp = None, ()

    def _current_stamp(self) -> _Stamp:
        stamps: list[tuple[int, ...] | None] = []
        for name in (*_IDENTIFIED, *_STAMPED):
            try:
                info = os.stat(os.path.join(self._git, name) if name else self._git)
            except OSError:
                stamps.append(None)
                continue
            if name in _IDENTIFIED:
                stamps.append((info.st_ino, info.st_dev))
            else:
                stamps.append((info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino))
        return tuple(stamps)
