"""The console script's entry point: the root's help and the version without loading the program.

``memhtml``, ``memhtml --help`` and ``memhtml --version`` (with any of ``--pretty``,
``--dense``, ``--json``, ``--quiet``) print text that depends on nothing but the command table
and the version, so ``make docs`` renders it once into ``front_door_text.py`` and this module
prints it: no click, no attrs, no command module (0.22 s of CPU became a bare interpreter's
start). Anything else, and any environment that could change the answer (a shell asking for
completions, a ``MEMHTML_LOG_LEVEL`` the program would refuse), runs the whole program, whose
``run`` prints exactly what is printed here (``tests/unit/test_cli_front_door_text.py``).

A read or a single write goes to the warm helper when one serves this configuration
(``bootstrap/warm_forward.py``): it runs the same ``run`` in this process's environment and
folder, and what it printed is printed here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Final, NoReturn

# The spellings `global_options` lifts out of the argument list; a test holds them to its table.
_HELP: Final = frozenset({"--help", "-h"})
_VERSION: Final = "--version"
_PRETTY: Final = "--pretty"
_DENSE: Final = "--dense"
_NEUTRAL: Final = frozenset({"--json", "--quiet", "-q"})
ANSWERED: Final = _HELP | _NEUTRAL | {_VERSION, _PRETTY, _DENSE}
# Environment variables whose value can change what the whole program prints for these flags.
COMPLETE_VAR: Final = "_MEMHTML_COMPLETE"
_LOG_LEVEL_VAR: Final = "MEMHTML_LOG_LEVEL"
# `logs.LEVELS`' names (a test holds them equal); any other value is refused by the program.
LOG_LEVEL_NAMES: Final = ("debug", "info", "warning", "error")
# The error table's (a test holds them equal); that table imports every port's exceptions.
EXIT_OK: Final = 0
EXIT_RUNTIME: Final = 1


def quick_answer(
    argv: Sequence[str], environ: Mapping[str, str], stdout_is_tty: bool
) -> str | None:
    """What the program prints for ``argv`` if it asks for the root's help or the version.

    ``None`` when it asks for anything else, or when the environment could change the answer.

    Args:
        argv: The arguments after the program name.
        environ: The process environment.
        stdout_is_tty: Whether a person reads stdout (help is then Markdown).
    """
    if not set(argv) <= ANSWERED or environ.get(COMPLETE_VAR):
        return None
    level = environ.get(_LOG_LEVEL_VAR, "").strip().lower()
    if level and level not in LOG_LEVEL_NAMES:
        return None  # the program refuses it with an envelope of its own
    from memhtml.app.cli import front_door_text as text

    person = stdout_is_tty or _PRETTY in argv
    dense = _DENSE in argv
    if _VERSION in argv:
        if person:
            return text.VERSION_LINE
        return text.VERSION_DENSE if dense else text.VERSION_ENVELOPE
    if person:
        return text.HELP_MARKDOWN
    return text.HELP_DENSE if dense else text.HELP_ENVELOPE


def stdout_is_tty() -> bool:
    """Whether stdout is a terminal; a closed or foreign stream is not one."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def reader_gone() -> int:
    """The reader closed stdout (`memhtml manifest | head -1`): nobody is left to tell.

    Point stdout at the null device, or the interpreter's final flush raises again and prints
    a second traceback for a pipe the caller closed on purpose.
    """
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # no real descriptor (an in-memory stream)
        pass
    return EXIT_RUNTIME


def _print(text: str) -> int:
    """Write ``text`` as the envelope writer does (UTF-8 bytes, flushed); the exit status."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        return reader_gone()
    return EXIT_OK


def _forward(argv: Sequence[str]) -> int | None:
    """Run the command in a warm helper when one serves it (``bootstrap/warm_forward.py``):
    print what it printed, return its status; ``None`` to run it here."""
    from memhtml.app.bootstrap.warm_forward import forwarded, keyed_request

    keyed_request(argv, os.environ)
    try:
        cwd = os.getcwd()
        stderr_tty = sys.stderr.isatty()
    except (OSError, AttributeError, ValueError):  # a deleted folder, a closed stream
        return None
    result = forwarded(argv, os.environ, cwd=cwd, stdout_tty=stdout_is_tty(), stderr_tty=stderr_tty)
    if result is None:
        return None
    try:
        sys.stderr.flush()
        sys.stderr.buffer.write(result.stderr)
        sys.stderr.buffer.flush()
    except (OSError, AttributeError, ValueError):
        pass
    return _print_bytes(result.stdout, result.status)


def _print_bytes(raw: bytes, status: int) -> int:
    """Write ``raw`` to stdout as the envelope writer does; ``status`` unless the reader left."""
    try:
        sys.stdout.flush()
        sys.stdout.buffer.write(raw)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        return reader_gone()
    return status


def main() -> NoReturn:
    """Console-script entry point: answer from the rendered text, or run the whole program."""
    text = quick_answer(sys.argv[1:], os.environ, stdout_is_tty())
    if text is not None:
        sys.exit(_print(text))
    status = _forward(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from memhtml.app.cli.app import cli

    cli.main()
