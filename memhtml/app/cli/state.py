"""What one invocation carries from the entry point to its command: global options and stdout."""

from __future__ import annotations

import attrs
import click

from memhtml.app.cli.global_options import GlobalOptions
from memhtml.app.cli.stdout import EnvelopeWriter


@attrs.frozen(kw_only=True)
class CliState:
    """The context object of one invocation (click's ``ctx.obj``).

    Attributes:
        options: The global options, wherever on the line they were given.
        writer: The one writer of stdout.
        stdout_is_tty: Whether a person is reading stdout (help then prints Markdown).
    """

    options: GlobalOptions
    writer: EnvelopeWriter
    stdout_is_tty: bool


def current_state() -> CliState:
    """The state of the running invocation.

    Raises:
        RuntimeError: No memhtml invocation is running (a command was invoked on its own
            instead of through the root group).
    """
    context = click.get_current_context(silent=True)
    state = context.find_object(CliState) if context is not None else None
    if state is None:
        raise RuntimeError("memhtml commands run only through the memhtml root group")
    return state
