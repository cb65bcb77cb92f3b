"""The warm helper's side of a forwarded command: run it in this process as the caller's own
process would have, and hand back what it printed.

The helper runs one forwarded command at a time. For its duration the process takes the
caller's environment, working folder and streams (stdout and stderr captured, each reporting
the caller's terminal or not), then gets its own back; the command's store is opened and closed
by the command, as in any process, with the model this helper keeps loaded.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from memhtml.app.cli.commands.opening import use_loaded_embedder

if TYPE_CHECKING:
    from memhtml.ports.embedder import EmbeddingModel

Runner = Callable[[Sequence[str], Mapping[str, str], str, bool, bool], tuple[int, bytes, bytes]]
"""``(argv, environ, cwd, stdout_tty, stderr_tty) -> (status, stdout, stderr)``."""


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


def command_runner(embedder: EmbeddingModel | None) -> Runner:
    """The runner the helper serves forwarded commands with, the program imported already."""
    # What a search or a recall loads, loaded now rather than by the first forwarded command.
    import memhtml.app.cli.commands.retrieval
    import memhtml.app.retrieval.fusion_run
    import memhtml.app.store  # noqa: F401
    from memhtml.app.cli.app import cli, run

    use_loaded_embedder(embedder)
    one_at_a_time = threading.Lock()

    def run_forwarded(
        argv: Sequence[str],
        environ: Mapping[str, str],
        cwd: str,
        stdout_tty: bool,
        stderr_tty: bool,
    ) -> tuple[int, bytes, bytes]:
        out, err = _Captured(stdout_tty), _Captured(stderr_tty)
        with one_at_a_time, _as_the_caller(environ, cwd, out, err):
            status = run(cli, list(argv))
        return status, out.captured(), err.captured()

    return run_forwarded


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
