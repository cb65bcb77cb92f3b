"""What a cold process loads: the root's help and the version load no part of the program, and
a command loads its own module and not the help machinery. Module lists, never timings."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Final

import pytest

from memhtml.app.cli import front_door_text

# Run as the console script does, then list what got imported (on stderr; stdout is the answer).
PROBE: Final = (
    "import json, sys\n"
    "sys.argv = ['memhtml', *ARGV]\n"
    "from memhtml.app.cli import main\n"
    "try:\n"
    "    main()\n"
    "except SystemExit as exit:\n"
    "    status = exit.code\n"
    "print(json.dumps([status, sorted(sys.modules)]), file=sys.stderr)\n"
)
# Nothing the root's help needs: the click program, attrs, any command module, a driver.
NOT_FOR_HELP: Final = (
    "click", "attr", "attrs", "sqlite3", "sqlean", "dulwich", "selectolax", "html5lib", "numpy",
    "onnxruntime", "memhtml.app.cli.app", "memhtml.app.cli.commands", "memhtml.app.cli.help",
    "memhtml.app.cli.manifest", "memhtml.app.store", "memhtml.app.bootstrap", "memhtml.adapters",
    "memhtml.domain", "memhtml.ports",
)  # fmt: skip


def _loaded(argv: list[str], *, env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", f"ARGV = {argv!r}\n{PROBE}"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    status, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return status, modules, done.stdout


def _under(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(f"{p}.") for p in prefixes)]


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], front_door_text.HELP_ENVELOPE),
        (["--help"], front_door_text.HELP_ENVELOPE),
        (["-h", "--dense"], front_door_text.HELP_DENSE),
        (["--help", "--pretty"], front_door_text.HELP_MARKDOWN),
        (["--version"], front_door_text.VERSION_ENVELOPE),
    ],
    ids=["bare", "help", "help-dense", "help-pretty", "version"],
)
def test_root_help_and_version_load_no_part_of_the_program(argv: list[str], expected: str) -> None:
    """`memhtml`, `--help` and `--version` print their answer, exit 0 and import nothing heavy."""
    status, modules, stdout = _loaded(argv)
    assert (0, expected, []) == (status, stdout, _under(modules, NOT_FOR_HELP))


def test_a_command_loads_its_module_and_not_the_help_machinery() -> None:
    """`completion bash` runs the program: its one command module loads, help's do not."""
    status, modules, _ = _loaded(["completion", "bash"])
    loaded_commands = [m for m in modules if m.startswith("memhtml.app.cli.commands.")]
    unexpected = _under(modules, ("memhtml.app.cli.help", "memhtml.app.cli.manifest"))
    assert (0, ["memhtml.app.cli.commands.completion"], []) == (status, loaded_commands, unexpected)
