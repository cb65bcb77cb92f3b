"""``memhtml helper status|stop``: the warm embedding helper of this configuration
(``app/bootstrap/warm_helper.py``). Neither command opens a store or loads a model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

import click

from memhtml.app.cli.output import CommandResult, emits

if TYPE_CHECKING:
    from memhtml.app.bootstrap.warm_status import HelperStatus

STATUS_TYPE: Final = "helper.status"
STOP_TYPE: Final = "helper.stop"


def register(group: click.Group) -> None:
    """Add the ``helper`` group to ``group``."""
    group.add_command(helper)


@click.group("helper")
def helper() -> None:
    """The warm embedding helper that keeps the local model loaded between commands."""


@helper.command("status")
@emits(STATUS_TYPE, examples=("memhtml helper status",))
def status() -> CommandResult:
    """Say whether a helper serves this configuration, its process id and files.

    The first command that embeds with the local or e5 model starts the helper; it leaves
    after MEMHTML_EMBED_HELPER_IDLE seconds without a request. MEMHTML_EMBED_HELPER=off keeps
    every command embedding in its own process.
    """
    from memhtml.app.bootstrap.warm_status import helper_status

    return STATUS_TYPE, _shaped(helper_status(os.environ))


@helper.command("stop")
@emits(STOP_TYPE, examples=("memhtml helper stop",))
def stop() -> CommandResult:
    """Ask this configuration's helper to leave now; ``running`` says whether one was there.

    A request already being answered finishes first. The next command that embeds starts a
    new helper unless MEMHTML_EMBED_HELPER is off.
    """
    from memhtml.app.bootstrap.warm_status import helper_status

    return STOP_TYPE, _shaped(helper_status(os.environ, stop=True))


def _shaped(found: HelperStatus) -> dict[str, object]:
    return {
        "enabled": found.enabled,
        "running": found.running,
        "pid": found.pid,
        "socket": found.socket,
        "log": found.log,
        "idleSeconds": found.idle_seconds,
        "reason": found.reason,
    }
