"""The manifest read off the click tree, and the docs rule: nothing registered lacks help."""

from __future__ import annotations

import json
from typing import Any

import click

from memhtml import __version__
from memhtml.app.cli import cli
from memhtml.app.cli.environment import ENVIRONMENT
from memhtml.app.cli.errors import ERROR_CODES
from memhtml.app.cli.manifest import build_manifest, flag_name
from memhtml.app.cli.output import CommandResult, emits

# docs/cli-contract.md §5 plus docs/decisions.md §12's tokenizer switch.
SPEC_VARIABLES = {
    "MEMHTML_ROOT",
    "MEMHTML_REFUSE_ENV_ROOT",
    "MEMHTML_EMBED",
    "MEMHTML_EMBED_MODEL",
    "MEMHTML_VECTOR_COVERAGE_FLOOR",
    "MEMHTML_AWS_REGION",
    "AWS_BEARER_TOKEN_BEDROCK",
    "MEMHTML_GIT_NAME",
    "MEMHTML_GIT_EMAIL",
    "MEMHTML_LOG_LEVEL",
    "MEMHTML_FTS_TOKENIZER",
}


def manifest_of(root: click.Group) -> Any:
    """The manifest as a caller reads it: parsed JSON."""
    return json.loads(json.dumps(build_manifest(root)))


def undocumented(group: click.Group, prefix: str = "") -> list[str]:
    """Every command, group, flag and argument under ``group`` that has no help text."""
    missing: list[str] = []
    for name, command in sorted(group.commands.items()):
        path = f"{prefix}{name}"
        if not (command.help or "").strip():
            missing.append(path)
        for param in command.params:
            if isinstance(param, click.Option) and not (param.help or "").strip():
                missing.append(f"{path} {'/'.join(param.opts)}")
            if isinstance(param, click.Argument) and not (param.help or "").strip():
                missing.append(f"{path} {param.human_readable_name}")
        if isinstance(command, click.Group):
            missing.extend(undocumented(command, f"{path} "))
    return missing


def _sample_tree() -> click.Group:
    @click.command("rebuild")
    @click.argument("paths", nargs=-1, help="Paths to rebuild.")
    @click.option("--embed/--no-embed", default=True, help="Embed new chunks.")
    @click.option("--limit", type=click.IntRange(1, 500), default=50, help="Page size, 1–500.")
    @click.option("--signal", type=click.Choice(["positive", "neutral"]), help="Outcome.")
    @click.option("--tag", multiple=True, help="Tags, any of.")
    @click.option("--title", required=True, help="The title.")
    @emits("index.report", examples=("memhtml index rebuild",))
    def rebuild(
        paths: tuple[str, ...],
        embed: bool,
        limit: int,
        signal: str,
        tag: tuple[str, ...],
        title: str,
    ) -> CommandResult:
        """Rebuild the index.

        More text a person reads in help only.
        """
        return "index.report", {}

    root = click.Group("memhtml", help="Root.")
    index = click.Group("index", help="Index commands.")
    index.add_command(rebuild)
    root.add_command(index)
    return root


def test_every_shipped_command_flag_and_argument_has_help() -> None:
    """The docs rule: a registered command, flag or argument without help fails the build."""
    assert [] == undocumented(cli)


def test_the_docs_rule_catches_a_missing_help() -> None:
    """The checker itself finds a bare command, a bare flag and a bare argument."""
    root = click.Group("memhtml")
    root.add_command(
        click.Command("bare", params=[click.Option(["--x"]), click.Argument(["y"])], help="")
    )
    assert ["bare", "bare --x", "bare Y"] == undocumented(root)


def test_manifest_lists_every_error_code_with_its_exit() -> None:
    """errorCodes is the error table, in its order."""
    expected = [(entry.code, entry.exit_status) for entry in ERROR_CODES]
    listed = manifest_of(cli)["errorCodes"]
    assert expected == [(e["code"], e["exitCode"]) for e in listed]


