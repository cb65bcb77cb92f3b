"""One memhtml writer at a time per repository: an advisory lock that writers queue on.

Commits already move HEAD compare-and-swap, so two writers can never both land on one parent;
but the loser must re-plan, and a writer in a tight loop can make another lose every retry (3
processes writing back to back lost a write in a few runs). Holding this lock from the
pre-write index update to the commit makes memhtml's own writers wait their turn instead.
The lock is ``flock`` on a file the composition root names (one git ignores, so status and a
refused write's "nothing changed" never see it); the kernel drops it when its holder dies, so a
crash leaves nothing to clean up. The file itself stays: deleting a lock file lets a waiter
holding the old one and a newcomer creating a new one both "hold" it.

Re-entrant per lock object and thread: the commit takes the lock itself (so every committer,
``state export`` included, is serialized and may repair a dead writer's leftovers), while the
mutation frame already holds the same object around the whole command. ``flock`` conflicts
between two descriptors even inside one process, so a nested ``held`` reuses the outer hold
instead of opening a second descriptor and waiting on itself forever. Two lock objects on one
file still exclude each other, as two processes do.
"""

from __future__ import annotations

import os
import threading
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
        # thread -> how deep that thread's holds of this object are nested.
        self._depths: dict[int, int] = {}

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block, waiting while another writer holds it.

        Raises:
            HeadMoved: Another writer held it past the timeout (the CLI's write conflict).
            GitFailure: The lock file cannot be opened or created.
        """
        with self._hold(wait=True) as got:
            assert got  # a waiting hold either gets the lock or raises
            yield

    @contextmanager
    def held_if_free(self) -> Iterator[bool]:
        """Hold the lock for the block if nobody else does; yields whether it is held.

        For work a reader may do on the way (finishing a dead writer's commit) but must never
        wait for: a live writer may hold the lock for the whole of a long batch.

        Raises:
            GitFailure: The lock file cannot be opened or created.
        """
        with self._hold(wait=False) as got:
            yield got

    @contextmanager
    def _hold(self, *, wait: bool) -> Iterator[bool]:
        if fcntl is None:  # pragma: no cover
            yield True
            return
        key = threading.get_ident()
        if key in self._depths:
            self._depths[key] += 1
            try:
                yield True
            finally:
                self._depths[key] -= 1
            return
        with git_operation(LOCK_OPERATION):
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if not self._acquire(fd, wait=wait):
                yield False
                return
            self._depths[key] = 1
            try:
                yield True
            finally:
                del self._depths[key]
                fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _acquire(self, fd: int, *, wait: bool) -> bool:
        deadline = time.monotonic() + self._timeout_s
        pause = _FIRST_POLL_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if not wait:
                    return False
                if time.monotonic() >= deadline:
                    raise HeadMoved(None, None) from None
            time.sleep(pause)
            pause = min(pause * 2, _MAX_POLL_S)
