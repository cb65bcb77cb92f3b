"""Stores the warm helper keeps open between the read commands it runs for other processes.

A command-line process opens its store, runs one command and closes it, so every read pays the
opening and a freshness check that walks the whole tree (~45 ms at 10,000 memories). The warm
helper (``bootstrap/warm_helper.py``) lives across commands; holding the store a ``search``,
``recall``, ``read``, ``list`` or ``neighbors`` opened lets the next one reuse its databases,
its open repository and its file-system watcher, which answers the freshness check from the
events since the last command instead of walking (docs/freshness-watch.md).

A held store is reused only when nothing says a fresh open would differ:

- the settings the command reads from its environment are the same (root, model, tokenizer,
  identity, backend);
- ``index.db``, ``state.db`` and ``.git`` are the same files (device and inode, taken before
  the store opened them): a store whose index another process deleted or moved aside would
  otherwise keep answering from the old file;
- no killed writer left a commit to finish: an open heals that, a held store would not;
- the last command that used it did not fail in the store's own machinery (a storage, git or
  model failure, or anything unforeseen; not a missing path or an invalid flag): such a store
  is closed, and the caller (``warm_commands``) runs that command once more on a freshly
  opened one, which heals what a fresh process would heal (a database damaged since, say).

Writes always open their own store: they take their request id and their repair from it.
Everything here runs on the helper's one command thread, which owns the held stores' SQLite
connections.
"""

from __future__ import annotations

import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

import attrs

from memhtml.domain.errors import MemhtmlError
from memhtml.ports.errors import PortError

if TYPE_CHECKING:
    from memhtml.app.bootstrap.settings import Settings
    from memhtml.app.store import Store

# Not under the ``memhtml`` logger, whose records go to the running command's stderr (the
# caller's): these are the helper's own, for its log file.
_log = logging.getLogger("memhtml-helper")

CAPACITY: Final = 4
"""Stores held at once; the least recently used one is closed beyond it."""

FileIdentity = tuple[int, int] | None
"""A file's device and inode; ``None`` when it does not exist."""


@attrs.define
class _Held:
    store: Store
    settings: Settings
    files: tuple[FileIdentity, ...]


class HeldStores:
    """The stores a warm process holds between commands, by root, most recently used last."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        self._held: OrderedDict[Path, _Held] = OrderedDict()
        self.opened = 0
        """How many stores ``lease`` opened (rather than reused)."""
        self.failures = 0
        """How many commands failed on a store held from an earlier command (each closed it)."""

    def __len__(self) -> int:
        return len(self._held)

    @contextmanager
    def lease(self, settings: Settings, open_store: Callable[[], Store]) -> Iterator[Store]:
        """The held store for ``settings`` when it may be reused, else ``open_store()``; held
        again afterwards, or closed when the command failed.

        Args:
            settings: What the command read from its environment, for this store's root.
            open_store: Opens the store as a one-shot process would.
        """
        held = self._take(settings)
        if held is not None:
            store, files, reused = held.store, held.files, True
        else:
            # Taken before the open, so a file replaced during it is noticed next time.
            files = files_of(settings)
            store, reused = open_store(), False
            self.opened += 1
        try:
            yield store
        except MemhtmlError as error:
            # A storage, git or model failure: a fresh open may heal it. A missing path or an
            # invalid flag is the request's fault, and the store is as good as before.
            if isinstance(error, PortError):
                self._failed(store, settings, reused)
            else:
                self._hold(_Held(store=store, settings=settings, files=files), reused)
            raise
        except BaseException:
            self._failed(store, settings, reused)
            raise
        self._hold(_Held(store=store, settings=settings, files=files), reused)

    def _failed(self, store: Store, settings: Settings, reused: bool) -> None:
        store.close()
        if reused:
            self.failures += 1
            _log.info("closed the store at %s: a command failed on it", settings.root)

    def close_all(self) -> None:
        """Close every held store."""
        while self._held:
            _, held = self._held.popitem(last=False)
            held.store.close()

    def _take(self, settings: Settings) -> _Held | None:
        held = self._held.pop(settings.root, None)
        if held is None:
            return None
        if held.settings != settings:
            why = "the command's settings differ"
        elif files_of(settings) != held.files:
            why = "a database or the repository was replaced"
        elif held.store.services.writer.needs_recovery():
            why = "a killed writer left a commit to finish"
        else:
            return held
        held.store.close()
        _log.info("reopening the store at %s: %s", settings.root, why)
        return None

    def _hold(self, held: _Held, reused: bool) -> None:
        if not reused:
            _log.info("holding the store at %s for the next command", held.settings.root)
        self._held[held.settings.root] = held
        while len(self._held) > self._capacity:
            root, oldest = self._held.popitem(last=False)
            oldest.store.close()
            _log.info(
                "closed the store at %s: the least recently used of %d", root, self._capacity + 1
            )


def files_of(settings: Settings) -> tuple[FileIdentity, ...]:
    """The identities of the files a store's connections and repository hold open."""
    from memhtml.app.store.opening import GIT_DIR

    return tuple(
        _identity(path)
        for path in (settings.index_path, settings.state_path, settings.root / GIT_DIR)
    )


def _identity(path: Path) -> FileIdentity:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino
