"""The command-line framework end to end: one envelope on stdout per invocation, whatever
happens; logs and tracebacks on stderr; exit 0/1/2; global options anywhere; help; suggestions.

Commands that exercise the framework are built here, on the shared output decorator, and
attached to a root built with ``build_cli``; nothing here ships.
"""

from __future__ import annotations

import json
import logging
import math
import os
import pty
import sqlite3
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from memhtml.app.cli import REGISTRARS, build_cli, cli, emits
from memhtml.app.cli.config_root import check_initialized, repo_root
from memhtml.app.cli.output import CommandResult
from memhtml.app.cli.state import current_state
from memhtml.app.errors import RepoRequired
from memhtml.domain.errors import InvalidMemory, NotFound
from memhtml.domain.findings import Finding
from memhtml.ports.git import PathRefused
from memhtml.ports.git_writer import HeadMoved

SECRET = "the nightly ledger lock password is hunter2"
CONSOLE_SCRIPT = Path(sys.executable).parent / "memhtml"
# The MCP SDK and its stack are an optional extra: only `memhtml mcp` may import them.
HEAVY_MODULES = (
    "sqlean", "dulwich", "html5lib", "onnxruntime", "numpy",
    "mcp", "pydantic", "starlette", "uvicorn", "anyio",
)  # fmt: skip
LATER_COMMANDS = [
    "serve mcp",
    "trace index",
    "trace search",
    "trace links",
    "sleep run",
    "sleep resume",
    "sleep review",
    "sleep merge",
    "sleep status",
    "sleep plan",
    "resolve x",
    "task list",
    "status",
    "publish",
    "exec",
]
RAISED: Mapping[str, BaseException] = {
    "not-found": NotFound("no memory at that path"),
    "invalid-memory": InvalidMemory((Finding(code="mark-count", detail="one mark"),)),
    "head-moved": HeadMoved("a" * 40, "b" * 40),
    "path-refused": PathRefused("commit", "../escape.html", "dot-segment"),
    "repo-required": RepoRequired("no repo", root="/r", suggestions=("memhtml init --repo /r",)),
    "driver": sqlite3.OperationalError(f"UNIQUE constraint failed: '{SECRET}'"),
}


@click.command("echo")
@click.argument("words", nargs=-1, help="Words to echo.")
@click.option("--title", help="A value-taking option.")
@click.option("--tag", multiple=True, help="A repeatable option.")
@click.option("--count", type=click.IntRange(1, 5), default=1, help="A ranged number.")
@emits("probe.echo")
def echo_command(
    words: tuple[str, ...], title: str | None, tag: tuple[str, ...], count: int
) -> CommandResult:
    """Echo the arguments and the global options."""
    options = current_state().options
    return "probe.echo", {
        "words": words,
        "title": title,
        "tags": tag,
        "count": count,
        "repo": options.repo,
        "dense": options.dense,
        "absent": None,
        "zero": 0,
        "no": False,
        "empty": [],
        "text": "Café 😀",
    }


@click.command("raise")
@click.argument("name", help="Which exception to raise.")
@emits("probe.never")
def raise_command(name: str) -> CommandResult:
    """Raise a chosen exception."""
    raise RAISED[name]


@click.command("root")
@click.option("--uninitialized", is_flag=True, help="Skip the initialized check.")
@emits("probe.root")
def root_command(uninitialized: bool) -> CommandResult:
    """Report the resolved repository root."""
    return "probe.root", {"root": str(repo_root(initialized=not uninitialized))}


@click.command("log")
@emits("probe.log")
def log_command() -> CommandResult:
    """Log at three levels."""
    logger = logging.getLogger("memhtml.probe")
    logger.debug("debug line")
    logger.info("info line")
    logger.warning("warning line")
    return "probe.log", {}


@click.command("undeclared")
@emits("probe.declared")
def undeclared_command() -> CommandResult:
    """Return a type the command did not declare."""
    return "probe.other", {}


@click.command("nan")
@emits("probe.nan")
def nan_command() -> CommandResult:
    """Return data JSON cannot carry."""
    return "probe.nan", {"x": math.nan}


@click.command("silent")
def silent_command() -> None:
    """Finish without the output decorator."""


@click.command("table")
@emits("probe.table")
def table_command() -> CommandResult:
    """Return a list of flat objects."""
    return "probe.table", {"files": [{"path": "a.html", "n": 1}, {"path": "bb.html", "n": 22}]}


