"""The command line's warm helper: which configurations use it, how it is started, and its
life (``main``, run by ``python -m memhtml.app.cli.warm_serve``).

A command-line process lives for one command; loading the local model costs it ~1–2 s, most
of a hybrid search, and importing the program most of the rest. With the helper on (the
default for ``local`` and ``e5``), the first command that embeds starts one background process
per configuration, which keeps the model loaded and leaves after
``MEMHTML_EMBED_HELPER_IDLE`` seconds without a request; later commands send it their texts
over a private Unix socket (``adapters/warm``), and the console script forwards a whole
``search`` or ``recall`` to it (``warm_forward``). The library and the MCP server are
long-lived already and embed in their own process.

Starting is a double fork with a readiness pipe: the launcher forks before it imports anything
heavy, the child starts a new session, takes the configuration's lock, binds the socket and
loads the model, then says ``ready`` (or ``busy`` when another helper holds the lock) and the
launcher exits 0. A child that dies first closes the pipe unsaid and the launcher exits 1, so
the command embeds in its own process at once instead of waiting out a timeout.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

import attrs

from memhtml.app.bootstrap.config import read_embed_settings
from memhtml.app.bootstrap.warm_key import (
    DEFAULT_IDLE_SECONDS,
    ENV_EMBED_HELPER,
    ENV_EMBED_HELPER_IDLE,
    HELPER_COMMAND,
    HELPER_MODULE,
    MAX_IDLE_SECONDS,
    OFF_SPELLINGS,
    helper_key,
    served_backend,
)
from memhtml.domain.errors import InvalidInput

if TYPE_CHECKING:
    from memhtml.adapters.warm.place import HelperPlace
    from memhtml.app.bootstrap.warm_runner import CommandsFactory
    from memhtml.ports.embedder import EmbeddingModel


# The model's load plus the interpreter's start, on a loaded 2-core machine, with margin.
START_TIMEOUT_S: Final = 60.0
SERVED_BACKENDS: Final = frozenset({"local", "e5"})
_ON: Final = frozenset({"on", "1", "true", "yes"})
_OFF: Final = OFF_SPELLINGS
_WHOLE: Final = re.compile(r"[0-9]+")
_READY: Final = b"ready"
_BUSY: Final = b"busy"


@attrs.frozen(kw_only=True)
class HelperSettings:
    """Whether the command line uses the helper, and how long an idle helper stays.

    Attributes:
        enabled: ``MEMHTML_EMBED_HELPER`` (on by default).
        idle_seconds: ``MEMHTML_EMBED_HELPER_IDLE``: an idle helper's life.
    """

    enabled: bool = True
    idle_seconds: int = DEFAULT_IDLE_SECONDS


def read_helper_settings(environ: Mapping[str, str]) -> HelperSettings:
    """Parse the helper's two variables.

    Raises:
        InvalidInput: A variable holds a value it cannot take.
    """
    switch = environ.get(ENV_EMBED_HELPER, "").strip().lower()
    if switch and switch not in _ON | _OFF:
        raise InvalidInput(f"{ENV_EMBED_HELPER}={switch!r}: use on or off")
    raw_idle = environ.get(ENV_EMBED_HELPER_IDLE, "").strip()
    idle = DEFAULT_IDLE_SECONDS
    if raw_idle:
        if not _WHOLE.fullmatch(raw_idle) or not 1 <= int(raw_idle) <= MAX_IDLE_SECONDS:
            raise InvalidInput(
                f"{ENV_EMBED_HELPER_IDLE}={raw_idle!r}: use a whole number of seconds from 1 "
                f"to {MAX_IDLE_SECONDS}"
            )
        idle = int(raw_idle)
    return HelperSettings(enabled=switch not in _OFF, idle_seconds=idle)


def command_line_embedder(environ: Mapping[str, str]) -> EmbeddingModel | None:
    """The embedder a command-line process uses: the configured one, behind the warm helper
    when the helper is on and the backend loads a local model.

    Raises:
        InvalidInput: A variable holds a value it cannot take.
        ExtraMissing: ``e5`` is configured and its extra is not installed.
    """
    from memhtml.app.bootstrap.components import build_embedder

    settings = read_embed_settings(environ)
    helper = read_helper_settings(environ)
    local = build_embedder(settings)
    if local is None or not helper.enabled or settings.backend not in SERVED_BACKENDS:
        return local
    if served_backend(environ) is None:  # not a POSIX system
        return local
    from memhtml.adapters.warm.client import HelperEmbedder
    from memhtml.adapters.warm.place import UnsafePlace, helper_place

    key = helper_key(environ)
    try:
        place = helper_place(key, environ)
    except UnsafePlace as e:
        import logging

        logging.getLogger(__name__).warning("embedding helper not used: %s", e)
        return local

    def start() -> bool:
        return start_helper(key, helper.idle_seconds, environ)

    return HelperEmbedder(local=local, place=place, identity=key, start=start)


def start_helper(key: str, idle_seconds: int, environ: Mapping[str, str]) -> bool:
    """Run the launcher; True once a helper for ``key`` serves (this one or another's)."""
    import subprocess

    command = [sys.executable, *HELPER_COMMAND, key, str(idle_seconds)]
    try:
        done = subprocess.run(
            command,
            env=dict(environ),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=START_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def main(argv: Sequence[str], *, commands: CommandsFactory | None = None) -> int:
    """The launcher: fork the helper, wait for its word, exit 0 (serving) or 1 (it died).

    Args:
        argv: ``KEY IDLE_SECONDS``.
        commands: Builds the runner for forwarded commands from the loaded model (the
            command line's); without it the helper embeds only.
    """
    if len(argv) != 2 or not _WHOLE.fullmatch(argv[1]):
        print(f"usage: python -m {HELPER_MODULE} KEY IDLE_SECONDS", file=sys.stderr)
        return 2
    key, idle = argv[0], int(argv[1])
    read_end, write_end = os.pipe()
    if os.fork() != 0:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as word:
            said = word.read()
        return 0 if said in (_READY, _BUSY) else 1
    os.close(read_end)
    os.setsid()
    if os.fork() != 0:
        # The middle process leaves at once, so the helper is nobody's child.
        os._exit(0)
    status = 1
    try:
        status = _run_helper(key, idle, write_end, commands)
    finally:
        # Never return into the launcher's code: this process is the helper.
        os._exit(status)


def _run_helper(key: str, idle_seconds: int, word: int, commands: CommandsFactory | None) -> int:
    """The helper's life. ``word`` is the pipe its launcher waits on; it closes unsaid when
    this process dies before it serves."""
    from memhtml.adapters.warm.place import UnsafePlace, helper_place
    from memhtml.adapters.warm.server import AlreadyServed, helper_lock

    try:
        place = helper_place(key, os.environ)
        with helper_lock(place):
            # Only the lock's holder rewrites the log: a helper that loses the race must not
            # erase the winner's.
            _detach_streams(place)
            return _serve(key, idle_seconds, place, word, commands)
    except AlreadyServed:
        os.write(word, _BUSY)
        return 0
    except UnsafePlace:
        return 1


def _serve(
    key: str,
    idle_seconds: int,
    place: HelperPlace,
    word: int,
    commands: CommandsFactory | None,
) -> int:
    import contextlib
    import logging

    from memhtml.adapters.warm.server import listen, serve
    from memhtml.app.bootstrap.components import build_embedder
    from memhtml.app.bootstrap.warm_runner import DeferredCommands

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    log = logging.getLogger(__name__)
    try:
        settings = read_embed_settings(os.environ)
        if helper_key(os.environ) != key:
            log.error("the environment's configuration is not the one asked for")
            return 1
        embedder = build_embedder(settings)
        if embedder is None and settings.backend != "off":
            return 1
        listener = listen(place)
        if embedder is not None:
            embedder.embed_query("warm")
    except Exception:
        log.exception("embedding helper could not start")
        return 1
    os.write(word, _READY)
    os.close(word)
    # The command runner imports the program: after the word, so the command that started
    # this helper gets its vector without waiting for it.
    runner = DeferredCommands(commands, embedder) if commands is not None else None
    log.info("serving %s (pid %d, idle %d s)", key, os.getpid(), idle_seconds)

    def forget_socket() -> None:
        with contextlib.suppress(FileNotFoundError):
            place.socket.unlink()

    serve(
        listener,
        embedder,
        identity=key,
        idle_seconds=idle_seconds,
        on_stop=forget_socket,
        commands=runner,
    )
    if runner is not None:
        runner.close()
    log.info("stopped after %d idle seconds or a stop request", idle_seconds)
    return 0


def _detach_streams(place: HelperPlace) -> None:
    """stdin and stdout to the null device, stderr to the helper's log (rewritten)."""
    null = os.open(os.devnull, os.O_RDWR)
    log = os.open(place.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
