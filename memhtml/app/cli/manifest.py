"""``memhtml manifest``: every command, flag, error code and setting, read off the click tree.

The manifest is built by walking the same command objects click parses with, plus the error
table and the environment table, so it cannot drift from what the program accepts.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Iterator
from typing import Any, Final

import click

from memhtml import __version__
from memhtml.app.cli.envelope import API_VERSION, JsonValue, to_json_value
from memhtml.app.cli.environment import ENVIRONMENT
from memhtml.app.cli.errors import ERROR_CODES
from memhtml.app.cli.global_options import GLOBAL_FLAGS
from memhtml.app.cli.output import CommandResult, command_meta, emits
from memhtml.app.cli.program import PROGRAM

MANIFEST_TYPE: Final = "cli.manifest"
MANIFEST_COMMAND: Final = "manifest"

_TYPE_NAMES: Final[dict[type[click.ParamType[Any, Any]], str]] = {
    click.types.StringParamType: "string",
    click.types.IntParamType: "integer",
    click.types.IntRange: "integer",
    click.types.FloatParamType: "number",
    click.types.FloatRange: "number",
    click.types.BoolParamType: "boolean",
    click.types.Choice: "choice",
    click.types.Path: "path",
    click.File: "path",
    click.types.DateTime: "datetime",
}


def build_manifest(root: click.Group) -> dict[str, JsonValue]:
    """The ``cli.manifest`` data for ``root``'s command tree, and the MCP server's tools."""
    # Imported here: the catalog imports command modules, which import this package.
    from memhtml.app.mcp.catalog import manifest_section

    commands = [command_entry(context) for context in leaf_contexts(root)]
    response_types: list[str] = []
    for entry in commands:
        listed = entry["responseTypes"]
        if isinstance(listed, list):
            response_types.extend(t for t in listed if isinstance(t, str))
    return {
        "name": PROGRAM,
        "version": __version__,
        "summary": summary(root),
        "apiVersion": API_VERSION,
        "globalFlags": [
            {
                "name": flag.name,
                "aliases": list(flag.aliases),
                "type": flag.type,
                "description": flag.description,
                "default": flag.default,
            }
            for flag in GLOBAL_FLAGS
        ],
        "errorCodes": [
            {"code": entry.code, "exitCode": entry.exit_status, "description": entry.description}
            for entry in ERROR_CODES
        ],
        "config": [
            {"name": var.name, "description": var.description, "fallback": var.fallback}
            for var in ENVIRONMENT
        ],
        "responseTypes": list(dict.fromkeys(response_types)),
        "commands": list(commands),
        "mcp": to_json_value(manifest_section()),
    }


def current_root() -> click.Group:
    """The root group of the running invocation.

    Raises:
        RuntimeError: The command runs outside a memhtml group tree.
    """
    root = click.get_current_context().find_root().command
    if not isinstance(root, click.Group):
        raise RuntimeError("memhtml commands run only under the memhtml root group")
    return root


def root_context(root: click.Group) -> click.Context:
    """A context for ``root`` that parses nothing and runs nothing."""
    return click.Context(root, info_name=PROGRAM)


def child_context(parent: click.Context, name: str, command: click.Command) -> click.Context:
    """A context for ``command`` under ``parent``; ``command_path`` then spells its full name."""
    return click.Context(command, info_name=name, parent=parent)


def leaf_contexts(root: click.Group) -> Iterator[click.Context]:
    """Contexts of every visible runnable command under ``root``, in name order, depth first."""

    def walk(context: click.Context, group: click.Group) -> Iterator[click.Context]:
        for name, command in sorted(group.commands.items()):
            if command.hidden:
                continue
            child = child_context(context, name, command)
            if isinstance(command, click.Group):
                yield from walk(child, command)
            else:
                yield child

    return walk(root_context(root), root)


def command_name(context: click.Context) -> str:
    """The command's full name without the program (``index rebuild``)."""
    return context.command_path.removeprefix(PROGRAM).strip()


def command_entry(context: click.Context) -> dict[str, JsonValue]:
    """One manifest ``commands[]`` entry."""
    command = context.command
    meta = command_meta(command)
    return {
        "name": command_name(context),
        "summary": summary(command),
        "args": [argument_entry(p) for p in command.params if isinstance(p, click.Argument)],
        "flags": [
            flag_entry(p) for p in command.params if isinstance(p, click.Option) and not p.hidden
        ],
        "responseTypes": list(meta.response_types),
        "examples": list(meta.examples),
    }


def argument_entry(argument: click.Argument) -> dict[str, JsonValue]:
    """One positional argument: name, type, description, required, repeatable."""
    return {
        "name": argument.human_readable_name,
        "type": type_name(argument),
        "description": argument.help or "",
        "required": argument.required,
        "repeatable": argument.nargs != 1,
    }


def flag_entry(option: click.Option) -> dict[str, JsonValue]:
    """One flag: name, type, description, default, required, repeatable, values."""
    return {
        "name": flag_name(option),
        "type": type_name(option),
        "description": option.help or "",
        "default": _default(option),
        "required": option.required,
        "repeatable": option.multiple,
        "values": choices(option),
    }


def flag_name(option: click.Option) -> str:
    """The long spelling, with its negation for a boolean pair (``--embed/--no-embed``)."""
    longest = max(option.opts, key=len)
    negations = [opt for opt in option.secondary_opts if opt.startswith("--")]
    return "/".join([longest, *negations])


def type_name(param: click.Parameter) -> str:
    """A stable, language-neutral name for the parameter's value type."""
    if isinstance(param, click.Option) and param.is_flag:
        return "boolean"
    for cls in type(param.type).__mro__:
        name = _TYPE_NAMES.get(cls)
        if name is not None:
            return name
    return param.type.name


def choices(param: click.Parameter) -> list[JsonValue] | None:
    """The allowed values of a choice parameter, else ``None``."""
    if isinstance(param.type, click.Choice):
        return [_plain(choice) for choice in param.type.choices]
    return None


def summary(command: click.Command) -> str:
    """The command's one-line summary: ``short_help``, else its help's first paragraph."""
    if command.short_help:
        return command.short_help
    return description(command).split("\n\n", 1)[0].replace("\n", " ")


def description(command: click.Command) -> str:
    """The command's full help text, without the part after ``\\f`` that click hides."""
    return inspect.cleandoc(command.help or "").split("\f", 1)[0].strip()


def _default(option: click.Option) -> JsonValue:
    # The info dict is click's public view of a default: an unset one reads as None there,
    # while `option.default` holds a private sentinel. A `--x/--no-x` pair left unset stays
    # None: the command decides from the environment (`--embed` follows MEMHTML_EMBED).
    default = option.to_info_dict()["default"]
    if callable(default):
        return None
    if option.multiple:
        return [_plain(item) for item in default or ()]
    if option.is_flag and default is None and not option.secondary_opts:
        return False
    return _plain(default)


def _plain(value: object) -> JsonValue:
    if isinstance(value, enum.Enum):
        value = value.value
    try:
        return to_json_value(value)
    except TypeError:
        return str(value)


def register(group: click.Group) -> None:
    """Add ``manifest`` to ``group``."""
    group.add_command(manifest_command)


@click.command(MANIFEST_COMMAND)
@emits(MANIFEST_TYPE, examples=("memhtml manifest", "memhtml manifest --dense"))
def manifest_command() -> CommandResult:
    """Describe every command, flag, error code and setting as one JSON document.

    Opens no repository, database or model. Bare `memhtml` and `memhtml help` print the same.
    """
    return MANIFEST_TYPE, build_manifest(current_root())