def register_probe(group: click.Group) -> None:
    """Attach the probe commands under `probe`."""
    probe = click.Group("probe", help="Throwaway commands that exercise the framework.")
    for command in (
        echo_command,
        raise_command,
        root_command,
        log_command,
        undeclared_command,
        nan_command,
        silent_command,
        table_command,
    ):
        probe.add_command(command)
    group.add_command(probe)


TEST_CLI = build_cli((*REGISTRARS, register_probe))
CLEAN_ENV: dict[str, str | None] = {
    "MEMHTML_ROOT": None,
    "MEMHTML_REFUSE_ENV_ROOT": None,
    "MEMHTML_LOG_LEVEL": None,
}


def invoke(
    args: list[str], env: Mapping[str, str | None] | None = None, root: click.Group = TEST_CLI
) -> Result:
    """Run one invocation in-process with stdout and stderr captured apart."""
    return CliRunner().invoke(root, args, env={**CLEAN_ENV, **(env or {})})


def envelope(result: Result) -> Any:
    """The one envelope on stdout: newline-terminated, a single JSON object."""
    assert result.stdout.endswith("\n")
    parsed = json.loads(result.stdout)
    assert isinstance(parsed, dict)
    return parsed


def failure(result: Result) -> tuple[int, str]:
    """Exit status and code of a failed invocation."""
    document = envelope(result)
    assert ["apiVersion", "error", "code", "suggestions"] == list(document)
    return result.exit_code, str(document["code"])


def test_success_envelope_in_contract_order_with_utf8_text() -> None:
    """Exit 0; apiVersion, type, data; non-ASCII text unescaped; nulls kept without --dense."""
    result = invoke(["probe", "echo", "x"])
    document = envelope(result)
    assert 0 == result.exit_code
    assert ["apiVersion", "type", "data"] == list(document)
    assert ("1", "probe.echo") == (document["apiVersion"], document["type"])
    assert "Café 😀" in result.stdout
    assert {"absent": None, "zero": 0, "no": False} == {
        k: document["data"][k] for k in ("absent", "zero", "no")
    }


@pytest.mark.parametrize(
    "args",
    [
        ["--dense", "--repo", "/r", "probe", "echo", "w"],
        ["probe", "echo", "w", "--dense", "--repo", "/r"],
        ["probe", "--dense", "echo", "--repo=/r", "w", "--json"],
    ],
    ids=["before", "after", "between"],
)
def test_global_options_work_before_between_and_after_the_command(args: list[str]) -> None:
    """--repo and --dense mean the same wherever they stand; --json is accepted and ignored."""
    result = invoke(args)
    expected = (
        '{"apiVersion":"1","type":"probe.echo","data":{"words":["w"],"tags":[],"count":1,'
        '"repo":"/r","dense":true,"zero":0,"no":false,"empty":[],"text":"Café 😀"}}\n'
    )
    assert (0, expected) == (result.exit_code, result.stdout)


def test_repeatable_flags_keep_every_occurrence() -> None:
    """`--tag a --tag b` keeps both, in order."""
    document = envelope(invoke(["probe", "echo", "--tag", "a", "--tag", "b"]))
    assert ["a", "b"] == document["data"]["tags"]


def test_option_value_that_looks_global_is_kept() -> None:
    """`--title --dense` is a title; the output stays indented JSON."""
    result = invoke(["probe", "echo", "--title", "--dense"])
    assert "--dense" == envelope(result)["data"]["title"]
    assert result.stdout.count("\n") > 1


def test_help_and_manifest_print_the_manifest() -> None:
    """`memhtml help` and `memhtml manifest` print the same cli.manifest."""
    outputs = {invoke(args, root=cli).stdout for args in (["help"], ["manifest"])}
    (only,) = outputs
    assert "cli.manifest" == json.loads(only)["type"]


def test_bare_memhtml_in_a_pipe_is_the_root_help_under_the_program_name() -> None:
    """`memhtml` alone equals `memhtml --help`: a cli.help envelope named `memhtml`."""
    outputs = {invoke(args, root=cli).stdout for args in ([], ["--help"], ["-h", "--dense"])}
    documents = [json.loads(text) for text in outputs]
    assert {("cli.help", "memhtml")} == {(d["type"], d["data"]["name"]) for d in documents}


