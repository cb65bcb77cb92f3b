"""``docs/cli.md``: the command reference, rendered from the click tree the program parses with.

Every command, argument and flag comes from the manifest walker (``manifest.build_manifest``),
the error codes from the one error table and the settings from the environment table, so the
page says exactly what the program accepts. ``tests/unit/test_docs_cli_reference.py``
re-renders it and fails when the committed file differs; ``make docs`` rewrites it::

    python -m memhtml.app.cli.reference --output docs/cli.md

A tree with a command, group, flag or argument that has no help text is refused: the page would
have a hole, and so would ``--help``.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final

import click

from memhtml.app.cli.envelope import API_VERSION, JsonValue
from memhtml.app.cli.environment import ENVIRONMENT
from memhtml.app.cli.errors import ERROR_CODES
from memhtml.app.cli.global_options import GLOBAL_FLAGS
from memhtml.app.cli.help import help_entry
from memhtml.app.cli.manifest import (
    child_context,
    leaf_contexts,
    root_context,
    summary,
)
from memhtml.app.cli.program import PROGRAM

REFERENCE_PATH: Final = "docs/cli.md"
REGENERATE: Final = "make docs  (python -m memhtml.app.cli.reference --output docs/cli.md)"
HEADER: Final = (
    "<!-- Generated from the click command tree by `make docs` "
    "(python -m memhtml.app.cli.reference). Do not edit by hand: "
    "tests/unit/test_docs_cli_reference.py fails when this page and the program differ. -->"
)
NO_VALUE: Final = "—"
# A code span: a run of backticks, the shortest text, the same run again.
_CODE_SPAN: Final = re.compile(r"(`+).+?\1", re.DOTALL)


class UndocumentedCommands(ValueError):
    """Some command, group, flag or argument has no help text; the reference would have holes.

    Attributes:
        missing: What lacks help, as ``command path`` or ``command path --flag``.
    """

    def __init__(self, missing: Sequence[str]) -> None:
        super().__init__("no help text for: " + ", ".join(missing))
        self.missing = tuple(missing)


def missing_help(group: click.Group, prefix: str = "") -> list[str]:
    """Every visible command, group, flag and argument under ``group`` without help text.

    Hidden commands and flags are skipped: they are not part of the documented interface.
    """
    missing: list[str] = []
    for name, command in sorted(group.commands.items()):
        if command.hidden:
            continue
        path = f"{prefix}{name}"
        if not (command.help or command.short_help or "").strip():
            missing.append(path)
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                if not (param.help or "").strip():
                    missing.append(f"{path} {max(param.opts, key=len)}")
            elif isinstance(param, click.Argument) and not (param.help or "").strip():
                missing.append(f"{path} {param.human_readable_name}")
        if isinstance(command, click.Group):
            missing.extend(missing_help(command, f"{path} "))
    return missing


def render_reference(root: click.Group) -> str:
    """The whole reference page for ``root``'s command tree, as Markdown.

    Raises:
        UndocumentedCommands: Something in the tree has no help text.
    """
    missing = missing_help(root)
    if missing:
        raise UndocumentedCommands(missing)
    leaves = [help_entry(context) for context in leaf_contexts(root)]
    lines = [HEADER, "", f"# {PROGRAM} command reference", "", summary(root), ""]
    lines += [
        "The process contract (one JSON envelope on stdout, exit codes, stderr) is in",
        "[cli-contract.md](cli-contract.md); `memhtml manifest` prints this page's facts as",
        f"JSON. API version {API_VERSION}.",
        "",
    ]
    lines += _command_index(leaves)
    lines += _groups(root)
    lines += _global_flags()
    lines += ["## Commands", ""]
    for entry in leaves:
        lines += _command(entry)
    lines += _error_codes()
    lines += _environment()
    lines += _response_types(leaves)
    return "\n".join(lines).rstrip("\n") + "\n"


def prose(text: str) -> str:
    """Help text as Markdown prose: ``<`` outside code spans escaped.

    Help says ``archive/<YYYY>/`` or ``its <mark>``; a Markdown renderer would take those for
    HTML tags and show nothing.
    """
    kept: list[str] = []
    start = 0
    for span in _CODE_SPAN.finditer(text):
        kept += [text[start : span.start()].replace("<", "&lt;"), span.group(0)]
        start = span.end()
    kept.append(text[start:].replace("<", "&lt;"))
    return "".join(kept)


def cell(value: object) -> str:
    """Text safe inside one Markdown table cell: one line, pipes and tags escaped."""
    return prose(" ".join(str(value).split())).replace("|", "\\|")


def _code(value: object) -> str:
    return f"`{value}`"


def _anchor(title: str) -> str:
    """The anchor a Markdown renderer gives the heading ``title`` (letters, digits, hyphens)."""
    kept = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return "-".join(kept.split())


def _title(entry: dict[str, JsonValue]) -> str:
    return f"{PROGRAM} {entry['name']}"


def _command_index(leaves: Sequence[dict[str, JsonValue]]) -> list[str]:
    lines = ["| command | summary | responds with |", "|---|---|---|"]
    for entry in leaves:
        link = f"[`{entry['name']}`](#{_anchor(_title(entry))})"
        types = ", ".join(_code(t) for t in _strings(entry["responseTypes"]))
        lines.append(f"| {link} | {cell(entry['summary'])} | {types} |")
    return [*lines, ""]


def _groups(root: click.Group) -> list[str]:
    groups = list(_walk_groups(root_context(root), root))
    if not groups:
        return []
    lines = ["## Command groups", "", "| group | summary | subcommands |", "|---|---|---|"]
    for name, group in groups:
        subcommands = ", ".join(
            _code(sub) for sub, command in sorted(group.commands.items()) if not command.hidden
        )
        lines.append(f"| `{name}` | {cell(summary(group))} | {subcommands} |")
    return [*lines, ""]


def _walk_groups(context: click.Context, group: click.Group) -> Iterator[tuple[str, click.Group]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group) and not command.hidden:
            child = child_context(context, name, command)
            yield child.command_path.removeprefix(PROGRAM).strip(), command
            yield from _walk_groups(child, command)


def _global_flags() -> list[str]:
    lines = ["## Global flags", "", "Accepted before or after any command.", ""]
    lines += ["| flag | type | default | description |", "|---|---|---|---|"]
    for flag in GLOBAL_FLAGS:
        names = ", ".join(_code(name) for name in (flag.name, *flag.aliases))
        default = NO_VALUE if flag.default is None else _code(_json(flag.default))
        lines.append(f"| {names} | {flag.type} | {default} | {cell(flag.description)} |")
    return [*lines, ""]


def _command(entry: dict[str, JsonValue]) -> list[str]:
    lines = [f"### {_title(entry)}", ""]
    text = str(entry["description"] or entry["summary"])
    description = prose("\n".join(line for line in text.splitlines() if line != "\b"))
    lines += [description, "", "```text", str(entry["usage"]), "```", ""]
    args = _objects(entry["args"])
    if args:
        lines += ["| argument | type | required | description |", "|---|---|---|---|"]
        for arg in args:
            kind = str(arg["type"]) + (", repeatable" if arg["repeatable"] else "")
            required = "yes" if arg["required"] else "no"
            lines.append(f"| `{arg['name']}` | {kind} | {required} | {cell(arg['description'])} |")
        lines.append("")
    flags = _objects(entry["flags"])
    if flags:
        lines += ["| flag | type | default | description |", "|---|---|---|---|"]
        lines += [_flag_row(flag) for flag in flags]
        lines.append("")
    types = ", ".join(_code(t) for t in _strings(entry["responseTypes"]))
    lines += [f"Responds with {types}.", ""]
    examples = _strings(entry["examples"])
    if examples:
        lines += ["```sh", *examples, "```", ""]
    return lines


def _flag_row(flag: dict[str, JsonValue]) -> str:
    kind = str(flag["type"])
    values = flag["values"]
    if isinstance(values, list):
        kind += ": " + ", ".join(_code(v) for v in values)
    if flag["repeatable"]:
        kind += "; repeatable"
    if flag["required"]:
        kind += "; required"
    default = flag["default"]
    shown = NO_VALUE if default in (None, []) else _code(_json(default))
    return f"| `{flag['name']}` | {cell(kind)} | {cell(shown)} | {cell(flag['description'])} |"


def _error_codes() -> list[str]:
    lines = ["## Error codes", ""]
    lines += [
        "Exit 2: fix the call. Exit 1: fix the repository or the environment. Callers key on",
        "`code`; the `error` prose may change. Codes are only ever added.",
        "",
        "| code | exit | when | suggestions |",
        "|---|---|---|---|",
    ]
    for entry in ERROR_CODES:
        suggestions = "; ".join(_code(s) for s in entry.suggestions) or NO_VALUE
        lines.append(
            f"| `{entry.code}` | {entry.exit_status} | {cell(entry.description)} "
            f"| {cell(suggestions)} |"
        )
    return [*lines, ""]


def _environment() -> list[str]:
    lines = ["## Environment", "", "| variable | fallback | description |", "|---|---|---|"]
    for variable in ENVIRONMENT:
        fallback = variable.fallback or NO_VALUE
        if " " not in fallback and fallback != NO_VALUE:
            fallback = _code(fallback)
        lines.append(f"| `{variable.name}` | {cell(fallback)} | {cell(variable.description)} |")
    return [*lines, ""]


def _response_types(leaves: Sequence[dict[str, JsonValue]]) -> list[str]:
    emitters: dict[str, list[str]] = {}
    for entry in leaves:
        for response_type in _strings(entry["responseTypes"]):
            emitters.setdefault(response_type, []).append(str(entry["name"]))
    lines = ["## Response types", "", "| type | emitted by |", "|---|---|"]
    for response_type, names in sorted(emitters.items()):
        lines.append(f"| `{response_type}` | {', '.join(_code(n) for n in names)} |")
    return [*lines, ""]


def _json(value: JsonValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_json(item) for item in value)
    return str(value)


def _strings(value: JsonValue) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _objects(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def main(argv: Sequence[str] | None = None) -> int:
    """Print the reference, write it (``--output``), or compare it with a file (``--check``).

    Returns:
        0 on success; 1 when ``--check`` finds the file out of date or something lacks help.
    """
    parser = argparse.ArgumentParser(
        prog="python -m memhtml.app.cli.reference",
        description="Render the memhtml command reference (docs/cli.md) from the click tree.",
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--output", type=Path, help="write the reference to this file")
    target.add_argument("--check", type=Path, help="exit 1 when this file differs")
    options = parser.parse_args(argv)
    from memhtml.app.cli.app import cli  # the real command table, loaded only when run

    try:
        text = render_reference(cli)
    except UndocumentedCommands as error:
        print(f"memhtml: {error}", file=sys.stderr)
        return 1
    if options.check is not None:
        current = options.check.read_text(encoding="utf-8") if options.check.exists() else ""
        if current != text:
            print(
                f"{options.check} is out of date; regenerate it with: {REGENERATE}", file=sys.stderr
            )
            return 1
        return 0
    if options.output is not None:
        options.output.parent.mkdir(parents=True, exist_ok=True)
        options.output.write_text(text, encoding="utf-8")
        return 0
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
