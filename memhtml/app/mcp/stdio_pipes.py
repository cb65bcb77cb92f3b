"""The stdio wire read and written on the event loop itself, when both ends are pipes.

The SDK's stdio transport reads each line and writes each message through a file wrapped for
async use, which runs every ``readline``, ``write`` and ``flush`` on a worker thread: six
thread hand-offs per tool call, each a wait for a core on a busy machine. An agent spawns a
server with pipes (or a socket pair) on both standard streams, and the loop can wait on those
directly. This module hands the transport two such streams, and does what the SDK does for its
own: the wire moves to private descriptors, fd 0 reads the null device and fd 1 writes to
stderr while serving, so nothing a library prints can corrupt the protocol; both come back on
exit. A terminal, a file or Windows gets the SDK's own transport (``claimed_pipes`` yields
``None``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import anyio

READ_CHUNK: Final = 1 << 16
STDIN_FD: Final = 0
STDOUT_FD: Final = 1
STDERR_FD: Final = 2


class PipeLines:
    """The lines arriving on a non-blocking descriptor, decoded as the SDK's transport does.

    Iterates until end of file; a last line without its newline is still yielded.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending = bytearray()
        self._ended = False

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        while True:
            end = self._pending.find(b"\n")
            if end >= 0:
                line = bytes(self._pending[: end + 1])
                del self._pending[: end + 1]
                return line.decode("utf-8", errors="replace")
            if self._ended:
                if not self._pending:
                    raise StopAsyncIteration
                rest = bytes(self._pending)
                self._pending.clear()
                return rest.decode("utf-8", errors="replace")
            await self._fill()

    async def _fill(self) -> None:
        await anyio.wait_readable(self._fd)
        try:
            chunk = os.read(self._fd, READ_CHUNK)
        except BlockingIOError:
            return
        if chunk:
            self._pending += chunk
        else:
            self._ended = True


class PipeWriter:
    """Text written straight to a non-blocking descriptor, waiting on the loop when it is full."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, text: str) -> int:
        """Write all of ``text``; returns its length in characters, as a file does."""
        left = memoryview(text.encode("utf-8"))
        while left:
            try:
                left = left[os.write(self._fd, left) :]
            except BlockingIOError:
                await anyio.wait_writable(self._fd)
        return len(text)

    async def flush(self) -> None:
        """Nothing is buffered: every write reached the descriptor."""


def _is_pipe(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@contextmanager
def claimed_pipes() -> Iterator[tuple[PipeLines, PipeWriter] | None]:
    """The standard streams as loop-driven pipes for the time of the block, or ``None`` (use
    the SDK's transport) when either is not a pipe or socket, or on Windows."""
    if sys.platform == "win32" or not (_is_pipe(STDIN_FD) and _is_pipe(STDOUT_FD)):
        yield None
        return
    import fcntl

    wire_in = fcntl.fcntl(STDIN_FD, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(STDOUT_FD, fcntl.F_DUPFD_CLOEXEC, 3)
    blocking = os.get_blocking(wire_in), os.get_blocking(wire_out)
    null = os.open(os.devnull, os.O_RDWR)
    try:
        os.dup2(null, STDIN_FD)
        os.dup2(STDERR_FD if _is_open(STDERR_FD) else null, STDOUT_FD)
        os.set_blocking(wire_in, False)
        os.set_blocking(wire_out, False)
        yield PipeLines(wire_in), PipeWriter(wire_out)
    finally:
        os.close(null)
        os.set_blocking(wire_in, blocking[0])
        os.set_blocking(wire_out, blocking[1])
        os.dup2(wire_in, STDIN_FD)
        os.dup2(wire_out, STDOUT_FD)
        os.close(wire_in)
        os.close(wire_out)


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True