def test_manifest_walks_the_registered_tree() -> None:
    """A registered command appears in the manifest with its flags, args and response types."""
    document = envelope(invoke(["manifest"]))
    commands = {c["name"]: c for c in document["data"]["commands"]}
    echo = commands["probe echo"]
    assert ["probe.echo"] == echo["responseTypes"]
    assert ["--title", "--tag", "--count"] == [f["name"] for f in echo["flags"]]
    assert ["WORDS"] == [a["name"] for a in echo["args"]]


@pytest.mark.parametrize("command", LATER_COMMANDS)
def test_later_commands_are_unknown(command: str) -> None:
    """The commands docs/cli-contract.md §2 defers are not registered: ERR_UNKNOWN_COMMAND,
    exit 2."""
    assert (2, "ERR_UNKNOWN_COMMAND") == failure(invoke(command.split(), root=cli))


def test_unknown_command_suggests_the_nearest() -> None:
    """`manifst` suggests `memhtml manifest` first (at most three); the error names the typo."""
    document = envelope(invoke(["manifst"]))
    assert "memhtml manifest" == document["suggestions"][0]
    assert len(document["suggestions"]) <= 3
    assert "memhtml manifst" in str(document["error"])


def test_unknown_subcommand_is_compared_as_a_phrase() -> None:
    """`probe ecko` suggests `memhtml probe echo` first."""
    result = invoke(["probe", "ecko"])
    assert (2, "ERR_UNKNOWN_COMMAND") == failure(result)
    assert "memhtml probe echo" == envelope(result)["suggestions"][0]


def test_a_typo_in_the_group_word_still_finds_the_two_word_command() -> None:
    """`prbe echo` is compared as a phrase too, so `memhtml probe echo` is offered."""
    for args in (["prbe", "echo"], ["prbe", "echo", "--help"]):
        result = invoke(args)
        assert (2, "ERR_UNKNOWN_COMMAND") == failure(result)
        assert "memhtml probe echo" in envelope(result)["suggestions"]


def test_unknown_flag_suggests_the_nearest_flag() -> None:
    """`--titel` is ERR_INVALID_FLAG, exit 2, suggesting `--title`."""
    result = invoke(["probe", "echo", "--titel", "x"])
    assert (2, "ERR_INVALID_FLAG") == failure(result)
    assert "--title" == envelope(result)["suggestions"][0]


def test_bad_value_is_an_invalid_flag() -> None:
    """A value outside its range is ERR_INVALID_FLAG, exit 2."""
    assert (2, "ERR_INVALID_FLAG") == failure(invoke(["probe", "echo", "--count", "9"]))


def test_missing_argument_is_its_own_code() -> None:
    """A required argument absent: ERR_MISSING_ARGUMENT, exit 2."""
    assert (2, "ERR_MISSING_ARGUMENT") == failure(invoke(["probe", "raise"]))


def test_group_without_subcommand_lists_its_subcommands() -> None:
    """`memhtml probe` alone is ERR_MISSING_ARGUMENT with each subcommand as a suggestion."""
    result = invoke(["probe", "--dense"])
    assert (2, "ERR_MISSING_ARGUMENT") == failure(result)
    assert "memhtml probe echo" in envelope(result)["suggestions"]


def test_extra_positional_is_an_invalid_flag() -> None:
    """An argument no parameter takes: ERR_INVALID_FLAG, exit 2."""
    assert (2, "ERR_INVALID_FLAG") == failure(invoke(["manifest", "extra"]))


def test_repo_without_a_path_is_refused_in_the_asked_format() -> None:
    """A trailing --repo is ERR_INVALID_FLAG, printed dense because --dense was given."""
    result = invoke(["--dense", "manifest", "--repo"])
    assert (2, "ERR_INVALID_FLAG") == failure(result)
    assert 1 == result.stdout.count("\n")


@pytest.mark.parametrize(
    ("name", "exit_status", "code"),
    [
        ("not-found", 1, "ERR_PATH_NOT_FOUND"),
        ("invalid-memory", 1, "ERR_INVALID_MEMORY"),
        ("head-moved", 1, "ERR_WRITE_CONFLICT"),
        ("path-refused", 2, "ERR_INVALID_FLAG"),
        ("repo-required", 2, "ERR_REPO_REQUIRED"),
        ("driver", 1, "ERR_UNKNOWN"),
    ],
)
def test_raised_errors_become_failure_envelopes(name: str, exit_status: int, code: str) -> None:
    """A command's exception becomes its code and exit status, and nothing else is printed."""
    assert (exit_status, code) == failure(invoke(["probe", "raise", name]))


