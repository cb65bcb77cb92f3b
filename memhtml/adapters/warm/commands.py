"""Forward a whole command to a running helper: its arguments, environment and working
folder go over the socket; its exit status, stdout and stderr come back.

Used before the program loads (the console script's front door), so it imports the standard
library and this package's wire only. It never starts a helper: a command that finds none
runs in its own process, and the first one that embeds starts the helper for the next.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from memhtml.adapters.warm.place import HelperPlace
from memhtml.adapters.warm.wire import WireError, recv_exactly, recv_frame, send_frame


class CommandRequest(NamedTuple):
    """One command as the helper runs it.

    Attributes:
        argv: The arguments after the program name.
        environ: The caller's whole environment (the helper runs the command in it).
        cwd: The caller's working folder (the store is found from it as git finds one).
        stdout_tty, stderr_tty: Whether a person reads each stream (help, ``--pretty``, the
            progress lines decide by it).
    """

    argv: Sequence[str]
    environ: Mapping[str, str]
    cwd: str
    stdout_tty: bool
    stderr_tty: bool


class CommandResult(NamedTuple):
    """What the command printed and how it exited."""

    status: int
    stdout: bytes
    stderr: bytes


def forward_command(
    place: HelperPlace, identity: str, request: CommandRequest
) -> CommandResult | None:
    """The command's result from the helper at ``place``; ``None`` when no helper of
    ``identity`` answered whole (none listens, another configuration, it died mid-way)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        try:
            sock.connect(str(place.socket))
        except OSError:
            return None
        send_frame(
            sock,
            {
                "op": "command",
                "identity": identity,
                "argv": list(request.argv),
                "env": dict(request.environ),
                "cwd": request.cwd,
                "stdoutTty": request.stdout_tty,
                "stderrTty": request.stderr_tty,
            },
        )
        # No timeout: the command runs as long as it would here (a rebuild after a lost index
        # at 100k memories takes minutes); a helper that dies closes the socket.
        reply = recv_frame(sock)
        status, out, err = reply.get("exit"), reply.get("stdout"), reply.get("stderr")
        if not (
            reply.get("ok") is True
            and isinstance(status, int)
            and isinstance(out, int)
            and isinstance(err, int)
        ):
            return None
        payload = recv_exactly(sock, out + err)
    except (OSError, WireError):
        return None
    finally:
        sock.close()
    return CommandResult(status=status, stdout=payload[:out], stderr=payload[out:])
