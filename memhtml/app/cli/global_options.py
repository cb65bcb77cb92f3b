"""Global options (``--repo``, ``--dense``, ``--json``, ``--pretty``, ``--quiet``, ``-h/--help``,
``--version``), accepted before or after the command.

They are lifted out of the argument list before click parses it, walking the same command tree
click will use, so a value that merely looks like a global flag (``--claim --dense``) stays the
value of the option it follows. The table below drives both that scan and the manifest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs
import click


@attrs.frozen(kw_only=True)
class GlobalFlag:
    """One global option as the manifest lists it.

    Attributes:
        name: The long spelling.
        aliases: Other spellings (``-h``).
        type: ``path`` or ``boolean``.
        description: One sentence for the manifest and help.
        default: Shown in the manifest; ``None`` when it depends on the environment.
    """

    name: str
    aliases: tuple[str, ...] = ()
    type: str
    description: str
    default: bool | None


REPO: Final = "--repo"
DENSE: Final = "--dense"
JSON: Final = "--json"
PRETTY: Final = "--pretty"
QUIET: Final = "--quiet"
QUIET_SHORT: Final = "-q"
HELP: Final = "--help"
HELP_SHORT: Final = "-h"
VERSION: Final = "--version"
# Everything after it is an argument, never an option: the POSIX convention click follows too.
END_OF_OPTIONS: Final = "--"

GLOBAL_FLAGS: Final[tuple[GlobalFlag, ...]] = (
    GlobalFlag(
        name=REPO,
        type="path",
        description=(
            "The memory repository root; default $MEMHTML_ROOT, else the nearest store at or "
            "above the working directory, else ~/memhtml."
        ),
        default=None,
    ),
    GlobalFlag(
        name=DENSE,
        type="boolean",
        description=(
            "Print one-line JSON and drop null-valued keys at every depth (false, 0 and [] stay)."
        ),
        default=False,
    ),
    GlobalFlag(
        name=JSON,
        type="boolean",
        description="Print JSON; already the default, accepted so scripts may say so.",
        default=False,
    ),
    GlobalFlag(
        name=PRETTY,
        type="boolean",
        description="Render the result as aligned text and tables for a person instead of JSON.",
        default=False,
    ),
    GlobalFlag(
        name=QUIET,
        aliases=(QUIET_SHORT,),
        type="boolean",
        description=(
            "Print no progress on stderr (bars at a terminal, one line per phase otherwise); "
            "warnings and errors still go there."
        ),
        default=False,
    ),
    GlobalFlag(
        name=HELP,
        aliases=(HELP_SHORT,),
        type="boolean",
        description=(
            "Describe the command and run nothing: a cli.help envelope in a pipe, Markdown "
            "at a terminal. Bare `memhtml` is `memhtml --help`."
        ),
        default=False,
    ),
    GlobalFlag(
        name=VERSION,
        type="boolean",
        description=(
            "Print the version and run nothing: `memhtml 0.1.0` at a terminal or with "
            "--pretty, a cli.version envelope in a pipe."
        ),
        default=False,
    ),
)


@attrs.frozen(kw_only=True)
class GlobalOptions:
    """The global options of one invocation.

    Attributes:
        repo: ``--repo`` as given (last one wins), or ``None``.
        dense: ``--dense`` was given.
        pretty: ``--pretty`` was given.
        quiet: ``-q`` or ``--quiet`` was given.
        help: ``-h`` or ``--help`` was given.
        version: ``--version`` was given.
    """

    repo: str | None = None
    dense: bool = False
    pretty: bool = False
    quiet: bool = False
    help: bool = False
    version: bool = False


@attrs.frozen(kw_only=True)
class ScannedArgs:
    """An argument list with the global options lifted out.

    Attributes:
        options: The global options found.
        rest: The arguments click parses, in their original order.
        command_path: Registered command names the words resolved to (``("index", "rebuild")``).
        unresolved: Positional words from the first one a group did not know, for suggestions.
        missing_value: A global option given without its value, to be refused.
    """

    options: GlobalOptions
    rest: tuple[str, ...]
    command_path: tuple[str, ...]
    unresolved: tuple[str, ...]
    missing_value: str | None = None


def scan_arguments(root: click.Group, argv: Sequence[str]) -> ScannedArgs:
    """Lift the global options out of ``argv``, following ``root``'s command tree.

    Never raises: a problem (``--repo`` without a path) is recorded for the caller to refuse
    once it can print an envelope in the format the other options asked for.
    """
    options = GlobalOptions()
    rest: list[str] = []
    path: list[str] = []
    unresolved: list[str] = []
    missing_value: str | None = None
    current: click.Command = root
    literal = False
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if literal or token == "-" or not token.startswith("-"):
            if isinstance(current, click.Group) and not unresolved:
                sub = current.commands.get(token)
                if sub is not None:
                    path.append(token)
                    current = sub
                    rest.append(token)
                    continue
                unresolved.append(token)
            elif unresolved:
                unresolved.append(token)
            rest.append(token)
            continue
        if token == END_OF_OPTIONS:
            literal = True
            rest.append(token)
            continue
        name, equals, value = token.partition("=")
        if name == REPO:
            if not equals:
                value = argv[index] if index < len(argv) else ""
                index += 1
            if value:
                options = attrs.evolve(options, repo=value)
            else:
                missing_value = REPO
        elif token == DENSE:
            options = attrs.evolve(options, dense=True)
        elif token == PRETTY:
            options = attrs.evolve(options, pretty=True)
        elif token in (QUIET, QUIET_SHORT):
            options = attrs.evolve(options, quiet=True)
        elif token in (HELP, HELP_SHORT):
            options = attrs.evolve(options, help=True)
        elif token == VERSION:
            options = attrs.evolve(options, version=True)
        elif token != JSON:
            rest.append(token)
            consumed = _values_taken(current, token) if not equals else 0
            rest.extend(argv[index : index + consumed])
            index += consumed
    return ScannedArgs(
        options=options,
        rest=tuple(rest),
        command_path=tuple(path),
        unresolved=tuple(unresolved),
        missing_value=missing_value,
    )


def _values_taken(command: click.Command, token: str) -> int:
    """How many following arguments ``command``'s option ``token`` consumes as its value."""
    for param in command.params:
        if isinstance(param, click.Option) and token in param.opts:
            return 0 if param.is_flag or param.count else param.nargs
    return 0