def test_exception_suggestions_reach_the_envelope() -> None:
    """An error's own next steps are the envelope's suggestions."""
    document = envelope(invoke(["probe", "raise", "repo-required"]))
    assert ["memhtml init --repo /r"] == document["suggestions"]


def test_unknown_errors_keep_driver_text_off_stdout() -> None:
    """ERR_UNKNOWN prints only the class name; the traceback, with the text, goes to stderr."""
    result = invoke(["probe", "raise", "driver"])
    assert SECRET not in result.stdout
    assert "OperationalError" in str(envelope(result)["error"])
    assert "Traceback" in result.stderr
    assert SECRET in result.stderr


@pytest.mark.parametrize("command", ["undeclared", "nan", "silent"])
def test_command_bugs_still_print_one_failure_envelope(command: str) -> None:
    """An undeclared type, unencodable data or a bypassed decorator: ERR_UNKNOWN, exit 1."""
    assert (1, "ERR_UNKNOWN") == failure(invoke(["probe", command]))


def test_help_in_a_pipe_is_a_help_envelope_and_runs_nothing() -> None:
    """`-h` anywhere prints a cli.help envelope for that command, exit 0; the body never runs."""
    for args in (["probe", "raise", "-h"], ["--help", "probe", "raise", "driver"]):
        result = invoke(args)
        document = envelope(result)
        assert (0, "cli.help") == (result.exit_code, document["type"])
        assert "probe raise" == document["data"]["name"]
        assert "" == result.stderr


def test_help_of_a_group_lists_subcommands() -> None:
    """Help on a group names its subcommands with their summaries."""
    document = envelope(invoke(["probe", "--help"]))
    names = [s["name"] for s in document["data"]["subcommands"]]
    assert "echo" in names


def test_help_command_describes_one_command() -> None:
    """`memhtml help probe echo` equals `memhtml probe echo --help` in a pipe."""
    assert invoke(["probe", "echo", "--help"]).stdout == invoke(["help", "probe", "echo"]).stdout


def test_help_for_an_unknown_command_is_an_unknown_command() -> None:
    """Help on a path that names nothing is ERR_UNKNOWN_COMMAND with suggestions."""
    for args in (["probe", "ecko", "-h"], ["help", "probe", "ecko"]):
        result = invoke(args)
        assert (2, "ERR_UNKNOWN_COMMAND") == failure(result)
        assert "memhtml probe echo" == envelope(result)["suggestions"][0]


def test_pretty_renders_for_a_person() -> None:
    """--pretty prints the type, then a table for a list of flat objects."""
    result = invoke(["probe", "table", "--pretty"])
    expected = "probe.table\nfiles:\n  path     n\n  -------  --\n  a.html   1\n  bb.html  22\n"
    assert (0, expected) == (result.exit_code, result.stdout)


def test_pretty_failures_are_readable_too() -> None:
    """A failure under --pretty shows the error, code and suggestions as text."""
    result = invoke(["--pretty", "manifst"])
    assert 2 == result.exit_code
    assert "code         ERR_UNKNOWN_COMMAND\n" in result.stdout


def test_logs_go_to_stderr_at_the_configured_level() -> None:
    """Info and up by default; MEMHTML_LOG_LEVEL raises the bar; stdout is only the envelope."""
    default = invoke(["probe", "log"])
    quiet = invoke(["probe", "log"], env={"MEMHTML_LOG_LEVEL": "warning"})
    assert "probe.log" == envelope(default)["type"]
    assert ("info line" in default.stderr, "debug line" in default.stderr) == (True, False)
    assert ("info line" in quiet.stderr, "warning line" in quiet.stderr) == (False, True)


def test_a_bad_log_level_is_an_invalid_flag() -> None:
    """MEMHTML_LOG_LEVEL=loud is a bad environment value: ERR_INVALID_FLAG, exit 2."""
    assert (2, "ERR_INVALID_FLAG") == failure(
        invoke(["manifest"], env={"MEMHTML_LOG_LEVEL": "loud"})
    )


