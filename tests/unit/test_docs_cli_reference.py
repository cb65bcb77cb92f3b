"""docs/cli.md is the click tree rendered, and nothing in the tree lacks help text."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Final

import click
import pytest

from memhtml.app.cli import build_cli, cli
from memhtml.app.cli.app import REGISTRARS
from memhtml.app.cli.errors import ERROR_CODES
from memhtml.app.cli.manifest import build_manifest
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.cli.reference import (
    REFERENCE_PATH,
    REGENERATE,
    UndocumentedCommands,
    cell,
    main,
    missing_help,
    prose,
    render_reference,
)

ROOT: Final = Path(__file__).resolve().parents[2]
DIFF_LINES_SHOWN: Final = 40


def _throwaway(group: click.Group) -> None:
    """Registers a command no real module has, as another agent's new command would."""

    @click.command("zz-probe")
    @click.argument("target", help="What to probe.")
    @click.option("--depth", type=click.IntRange(1, 9), default=3, help="How deep | how far.")
    @emits("probe.report", examples=("memhtml zz-probe x --depth 2",))
    def probe(target: str, depth: int) -> CommandResult:
        """Probe a thing under archive/<YYYY>/ and say what `<mark>` holds."""
        return "probe.report", {}

    group.add_command(probe)


def test_committed_reference_is_the_click_tree_rendered() -> None:
    """docs/cli.md equals a fresh rendering; on drift the failure says how to regenerate."""
    committed = (ROOT / REFERENCE_PATH).read_text(encoding="utf-8")
    rendered = render_reference(cli)
    if committed != rendered:
        diff = difflib.unified_diff(
            committed.splitlines(), rendered.splitlines(), "committed", "rendered", lineterm=""
        )
        shown = "\n".join(list(diff)[:DIFF_LINES_SHOWN])
        pytest.fail(f"{REFERENCE_PATH} is out of date; regenerate it: {REGENERATE}\n{shown}")


def test_every_command_group_flag_and_argument_has_help() -> None:
    """The docs rule: a registered command, group, flag or argument without help fails."""
    assert [] == missing_help(cli)


def test_missing_help_names_each_bare_part() -> None:
    """The checker finds a bare command, a bare flag, a bare argument and a bare group."""
    root = click.Group("memhtml")
    bare = click.Command("bare", params=[click.Option(["-x", "--ex"]), click.Argument(["y"])])
    group = click.Group("grp", commands={"sub": click.Command("sub", help="Documented.")})
    root.add_command(bare)
    root.add_command(group)
    assert ["bare", "bare --ex", "bare Y", "grp"] == missing_help(root)


def test_hidden_commands_and_flags_need_no_help() -> None:
    """Hidden parts are not documented interface, so they are not required to have help."""
    root = click.Group("memhtml")
    shown = click.Command("shown", help="Shown.", params=[click.Option(["--x"], hidden=True)])
    root.add_command(shown)
    root.add_command(click.Command("secret", hidden=True))
    assert [] == missing_help(root)


def test_rendering_refuses_a_tree_with_holes() -> None:
    """An undocumented flag stops the rendering instead of leaving a hole in the page."""
    root = click.Group("memhtml", help="Root.")
    root.add_command(click.Command("bare", help="Bare.", params=[click.Option(["--x"])]))
    with pytest.raises(UndocumentedCommands) as raised:
        render_reference(root)
    assert ("bare --x",) == raised.value.missing


def test_a_new_command_appears_without_touching_the_generator() -> None:
    """A command added through the command table is rendered with its argument, flag and type."""
    text = render_reference(build_cli((*REGISTRARS, _throwaway)))
    assert "### memhtml zz-probe" in text
    assert "[`zz-probe`](#memhtml-zz-probe)" in text
    assert "| `TARGET` | string | yes | What to probe. |" in text
    assert "| `--depth` | integer | `3` | How deep \\| how far. |" in text
    assert "| `probe.report` | `zz-probe` |" in text
    assert "```sh\nmemhtml zz-probe x --depth 2\n```" in text


def test_every_manifest_command_flag_and_error_code_is_on_the_page() -> None:
    """Each command's heading and flags, and every error code with its exit, are rendered."""
    text = render_reference(cli)
    manifest = build_manifest(cli)
    commands = manifest["commands"]
    assert isinstance(commands, list)
    for command in commands:
        assert isinstance(command, dict)
        assert f"### memhtml {command['name']}\n" in text
        flags = command["flags"]
        assert isinstance(flags, list)
        for flag in flags:
            assert isinstance(flag, dict)
            assert f"| `{flag['name']}` |" in text
    for entry in ERROR_CODES:
        assert f"| `{entry.code}` | {entry.exit_status} |" in text


def test_prose_escapes_tags_outside_code_spans_only() -> None:
    """`<YYYY>` would vanish as an HTML tag; inside backticks it is already literal."""
    assert "archive/&lt;YYYY>/ and `<mark>` and ``<b>``" == prose(
        "archive/<YYYY>/ and `<mark>` and ``<b>``"
    )


def test_cell_keeps_a_table_row_on_one_line() -> None:
    """Newlines fold to spaces and pipes are escaped, so a help text cannot split a row."""
    assert "a b \\| c" == cell("a\n  b | c")


def test_check_mode_fails_on_a_stale_file_and_passes_on_a_fresh_one(tmp_path: Path) -> None:
    """`--check` exits 1 on a stale file and 0 once `--output` has rewritten it."""
    target = tmp_path / "cli.md"
    target.write_text("stale\n", encoding="utf-8")
    assert 1 == main(["--check", str(target)])
    assert 0 == main(["--output", str(target)])
    assert 0 == main(["--check", str(target)])
    assert render_reference(cli) == target.read_text(encoding="utf-8")


def test_readme_tables_are_the_program_tables_rendered() -> None:
    """README's configuration and troubleshooting blocks equal a fresh rendering."""
    from memhtml.app.cli.readme_tables import README_PATH, REGENERATE, render_readme

    committed = (ROOT / README_PATH).read_text(encoding="utf-8")
    if committed != render_readme(committed):
        pytest.fail(f"{README_PATH}'s generated tables are out of date; regenerate: {REGENERATE}")


def test_every_error_code_has_a_remedy_in_the_readme() -> None:
    """A new code without a remedy cannot be rendered: the README would leave it unexplained."""
    from memhtml.app.cli.readme_tables import REMEDIES

    assert {entry.code for entry in ERROR_CODES} == set(REMEDIES)


def test_readme_names_every_mcp_tool_and_counts_them() -> None:
    """The MCP section's tool list is the catalog's, so a new tool cannot go unmentioned."""
    from memhtml.app.mcp.catalog import TOOLS

    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## MCP server", 1)[1]
    sentence = section.split(" and each memory file", 1)[0]
    named = re.findall(r"`([a-z_]+)`", sentence)
    counts = {12: "twelve", 13: "thirteen", 14: "fourteen", 15: "fifteen"}
    assert sorted(tool.name for tool in TOOLS) == sorted(named)
    assert f"{counts[len(TOOLS)]}\ntools" in sentence or f"{counts[len(TOOLS)]} tools" in sentence
