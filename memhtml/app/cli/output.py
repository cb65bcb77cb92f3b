"""The one output decorator every command uses.

A command body returns ``(response_type, data)``; the decorator prints the one envelope. Bodies
raise on failure and never print: the entry point turns any exception into the failure
envelope, so a command cannot forget the contract or print twice.

Usage::

    @click.command("search")
    @click.argument("query", help="What to look for.")
    @emits("memory.hits", examples=("memhtml search 'invoice export'",))
    def search(query: str) -> CommandResult:
        \"\"\"Rank memories for a query.\"\"\"
        return "memory.hits", {"hits": []}
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Final, ParamSpec

import attrs
import click

from memhtml.app.cli.state import current_state

P = ParamSpec("P")
CommandResult = tuple[str, Mapping[str, object]]

_META_ATTRIBUTE: Final = "__memhtml_command__"


@attrs.frozen(kw_only=True)
class CommandMeta:
    """What the manifest says about a command beyond its click parameters.

    Attributes:
        response_types: Every ``type`` the command's success envelope may carry.
        examples: Command lines that show typical use.
    """

    response_types: tuple[str, ...]
    examples: tuple[str, ...] = ()


class UndeclaredResponseType(RuntimeError):
    """A command returned a response type it did not declare: the manifest would be wrong."""


def emits(
    *response_types: str, examples: Sequence[str] = ()
) -> Callable[[Callable[P, CommandResult]], Callable[P, None]]:
    """Turn a command body into a click callback that prints one success envelope.

    Args:
        *response_types: The types the body may return; the manifest lists them.
        examples: Command lines for the manifest and help.

    Raises:
        ValueError: No response type was declared.
    """
    if not response_types:
        raise ValueError("a command must declare at least one response type")
    meta = CommandMeta(response_types=tuple(response_types), examples=tuple(examples))

    def decorate(body: Callable[P, CommandResult]) -> Callable[P, None]:
        @functools.wraps(body)
        def run(*args: P.args, **kwargs: P.kwargs) -> None:
            response_type, data = body(*args, **kwargs)
            if response_type not in meta.response_types:
                raise UndeclaredResponseType(
                    f"{body.__name__} returned {response_type!r}, "
                    f"declared {', '.join(meta.response_types)}"
                )
            current_state().writer.success(response_type, data)

        setattr(run, _META_ATTRIBUTE, meta)
        return run

    return decorate


def prints_text(
    response_type: str, examples: Sequence[str] = ()
) -> Callable[[Callable[P, str]], Callable[P, None]]:
    """Like ``emits``, for the rare command whose output is read by a program that is not
    ours and cannot unwrap an envelope (a shell sourcing a completion script): the body returns
    the text, printed as it is. ``response_type`` names that text in the manifest.
    """
    meta = CommandMeta(response_types=(response_type,), examples=tuple(examples))

    def decorate(body: Callable[P, str]) -> Callable[P, None]:
        @functools.wraps(body)
        def run(*args: P.args, **kwargs: P.kwargs) -> None:
            current_state().writer.text(body(*args, **kwargs))

        setattr(run, _META_ATTRIBUTE, meta)
        return run

    return decorate


def command_meta(command: click.Command) -> CommandMeta:
    """The metadata ``emits`` attached to ``command``; empty for groups and foreign commands."""
    meta = getattr(command.callback, _META_ATTRIBUTE, None)
    return meta if isinstance(meta, CommandMeta) else CommandMeta(response_types=())
