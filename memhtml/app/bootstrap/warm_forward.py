"""Whether the console script hands its command to a running warm helper, and doing so.

Read by the front door before the program loads: standard library, ``warm_key`` and the
forwarding client only. What a command prints is the same wherever it runs: the helper runs
the same ``run`` in the caller's environment, folder and terminal settings. Forwarded: the
reads and the single writes, which take all their input from their arguments. Not forwarded:
``apply`` (it reads standard input), commands whose work is long or whose progress a person
watches (``index``, ``sync``, ``clone``, ``doctor``, ``eval``, ``trace scan``), the servers,
and anything given ``-`` as an argument. A command that finds no helper, or whose helper does
not answer whole, runs in its own process; nothing here starts a helper.

A forwarded write that lost its caller (killed, say) still finishes in the helper: it
commits whole or not at all, as it would have in its own process. A write whose helper dies
under it runs again here: ``write`` finds its content written and ``link`` its edge there,
while ``archive`` and ``correct`` carry a request id (``_MEMHTML_REQUEST``, set by
:func:`keyed_request` before forwarding, in this process's environment too) that their commit
records, so the second run answers with the first run's commit instead of "no memory at …"
(``use_cases/landed_request.py``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Final

from memhtml.app.bootstrap.warm_key import (
    DEFAULT_IDLE_SECONDS,
    ENV_EMBED_HELPER_IDLE,
    HELPER_COMMAND,
    MAX_IDLE_SECONDS,
    helper_key,
    served_backend,
)

if TYPE_CHECKING:
    from memhtml.adapters.warm.commands import CommandResult

FORWARDED: Final = frozenset(
    {
        "search",
        "recall",
        "read",
        "list",
        "neighbors",
        "write",
        "correct",
        "archive",
        "link",
        "reinforce",
    }
)
# The global flags that may come before the command (global_options.py's; a test holds them).
_FLAGS: Final = frozenset({"--dense", "--json", "--pretty", "--quiet", "-q"})
_REPO: Final = "--repo"
# Help and the version are answered by the front door or the program; `-` names stdin.
_NEVER: Final = frozenset({"--help", "-h", "--version", "--", "-"})
_MODEL_DIR: Final = "MEMHTML_EMBED_MODEL_DIR"
REQUEST_VAR: Final = "_MEMHTML_REQUEST"
# The forwarded commands that cannot tell their own earlier run from a missing target.
_KEYED: Final = frozenset({"archive", "correct"})
_COMPLETE: Final = "_MEMHTML_COMPLETE"


def command_word(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names when only global flags come before it; ``None`` when the
    arguments ask for help, the version, or anything this reading is unsure of."""
    if _NEVER & set(argv):
        return None
    position = 0
    while position < len(argv):
        word = argv[position]
        if word in _FLAGS or word.startswith(_REPO + "="):
            position += 1
        elif word == _REPO:
            position += 2
        else:
            return None if word.startswith("-") else word
    return None


def keyed_request(argv: Sequence[str], environ: MutableMapping[str, str]) -> None:
    """Give an ``archive`` or ``correct`` that may go to a helper a request id in ``environ``
    (kept if one is set): the helper and a run here after a lost helper then name the same
    invocation."""
    if environ.get(REQUEST_VAR, "").strip() or served_backend(environ) is None:
        return  # an id given already, or no helper to lose
    if command_word(argv) in _KEYED:
        environ[REQUEST_VAR] = os.urandom(16).hex()


def forwarded(
    argv: Sequence[str],
    environ: Mapping[str, str],
    *,
    cwd: str,
    stdout_tty: bool,
    stderr_tty: bool,
) -> CommandResult | None:
    """What the warm helper printed for this command, or ``None``: run it here."""
    if command_word(argv) not in FORWARDED or environ.get(_COMPLETE):
        return None
    # A model folder named relative to the working folder is one the helper may not share.
    if served_backend(environ) is None or environ.get(_MODEL_DIR, "").strip():
        return None
    from memhtml.adapters.warm.commands import CommandRequest, forward_command
    from memhtml.adapters.warm.place import UnsafePlace, helper_place

    key = helper_key(environ)
    try:
        place = helper_place(key, environ)
    except UnsafePlace:
        return None
    request = CommandRequest(
        argv=argv, environ=environ, cwd=cwd, stdout_tty=stdout_tty, stderr_tty=stderr_tty
    )
    result = forward_command(place, key, request)
    if result is None and served_backend(environ) == "off":
        # Nothing embeds in a lexical-only store, so nothing else would start its helper.
        start_in_background(key, environ)
    return result


def start_in_background(key: str, environ: Mapping[str, str]) -> None:
    """Spawn the helper's launcher for ``key`` and leave it: this command does not wait for it
    (it runs in its own process), the next one finds the helper. A helper already serving the
    key makes the new one leave at once (its lock)."""
    idle = environ.get(ENV_EMBED_HELPER_IDLE, "").strip()
    if not (idle.isdigit() and idle.isascii() and 1 <= int(idle) <= MAX_IDLE_SECONDS):
        idle = str(DEFAULT_IDLE_SECONDS)  # the command itself reports a bad value
    null = os.devnull
    # No helper this time if the spawn fails; the command runs here all the same.
    with contextlib.suppress(OSError):
        os.posix_spawn(
            sys.executable,
            [sys.executable, *HELPER_COMMAND, key, idle],
            dict(environ),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, null, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, null, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_OPEN, 2, null, os.O_WRONLY, 0),
            ],
            setsid=True,
        )
