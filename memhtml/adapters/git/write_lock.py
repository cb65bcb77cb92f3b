"""One memhtml writer at a time per repository: an advisory lock that writers queue on.

Commits already move HEAD compare-and-swap, so two writers can never both land on one parent;
but the loser must re-plan, and a writer in a tight loop can make another lose every retry (3
processes writing back to back lost a write in a few runs). Holding this lock from the
pre-write index update to the commit makes memhtml's own writers wait their turn instead.
The lock is ``flock`` on a file the composition root names (one git ignores, so status and a
refused write's "nothing changed" never see it); the kernel drops it when its holder dies, so a
crash leaves nothing to clean up. The file itself stays: deleting a lock file lets a waiter
holding the old one and a newcomer creating a new one both "hold" it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from memhtml.adapters.git.failures import git_operation
from memhtml.ports.git_writer import HeadMoved

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX; writers fall back to retrying on HeadMoved
    fcntl = None  # type: ignore[assignment]

LOCK_OPERATION: Final = "write lock"
# A writer holds the lock for one command's plan and commit: seconds for a large batch. A
# holder past this is stuck, and the waiter reports a write conflict rather than hang.
DEFAULT_TIMEOUT_S: Final = 60.0
# Polled, not blocking, so the wait can time out; short, so a queue of writers keeps moving.
_FIRST_POLL_S: Final = 0.002
_MAX_POLL_S: Final = 0.05


class RepositoryWriteLock:
    """The writers' lock of one repository, kept in the file at ``path``."""

    def __init__(self, path: str | Path, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        """Bind the lock to its file (created on first use); nothing is opened until ``held``."""
        self._path = Path(path)
        self._timeout_s = timeout_s

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block, waiting while another writer holds it.

        Raises:
            HeadMoved: Another writer held it past the timeout (the CLI's write conflict).
            GitFailure: The lock file cannot be opened or created.
        """
        if fcntl is None:  # pragma: no cover
            yield
            return
        with git_operation(LOCK_OPERATION):
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._acquire(fd)
            try:
                yield
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _acquire(self, fd: int) -> None:
        deadline = time.monotonic() + self._timeout_s
        pause = _FIRST_POLL_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise HeadMoved(None, None) from None
            time.sleep(pause)
            pause = min(pause * 2, _MAX_POLL_S)
