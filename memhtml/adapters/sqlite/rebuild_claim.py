"""Which process is rebuilding the index: an ``flock`` on ``<index.db>-rebuild.lock``.

A rebuild clears the watermark first and records the commit last, so a NULL watermark means
"a rebuild is running, or one died". Only the lock tells the two apart: a rebuild holds it
from its truncate to its last write, and the kernel drops it when the process dies. An update
that finds a NULL watermark and gets the lock therefore knows the rebuild died, and resumes it;
one that does not get it knows another process is rebuilding right now.

The file sits beside index.db under a name the store's ``.gitignore`` already covers
(``index.db-*``), and stays when released: deleting a lock file lets two processes both
"hold" it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from memhtml.ports.errors import StorageFailure

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: rebuilds are not told apart from crashes
    fcntl = None  # type: ignore[assignment]

CLAIM_SUFFIX: Final = "-rebuild.lock"
_OPERATION: Final = "claim index rebuild"


class RebuildClaim:
    """The rebuild lock of one index file; a no-op for an in-memory index."""

    def __init__(self, index_path: str | None) -> None:
        """Bind to ``index_path``'s lock; ``None`` (``:memory:``) has no other process to meet."""
        self._path = None if index_path is None else Path(index_path + CLAIM_SUFFIX)
        self._held = 0

    @contextmanager
    def held(self, *, wait: bool) -> Iterator[bool]:
        """Hold the claim for the block; yields False (holding nothing) when ``wait`` is off
        and another process holds it. Nested holds in one indexer reuse the outer one.

        Raises:
            StorageFailure: The lock file cannot be opened.
        """
        if self._path is None or fcntl is None or self._held:
            self._held += 1
            try:
                yield True
            finally:
                self._held -= 1
            return
        try:
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise StorageFailure(_OPERATION) from error
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            self._held = 1
            try:
                yield True
            finally:
                self._held = 0
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def busy(self) -> bool:
        """Whether another process is rebuilding right now (a probe; holds nothing after)."""
        if self._held:
            return False
        with self.held(wait=False) as got:
            return not got
