"""The front door (issue 18): bare `memhtml`, `--version`, `python -m memhtml`, shell
completion, and finding the store from the working directory as git does.

Console-script runs use the installed program in a subprocess; the rest run in-process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from memhtml import __version__
from tests.integration.test_cli_commands_store import EXPORT_WRITE, data, envelope, invoke

CONSOLE_SCRIPT: Final = Path(sys.executable).parent / "memhtml"


def clean_env() -> dict[str, str]:
    """The process environment without any memhtml setting."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("MEMHTML_", "_MEMHTML"))}


def test_version_is_an_envelope_in_a_pipe_and_one_line_with_pretty() -> None:
    """`--version` prints cli.version {name, version}; with --pretty the familiar line."""
    document = envelope(invoke(["--version"]))
    assert ("cli.version", {"name": "memhtml", "version": __version__}) == (
        document["type"],
        document["data"],
    )
    assert f"memhtml {__version__}\n" == invoke(["--version", "--pretty"]).stdout


def test_python_dash_m_runs_the_same_program(tmp_path: Path) -> None:
    """`python -m memhtml --version` prints what the console script prints."""
    by_module = subprocess.run(
        [sys.executable, "-m", "memhtml", "--version", "--dense"],
        capture_output=True,
        cwd=tmp_path,
        env=clean_env(),
        check=True,
    )
    by_script = subprocess.run(
        [str(CONSOLE_SCRIPT), "--version", "--dense"],
        capture_output=True,
        cwd=tmp_path,
        env=clean_env(),
        check=True,
    )
    assert by_script.stdout == by_module.stdout
    assert __version__ == json.loads(by_module.stdout)["data"]["version"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_the_script_itself(shell: str) -> None:
    """`completion SHELL` prints a script that calls back with _MEMHTML_COMPLETE, no envelope."""
    result = invoke(["completion", shell])
    assert 0 == result.exit_code, result.stdout + result.stderr
    assert "_MEMHTML_COMPLETE" in result.stdout
    assert not result.stdout.lstrip().startswith("{")


def test_the_completion_protocol_completes_commands_and_flags(tmp_path: Path) -> None:
    """At TAB time the shell's callback gets the subcommands and flags click parses with."""

    def complete(words: str, index: int) -> str:
        env = {
            **clean_env(),
            "COMP_WORDS": words,
            "COMP_CWORD": str(index),
            "_MEMHTML_COMPLETE": "bash_complete",
        }
        done = subprocess.run(
            [str(CONSOLE_SCRIPT)], capture_output=True, env=env, cwd=tmp_path, check=True
        )
        return done.stdout.decode("utf-8")

    assert "plain,rebuild\n" == complete("memhtml index re", 2)
    assert "plain,--limit" in complete("memhtml search --li", 2)


def test_a_store_is_found_from_a_folder_inside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --repo or MEMHTML_ROOT, a command run inside the store works on that store."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    inside = root / "resources"
    inside.mkdir(exist_ok=True)
    monkeypatch.chdir(inside)
    written = data(invoke(EXPORT_WRITE))
    assert (root / written["path"]).is_file()
    assert [written["path"]] == [f["path"] for f in data(invoke(["list"]))["files"]]


def test_outside_any_store_the_refusal_names_what_was_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ERR_REPO_REQUIRED says the flag, the variable and the folders above were tried."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    result = invoke(["list"])
    document = envelope(result)
    assert (2, "ERR_REPO_REQUIRED") == (result.exit_code, document["code"])
    assert f"no store in {tmp_path} or any directory above it" in document["error"]
    assert "MEMHTML_ROOT unset" in document["error"]
