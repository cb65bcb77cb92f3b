"""``TreeWatch`` over Linux inotify, called through ctypes (docs/freshness-watch.md).

One inotify instance per watcher: a watch on every directory of the working tree that status
walks, on the git directory (HEAD, the index, packed refs), on every refs directory and on
``.git/info``. ``news`` drains the descriptor without blocking and turns events into paths
(``inotify_events``). A directory that appears is watched before it is listed, so a file
written into it before the watch existed is found by the listing and one written after by an
event. Whatever cannot be placed (a full queue, a lost watch, a moved directory, a watch
limit) makes the answer ``UNKNOWN``, and the caller walks everything as it would without us.
"""

from __future__ import annotations

import errno
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Final

from memhtml.adapters.git.inotify_events import (
    GIT_DIR,
    WATCH_MASK,
    Action,
    Area,
    Place,
    decode_events,
    effect_of,
    join,
)
from memhtml.ports.tree_watch import UNKNOWN, TreeNews

_log = logging.getLogger(__name__)

_IN_NONBLOCK: Final = os.O_NONBLOCK
_IN_CLOEXEC: Final = os.O_CLOEXEC
_READ_SIZE: Final = 64 * 1024
_GIT_DIRS: Final = ((b"", Area.GIT), (b"info", Area.INFO))


class _Libc:
    """The inotify calls, bound once per process (ctypes is imported only when a watcher
    is armed: a one-shot command never pays for it)."""

    def __init__(self) -> None:
        import ctypes

        self.errno = ctypes.get_errno
        library = ctypes.CDLL(None, use_errno=True)
        self.init1 = library.inotify_init1
        self.init1.argtypes = [ctypes.c_int]
        self.init1.restype = ctypes.c_int
        self.add_watch = library.inotify_add_watch
        self.add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        self.add_watch.restype = ctypes.c_int


_libc: list[_Libc] = []


def _bound() -> _Libc | None:
    if not sys.platform.startswith("linux"):
        return None
    if not _libc:
        try:
            _libc.append(_Libc())
        except (OSError, AttributeError):
            return None
    return _libc[0]


class _Unwatchable(Exception):
    """A watch could not be placed (a limit, or the system lacks inotify)."""


class InotifyTreeWatch:
    """Watches the working tree at ``root`` (a non-bare repository whose ``.git`` is a folder)."""

    def __init__(self, root: str | Path) -> None:
        """Bind to a working tree; nothing is watched until ``arm``."""
        self._root = os.fsencode(os.path.abspath(root))
        self._git = os.path.join(self._root, GIT_DIR)
        self._fd: int | None = None
        self._places: dict[int, Place] = {}
        self._retired: set[int] = set()
        self._prune: Callable[[bytes], bool] = lambda _path: False

    @staticmethod
    def available() -> bool:
        """Whether this system can offer inotify (Linux); whether it does is learned when
        the watcher is armed, so a one-shot command loads nothing for it."""
        return sys.platform.startswith("linux")

    def arm(self, prune: Callable[[bytes], bool]) -> bool:
        """See ``TreeWatch.arm``."""
        self.close()
        libc = _bound()
        if libc is None or not os.path.isdir(self._git):
            return False
        fd = libc.init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            _log.info("no file-system watcher: %s", os.strerror(libc.errno()))
            return False
        self._fd, self._prune = fd, prune
        try:
            for relative, area in _GIT_DIRS:
                self._watch(
                    os.path.join(self._git, relative) if relative else self._git,
                    Place(area=area, relative=relative),
                    missing_ok=bool(relative),
                )
            self._watch_refs(os.path.join(self._git, b"refs"), b"refs")
            self._watch_tree(b"", None)
        except _Unwatchable:
            self.close()
            return False
        return True

    def news(self) -> TreeNews:
        """See ``TreeWatch.news``."""
        if self._fd is None:
            return UNKNOWN
        paths: set[bytes] = set()
        git_state = False
        try:
            while True:
                try:
                    buffer = os.read(self._fd, _READ_SIZE)
                except BlockingIOError:
                    break
                if not buffer:
                    break
                for event in decode_events(buffer):
                    place = self._places.get(event.wd)
                    retired = event.wd in self._retired
                    effect = effect_of(event, place, retired=retired, prune=self._prune)
                    action = effect.action
                    if action is Action.RESTART:
                        return self._give_up()
                    if action is Action.GIT_STATE:
                        git_state = True
                    elif action is Action.TOUCH:
                        paths.add(effect.path)
                    elif action is Action.GONE_DIRECTORY:
                        paths.add(effect.path)
                        self._retire(event.wd)
                    elif action is Action.NEW_DIRECTORY:
                        paths.add(effect.path)
                        self._watch_tree(effect.path, paths)
        except (OSError, ValueError, _Unwatchable) as failure:
            _log.debug("file-system watcher gave up: %s", type(failure).__name__)
            return self._give_up()
        return TreeNews(complete=True, git_state=git_state, paths=frozenset(paths))

    def close(self) -> None:
        """See ``TreeWatch.close``."""
        if self._fd is not None:
            os.close(self._fd)
        self._fd = None
        self._places.clear()
        self._retired.clear()

    def __del__(self) -> None:
        # A store dropped without ``close`` must not keep an inotify instance: a user has
        # only 128 of them by default.
        if getattr(self, "_fd", None) is not None:
            self.close()

    def _give_up(self) -> TreeNews:
        self.close()
        return UNKNOWN

    def _retire(self, wd: int) -> None:
        self._places.pop(wd, None)
        self._retired.add(wd)

    def _watch(self, full: bytes, place: Place, *, missing_ok: bool = False) -> bool:
        """Watch one directory; False when it is not there (or not a directory)."""
        libc = _bound()
        if libc is None or self._fd is None:
            raise _Unwatchable
        wd = libc.add_watch(self._fd, full, WATCH_MASK)
        if wd < 0:
            code = libc.errno()
            if code in (errno.ENOENT, errno.ENOTDIR) and missing_ok:
                return False
            if code in (errno.ENOENT, errno.ENOTDIR):
                raise _Unwatchable  # the tree moved under us while arming: start over
            _log.info("no file-system watcher: %s", os.strerror(code))
            raise _Unwatchable
        self._retired.discard(wd)
        self._places[wd] = place
        return True

    def _watch_refs(self, full: bytes, relative: bytes) -> None:
        if not self._watch(full, Place(area=Area.REFS, relative=relative), missing_ok=True):
            return
        for entry in _entries(full):
            if entry.is_dir(follow_symlinks=False):
                self._watch_refs(entry.path, join(relative, entry.name))

    def _watch_tree(self, relative: bytes, found: set[bytes] | None) -> None:
        """Watch ``relative`` and every directory below it that is not pruned, each before
        it is listed; add every file met to ``found`` (a directory that just appeared)."""
        pending = [relative]
        while pending:
            current = pending.pop()
            full = os.path.join(self._root, current) if current else self._root
            if not self._watch(full, Place(area=Area.TREE, relative=current), missing_ok=True):
                continue
            for entry in _entries(full):
                path = join(current, entry.name)
                try:
                    is_directory = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_directory = False
                if is_directory:
                    if entry.name == GIT_DIR or self._prune(path):
                        continue
                    pending.append(path)
                elif found is not None:
                    found.add(path)


def _entries(full: bytes) -> list[os.DirEntry[bytes]]:
    try:
        with os.scandir(full) as listing:
            return list(listing)
    except (FileNotFoundError, NotADirectoryError):
        return []