def test_manifest_config_lists_the_spec_variables_with_fallbacks() -> None:
    """config holds docs/cli-contract.md §5's variables, each with a description and its
    fallback."""
    config = manifest_of(cli)["config"]
    assert SPEC_VARIABLES <= {entry["name"] for entry in config}
    assert all(entry["description"] and "fallback" in entry for entry in config)


def test_environment_table_names_every_variable_the_configuration_reads() -> None:
    """Each ENV_* the app configuration reads is documented in the table."""
    from memhtml.app.bootstrap import config, settings

    read = {
        value
        for module in (config, settings)
        for name, value in vars(module).items()
        if name.startswith("ENV_")
    }
    assert set() == read - {var.name for var in ENVIRONMENT}


# docs/cli-contract.md §2, the "now" command tree and its response types.
SHIPPED_COMMANDS = sorted(
    [
        "init", "write", "read", "list", "correct", "archive", "link", "apply", "reinforce",
        "search", "recall", "index rebuild", "index update", "index embed", "index status",
        "doctor", "state export", "state import", "manifest", "help", "eval discriminate",
        "eval locomo", "eval compare", "mcp", "trace scan", "trace list", "trace show",
        "completion", "sync", "clone", "neighbors", "helper status", "helper stop",
    ]
)  # fmt: skip
SHIPPED_RESPONSE_TYPES = sorted(
    [
        "repo.init", "memory.written", "memory.detail", "memory.list", "memory.corrected",
        "memory.archived", "memory.linked", "batch.applied", "memory.reinforced", "memory.hits",
        "recall.pack", "index.report", "doctor.report", "state.export", "state.import",
        "cli.manifest", "cli.help", "eval.discrimination", "eval.locomo", "eval.compare",
        "mcp.stopped",
        "trace.scan", "trace.list", "trace.detail",
        "shell.completion",
        "sync.report", "repo.cloned", "memory.neighbors", "helper.status", "helper.stop",
    ]
)  # fmt: skip


def test_manifest_header_and_shipped_commands() -> None:
    """Name, version, apiVersion, and exactly the commands docs/cli-contract.md §2 lists as
    shipped now."""
    manifest = manifest_of(cli)
    assert ("memhtml", __version__, "1") == (
        manifest["name"],
        manifest["version"],
        manifest["apiVersion"],
    )
    assert SHIPPED_COMMANDS == sorted(c["name"] for c in manifest["commands"])
    assert SHIPPED_RESPONSE_TYPES == sorted(manifest["responseTypes"])


def test_command_entries_describe_args_and_flags_from_click() -> None:
    """Types, defaults, choices, repeatable and required come from the click parameters."""
    (entry,) = manifest_of(_sample_tree())["commands"]
    assert "index rebuild" == entry["name"]
    assert "Rebuild the index." == entry["summary"]
    assert ["index.report"] == entry["responseTypes"]
    assert ["memhtml index rebuild"] == entry["examples"]
    assert [
        {
            "name": "PATHS",
            "type": "string",
            "description": "Paths to rebuild.",
            "required": False,
            "repeatable": True,
        }
    ] == entry["args"]
    flags = {f["name"]: f for f in entry["flags"]}
    assert ["--embed/--no-embed", "--limit", "--signal", "--tag", "--title"] == list(flags)
    embed, limit, signal, tag, title = flags.values()
    assert ("boolean", True) == (embed["type"], embed["default"])
    assert ("integer", 50, None) == (limit["type"], limit["default"], limit["values"])
    assert ("choice", ["positive", "neutral"]) == (signal["type"], signal["values"])
    assert (True, []) == (tag["repeatable"], tag["default"])
    assert (True, None, False) == (title["required"], title["default"], title["repeatable"])


def test_flag_name_prefers_the_long_spelling() -> None:
    """`-l/--limit` is listed as `--limit`."""
    assert "--limit" == flag_name(click.Option(["-l", "--limit"]))
