"""The warm helper's side of a forwarded command: run it in this process as the caller's own
process would have, and hand back what it printed.

The helper runs one forwarded command at a time, always on the same thread. For its duration
the process takes the caller's environment, working folder and streams (stdout and stderr
captured, each reporting the caller's terminal or not), then gets its own back. A write opens
and closes its store as in any process, with the model this helper keeps loaded; a read's
store is held for the next command (``held_stores.py``), and a read that failed on a held
store runs once more on a freshly opened one, so it answers as its own process would have.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING

from memhtml.app.cli.commands.opening import hold_stores, use_loaded_embedder
from memhtml.app.cli.held_stores import HeldStores

if TYPE_CHECKING:
    from memhtml.ports.embedder import EmbeddingModel


class _Captured(io.TextIOWrapper):
    """A UTF-8 text stream over bytes that says whether the caller's stream is a terminal."""

    def __init__(self, terminal: bool) -> None:
        self._bytes = io.BytesIO()
        super().__init__(self._bytes, encoding="utf-8", errors="surrogateescape", newline="")
        self._terminal = terminal

    def isatty(self) -> bool:
        return self._terminal

    def captured(self) -> bytes:
        self.flush()
        return self._bytes.getvalue()


class ForwardedCommands:
    """Runs forwarded commands, one at a time on one thread, which also owns the held stores
    (their SQLite connections may be used only by the thread that opened them)."""

    def __init__(self, embedder: EmbeddingModel | None, held: HeldStores | None = None) -> None:
        # What a search or a recall loads, loaded now rather than by the first command.
        import memhtml.app.cli.commands.retrieval
        import memhtml.app.retrieval.fusion_run
        import memhtml.app.store  # noqa: F401

        use_loaded_embedder(embedder)
        self._held = HeldStores() if held is None else held
        hold_stores(self._held)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memhtml-command")

    def __call__(
        self,
        argv: Sequence[str],
        environ: Mapping[str, str],
        cwd: str,
        stdout_tty: bool,
        stderr_tty: bool,
    ) -> tuple[int, bytes, bytes]:
        """Run one command as the caller: ``(status, stdout, stderr)``."""

        def attempt() -> tuple[int, bytes, bytes]:
            return run_as_caller(argv, environ, cwd, stdout_tty, stderr_tty)

        return self._thread.submit(again_if_held_failed, self._held, attempt).result()

    def close(self) -> None:
        """Close the held stores once the command running now (if any) is done."""
        self._thread.submit(self._held.close_all).result()
        self._thread.shutdown()


def command_runner(embedder: EmbeddingModel | None) -> ForwardedCommands:
    """The runner the helper serves forwarded commands with, the program imported already."""
    return ForwardedCommands(embedder)


def again_if_held_failed(
    held: HeldStores, command: Callable[[], tuple[int, bytes, bytes]]
) -> tuple[int, bytes, bytes]:
    """``command()``; once more when it failed on a store held from an earlier command (which
    ``held`` closed), so the answer is what a freshly opened store gives."""
    failures = held.failures
    answer = command()
    if held.failures != failures:
        answer = command()
    return answer


def run_as_caller(
    argv: Sequence[str], environ: Mapping[str, str], cwd: str, stdout_tty: bool, stderr_tty: bool
) -> tuple[int, bytes, bytes]:
    """Run one command in this process as the caller's own process would: ``(status,
    stdout, stderr)``."""
    from memhtml.app.cli.app import cli, run

    out, err = _Captured(stdout_tty), _Captured(stderr_tty)
    with _as_the_caller(environ, cwd, out, err):
        status = run(cli, list(argv))
    return status, out.captured(), err.captured()


@contextmanager
def _as_the_caller(
    environ: Mapping[str, str], cwd: str, out: _Captured, err: _Captured
) -> Iterator[None]:
    saved_environ, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    os.environ.clear()
    os.environ.update(environ)
    try:
        os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(), out, err
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
