"""Help: ``-h/--help`` on any command, and ``memhtml help [COMMAND…]``.

In a pipe, help is a ``cli.help`` envelope (an agent parses it like any result); at a terminal
it is Markdown. Help is read off the same click objects as parsing and the manifest, and it
opens nothing: no repository, database or model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import click

from memhtml.app.cli.envelope import JsonValue
from memhtml.app.cli.failures import UnknownCommand
from memhtml.app.cli.global_options import GLOBAL_FLAGS
from memhtml.app.cli.manifest import (
    MANIFEST_TYPE,
    build_manifest,
    child_context,
    command_entry,
    command_name,
    current_root,
    description,
    root_context,
    summary,
)
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.cli.program import PROGRAM
from memhtml.app.cli.state import CliState

HELP_TYPE: Final = "cli.help"
HELP_COMMAND: Final = "help"
VERSION_TYPE: Final = "cli.version"
# What the root's help adds for a person meeting the program for the first time.
ROOT_NOTES: Final = (
    "## Where the store is",
    "",
    "`--repo PATH`, else `$MEMHTML_ROOT`, else the nearest directory at or above the working "
    "directory that holds a store (a git work tree with a `.memhtml/` folder), else "
    "`~/memhtml`. Create one with `memhtml init --repo PATH`.",
    "",
    "## More",
    "",
    "- `memhtml COMMAND --help`: one command in detail.",
    "- `memhtml manifest`: every command, flag, error code and setting as JSON.",
    "- `memhtml completion bash|zsh|fish`: shell completion.",
    "- In a pipe every command prints one JSON envelope; `--pretty` renders it for a person.",
    "",
)


def resolve(root: click.Group, words: Sequence[str]) -> click.Context:
    """The context of the command ``words`` name under ``root`` (the root itself for none).

    Raises:
        UnknownCommand: A word names no command at its place.
    """
    context = root_context(root)
    for position, word in enumerate(words):
        group = context.command
        command = group.commands.get(word) if isinstance(group, click.Group) else None
        if command is None:
            raise UnknownCommand(tuple(words), position)
        context = child_context(context, word, command)
    return context


def help_entry(context: click.Context) -> dict[str, JsonValue]:
    """The ``cli.help`` data: the manifest entry plus usage, full text and subcommands."""
    command = context.command
    entry = command_entry(context)
    subcommands: list[JsonValue] = []
    if isinstance(command, click.Group):
        subcommands = [
            {"name": name, "summary": summary(sub)}
            for name, sub in sorted(command.commands.items())
            if not sub.hidden
        ]
    return {
        # The root's own name is the program's: an empty name read as a missing field.
        "name": command_name(context) or PROGRAM,
        "summary": summary(command),
        "description": description(command),
        "usage": " ".join([context.command_path, *command.collect_usage_pieces(context)]),
        "args": entry["args"],
        "flags": entry["flags"],
        "subcommands": subcommands,
        "responseTypes": entry["responseTypes"],
        "examples": entry["examples"],
        "globalFlags": [flag.name for flag in GLOBAL_FLAGS],
    }


def markdown(entry: dict[str, JsonValue]) -> str:
    """``help_entry`` data as Markdown for a person at a terminal."""
    name = str(entry["name"] or PROGRAM)
    title = name if name == PROGRAM else f"{PROGRAM} {name}"
    lines = [f"# {title}", "", str(entry["description"] or entry["summary"]), ""]
    lines += ["## Usage", "", "```", str(entry["usage"]), "```", ""]
    lines += _section("Arguments", entry["args"], required_marker=True)
    lines += _section("Flags", entry["flags"], required_marker=True)
    lines += _section("Subcommands", entry["subcommands"], required_marker=False)
    types = entry["responseTypes"]
    if isinstance(types, list) and types:
        lines += ["## Response types", "", *(f"- `{t}`" for t in types), ""]
    examples = entry["examples"]
    if isinstance(examples, list) and examples:
        lines += ["## Examples", "", "```", *(str(e) for e in examples), "```", ""]
    lines += ["## Global flags", ""]
    lines += [f"- `{flag.name}`: {flag.description}" for flag in GLOBAL_FLAGS]
    if name == PROGRAM:
        lines += ["", *ROOT_NOTES]
    return "\n".join(lines).rstrip("\n") + "\n"


def _section(title: str, items: JsonValue, *, required_marker: bool) -> list[str]:
    if not isinstance(items, list) or not items:
        return []
    lines = [f"## {title}", ""]
    for item in items:
        if not isinstance(item, dict):
            continue
        facts = [str(item["type"])] if "type" in item else []
        if required_marker and item.get("required"):
            facts.append("required")
        if item.get("repeatable"):
            facts.append("repeatable")
        default = item.get("default")
        if default not in (None, False, []):
            facts.append(f"default {default}")
        values = item.get("values")
        if isinstance(values, list):
            facts.append("one of " + ", ".join(str(v) for v in values))
        text = item.get("description", item.get("summary", ""))
        shown = f" ({'; '.join(facts)})" if facts else ""
        lines.append(f"- `{item['name']}`{shown}: {text}")
    return [*lines, ""]


def show_help(root: click.Group, words: Sequence[str], state: CliState) -> None:
    """Print help for the command ``words`` name: Markdown at a terminal or with ``--pretty``,
    else a ``cli.help`` envelope.

    Raises:
        UnknownCommand: ``words`` name no command.
    """
    entry = help_entry(resolve(root, words))
    if state.stdout_is_tty or state.options.pretty:
        state.writer.text(markdown(entry))
    else:
        state.writer.success(HELP_TYPE, entry)


def show_version(state: CliState) -> None:
    """Print the version: one line at a terminal or with ``--pretty``, else an envelope."""
    from memhtml import __version__

    if state.stdout_is_tty or state.options.pretty:
        state.writer.text(f"{PROGRAM} {__version__}")
    else:
        state.writer.success(VERSION_TYPE, {"name": PROGRAM, "version": __version__})


def register(group: click.Group) -> None:
    """Add ``help`` to ``group``."""
    group.add_command(help_command)


@click.command(HELP_COMMAND)
@click.argument(
    "words",
    nargs=-1,
    help="The command to describe, e.g. `index rebuild`; with none, the whole manifest.",
)
@emits(MANIFEST_TYPE, HELP_TYPE, examples=("memhtml help", "memhtml help manifest"))
def help_command(words: tuple[str, ...]) -> CommandResult:
    """Print the manifest, or the help of one command.

    Opens nothing. `memhtml help` equals `memhtml manifest`; `memhtml help CMD` equals
    `memhtml CMD --help` in a pipe.
    """
    root = current_root()
    if not words:
        return MANIFEST_TYPE, build_manifest(root)
    return HELP_TYPE, help_entry(resolve(root, words))
