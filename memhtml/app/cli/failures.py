"""Turn any exception that reaches the entry point into the failure the envelope reports.

The code comes from the one table (``errors.py``); this module adds the prose and the
suggestions: nearest commands for an unknown command, nearest flags for an unknown flag, the
subcommands of a group called bare, and the exception's own next steps.
"""

from __future__ import annotations

from collections.abc import Iterator

import click

from memhtml.app.cli.envelope import Failure
from memhtml.app.cli.errors import ERR_UNKNOWN, error_code_for
from memhtml.app.cli.global_options import GLOBAL_FLAGS, ScannedArgs
from memhtml.app.cli.program import PROGRAM
from memhtml.app.cli.suggest import suggest
from memhtml.app.errors import ReportedFailure


class UnknownCommand(click.exceptions.NoSuchCommand):
    """A command path names nothing, found outside click's own parsing (help's lookup).

    Attributes:
        typed: Every word of the path as typed, so suggestions compare whole phrases.
        position: Index in ``typed`` of the word that names nothing.
    """

    def __init__(self, typed: tuple[str, ...], position: int) -> None:
        super().__init__(typed[position])
        self.typed = typed
        self.position = position


def describe_failure(exc: BaseException, scanned: ScannedArgs, root: click.Group) -> Failure:
    """The failure to report for ``exc``.

    Args:
        exc: What the invocation raised.
        scanned: The invocation's arguments, for suggestions about what was typed.
        root: The command tree, for the names a suggestion may offer.
    """
    entry = error_code_for(exc)
    message: str
    suggestions: tuple[str, ...]
    if isinstance(exc, click.exceptions.NoSuchCommand):
        message, suggestions = _unknown_command(exc, scanned, root)
    elif isinstance(exc, click.NoSuchOption):
        message, suggestions = _unknown_flag(exc)
    elif isinstance(exc, click.exceptions.NoArgsIsHelpError):
        message, suggestions = _bare_group(exc)
    elif isinstance(exc, click.UsageError):
        message = exc.format_message()
        suggestions = (f"{exc.ctx.command_path} --help",) if exc.ctx is not None else ()
    elif isinstance(exc, click.ClickException):
        message, suggestions = exc.format_message(), ()
    elif isinstance(exc, click.Abort):
        message, suggestions = "aborted", ()
    else:
        return describe_error(exc)
    return Failure(
        message=message,
        code=entry.code,
        exit_status=entry.exit_status,
        suggestions=_unique((*suggestions, *entry.suggestions)),
    )


def describe_error(exc: BaseException) -> Failure:
    """The failure to report for an exception a use case raised (not a click parsing error).

    Also what the MCP server returns as a tool error, so both front ends say the same thing.
    """
    entry = error_code_for(exc)
    if entry.code == ERR_UNKNOWN:
        # str() of an unknown exception may be a driver's text (SQL parameters, memory text):
        # only its class name is reported; the traceback goes to stderr.
        message = f"unexpected error ({type(exc).__name__}); the traceback is on stderr"
        suggestions: tuple[str, ...] = ()
    else:
        message = str(exc) or type(exc).__name__
        suggestions = _own_suggestions(exc)
    detail = exc.detail if isinstance(exc, ReportedFailure) else None
    return Failure(
        message=message,
        code=entry.code,
        exit_status=entry.exit_status,
        suggestions=_unique((*suggestions, *entry.suggestions)),
        detail=detail,
    )


def command_names(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[str]:
    """Every visible command and group under ``group``, as space-separated paths."""
    for name, command in sorted(group.commands.items()):
        if command.hidden:
            continue
        path = (*prefix, name)
        yield " ".join(path)
        if isinstance(command, click.Group):
            yield from command_names(command, path)


def _unknown_command(
    exc: click.exceptions.NoSuchCommand, scanned: ScannedArgs, root: click.Group
) -> tuple[str, tuple[str, ...]]:
    if isinstance(exc, UnknownCommand):
        typed, resolved = exc.typed, exc.position
    else:
        typed = (*scanned.command_path, *(scanned.unresolved or (exc.command_name,)))
        resolved = len(scanned.command_path)
    shown = " ".join(typed[: resolved + 1])
    # Only names that reach past the words already resolved: the group the caller is in is not
    # a useful answer to a typo in its subcommand.
    candidates = [name for name in command_names(root) if len(name.split(" ")) > resolved]
    names = suggest(typed, candidates)
    return f"no such command: {PROGRAM} {shown}", tuple(f"{PROGRAM} {n}" for n in names)


def _unknown_flag(exc: click.NoSuchOption) -> tuple[str, tuple[str, ...]]:
    flags = [flag.name for flag in GLOBAL_FLAGS]
    where = PROGRAM
    if exc.ctx is not None:
        where = exc.ctx.command_path
        for param in exc.ctx.command.params:
            if isinstance(param, click.Option):
                flags.extend(opt for opt in (*param.opts, *param.secondary_opts) if opt[:2] == "--")
    nearest = suggest((exc.option_name,), flags)
    return f"no such flag for {where}: {exc.option_name}", (*nearest, f"{where} --help")


def _bare_group(exc: click.exceptions.NoArgsIsHelpError) -> tuple[str, tuple[str, ...]]:
    group = exc.ctx.command
    where = exc.ctx.command_path
    subcommands = (
        [name for name, cmd in sorted(group.commands.items()) if not cmd.hidden]
        if isinstance(group, click.Group)
        else []
    )
    message = f"{where} needs a subcommand: {', '.join(subcommands)}"
    return message, tuple(f"{where} {name}" for name in subcommands)


def _own_suggestions(exc: BaseException) -> tuple[str, ...]:
    """Next steps an exception carries itself (``RepoRequired.suggestions``)."""
    own = getattr(exc, "suggestions", ())
    if isinstance(own, tuple) and all(isinstance(item, str) for item in own):
        return own
    return ()


def _unique(items: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
