"""The helper's side of forwarded commands before the program is imported: the runner's
shape (the command line builds it, ``cli/warm_commands.py``) and its build on a thread of its
own, so the command that started the helper gets its vector without waiting for the import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from memhtml.adapters.warm.commands import CommandRequest, CommandResult
    from memhtml.ports.embedder import EmbeddingModel


class PlainRunner(Protocol):
    """The command line's runner for forwarded commands (``cli/warm_commands.py``)."""

    def __call__(
        self,
        argv: Sequence[str],
        environ: Mapping[str, str],
        cwd: str,
        stdout_tty: bool,
        stderr_tty: bool,
    ) -> tuple[int, bytes, bytes]:
        """Run one command as the caller: ``(status, stdout, stderr)``."""
        ...

    def close(self) -> None:
        """Release what it holds between commands (the helper is stopping)."""
        ...


CommandsFactory = Callable[["EmbeddingModel | None"], PlainRunner]


class DeferredCommands:
    """The command runner built on a thread of its own (importing the program takes ~0.3–0.5
    s), in the helper loop's request and result types; a request waits for the build."""

    def __init__(self, commands: CommandsFactory, embedder: EmbeddingModel | None) -> None:
        self._built: list[PlainRunner] = []
        self._done = threading.Event()

        def build() -> None:
            try:
                self._built.append(commands(embedder))
            except Exception:
                import logging

                logging.getLogger(__name__).exception("forwarded commands will not be served")
            finally:
                self._done.set()

        threading.Thread(target=build, name="memhtml-helper-import", daemon=True).start()

    def __call__(self, request: CommandRequest) -> CommandResult:
        from memhtml.adapters.warm.commands import CommandResult

        self._done.wait()
        if not self._built:  # the caller sees the connection close and runs the command itself
            raise RuntimeError("the command runner could not be built")
        status, out, err = self._built[0](
            request.argv, request.environ, request.cwd, request.stdout_tty, request.stderr_tty
        )
        return CommandResult(status=status, stdout=out, stderr=err)

    def close(self) -> None:
        """Close what the runner holds, once it is built."""
        self._done.wait()
        if self._built:
            self._built[0].close()
