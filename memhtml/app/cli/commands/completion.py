"""``memhtml completion bash|zsh|fish``: the shell script that completes memhtml's commands.

The script comes from click's completion machinery, so it completes exactly the command tree
that parses. At TAB time the shell runs ``memhtml`` with ``_MEMHTML_COMPLETE`` set, and the
entry point hands that invocation to click (``RootGroup.main``).
"""

from __future__ import annotations

from typing import Final

import click

from memhtml.app.cli.front_door import COMPLETE_VAR
from memhtml.app.cli.output import prints_text
from memhtml.app.cli.program import PROGRAM

SHELLS: Final = ("bash", "zsh", "fish")
SCRIPT_TYPE: Final = "shell.completion"


def register(group: click.Group) -> None:
    """Add ``completion`` to ``group``."""
    group.add_command(completion)


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS), help="The shell to complete in.")
@prints_text(
    SCRIPT_TYPE,
    examples=(
        'eval "$(memhtml completion bash)"   # in ~/.bashrc',
        'eval "$(memhtml completion zsh)"    # in ~/.zshrc',
        "memhtml completion fish > ~/.config/fish/completions/memhtml.fish",
    ),
)
def completion(shell: str) -> str:
    """Print the shell script that completes memhtml commands and flags.

    The script itself is printed, never an envelope: a shell sources it.
    """
    from click.shell_completion import get_completion_class

    complete_class = get_completion_class(shell)
    if complete_class is None:  # click knows every name in SHELLS; kept for a future click
        raise click.BadParameter(f"no completion for {shell}")
    root = click.get_current_context().find_root().command
    return complete_class(root, {}, PROGRAM, COMPLETE_VAR).source()