def test_root_from_flag_environment_or_home(tmp_path: Path) -> None:
    """--repo, else MEMHTML_ROOT, else ~/memhtml."""
    flag = invoke(["probe", "root", "--uninitialized", "--repo", str(tmp_path / "f")])
    env = invoke(["probe", "root", "--uninitialized"], env={"MEMHTML_ROOT": str(tmp_path)})
    home = invoke(["probe", "root", "--uninitialized"], env={"HOME": str(tmp_path)})
    roots = [envelope(r)["data"]["root"] for r in (flag, env, home)]
    assert [str(tmp_path / "f"), str(tmp_path), str(tmp_path / "memhtml")] == roots


def test_refused_environment_root_requires_the_flag(tmp_path: Path) -> None:
    """MEMHTML_REFUSE_ENV_ROOT=1 without --repo: ERR_REPO_REQUIRED, exit 2."""
    env = {"MEMHTML_REFUSE_ENV_ROOT": "1", "MEMHTML_ROOT": str(tmp_path)}
    assert (2, "ERR_REPO_REQUIRED") == failure(invoke(["probe", "root"], env=env))


def test_uninitialized_root_suggests_init(tmp_path: Path) -> None:
    """A folder that is not a memhtml repo: ERR_REPO_REQUIRED suggesting `memhtml init`."""
    result = invoke(["probe", "root", "--repo", str(tmp_path)])
    assert (2, "ERR_REPO_REQUIRED") == failure(result)
    assert [f"memhtml init --repo {tmp_path}"] == envelope(result)["suggestions"]


def test_initialized_means_git_work_tree_with_memhtml_folder(tmp_path: Path) -> None:
    """Both markers are needed; `.git` may be a file (a linked worktree)."""
    (tmp_path / ".memhtml").mkdir()
    with pytest.raises(RepoRequired):
        check_initialized(tmp_path)
    (tmp_path / ".git").write_text("gitdir: elsewhere\n", encoding="utf-8")
    assert tmp_path == check_initialized(tmp_path)


def test_console_script_prints_one_envelope(tmp_path: Path) -> None:
    """The installed `memhtml manifest` prints one JSON document on stdout and nothing on
    stderr; an unknown command exits 2 with its envelope."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    ok = subprocess.run(
        [str(CONSOLE_SCRIPT), "manifest"], capture_output=True, env=env, cwd=tmp_path, check=False
    )
    bad = subprocess.run(
        [str(CONSOLE_SCRIPT), "serve", "mcp", "--dense"],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert (0, b"") == (ok.returncode, ok.stderr)
    assert ok.stdout.endswith(b"\n")
    assert "cli.manifest" == json.loads(ok.stdout.decode("utf-8"))["type"]
    assert (2, 1) == (bad.returncode, bad.stdout.count(b"\n"))
    assert "ERR_UNKNOWN_COMMAND" == json.loads(bad.stdout.decode("utf-8"))["code"]


@pytest.mark.parametrize("args", [["manifest"], ["manifest", "-h"]], ids=["command", "help"])
def test_a_closed_pipe_exits_quietly(args: list[str], tmp_path: Path) -> None:
    """A reader that closed stdout before we wrote (`| head`) gets exit 1, no traceback."""
    reader, writer = os.pipe()
    os.close(reader)  # closed before the child starts, so its first write must fail
    try:
        done = subprocess.run(
            [str(CONSOLE_SCRIPT), *args],
            stdout=writer,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            check=False,
        )
    finally:
        os.close(writer)
    assert (1, b"") == (done.returncode, done.stderr)


def test_help_at_a_terminal_is_markdown(tmp_path: Path) -> None:
    """With stdout on a terminal, `--help` prints Markdown instead of an envelope."""
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(CONSOLE_SCRIPT), "manifest", "--help"],
            stdout=follower,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            check=False,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal reports EIO once the writer is gone and it is drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    text = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    assert 0 == done.returncode
    assert text.startswith("# memhtml manifest\n")
    assert "## Usage" in text


def test_importing_the_cli_loads_nothing_heavy() -> None:
    """`import memhtml.app.cli` and running `manifest` load no driver, git, parser or model."""
    script = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "import memhtml.app.cli as cli\n"
        "after_import = sorted(m for m in sys.modules if m.split('.')[0] in HEAVY)\n"
        "CliRunner().invoke(cli.cli, ['manifest'])\n"
        "after_run = sorted(m for m in sys.modules if m.split('.')[0] in HEAVY)\n"
        "print(json.dumps([after_import, after_run]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", f"HEAVY = {set(HEAVY_MODULES)!r}\n{script}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert [[], []] == json.loads(done.stdout)
