"""What a cold process loads: the root's help and the version load no part of the program, and
a command loads its own module and not the help machinery. Module lists, never timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
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


# What a write never uses: ranking, the trace plane, listing and the doctor's reads, help.
NOT_FOR_WRITE: Final = (
    "memhtml.app.retrieval", "memhtml.adapters.sqlite.rank_store",
    "memhtml.adapters.sqlite.retrieval_sql", "memhtml.adapters.sqlite.fused_search",
    "memhtml.adapters.sqlite.trace_store",
    "memhtml.domain.trace_extract", "memhtml.domain.trace_sessions",
    "memhtml.adapters.sqlite.listing_sql", "memhtml.adapters.sqlite.doctor_sql",
    "memhtml.adapters.sqlite.index_status_sql", "memhtml.app.cli.help", "memhtml.app.cli.manifest",
    "memhtml.app.cli.failures", "memhtml.app.error_codes",
)  # fmt: skip
# What a search of a fresh index never uses: the write path, the trace plane, the file codec.
NOT_FOR_SEARCH: Final = (
    "memhtml.app.use_cases.write", "memhtml.app.use_cases.near_duplicates",
    "memhtml.adapters.sqlite.recorder", "memhtml.adapters.sqlite.trace_store",
    "memhtml.domain.trace_extract", "memhtml.domain.trace_sessions",
    "memhtml.adapters.sqlite.listing_sql", "memhtml.adapters.sqlite.doctor_sql",
    "memhtml.adapters.html.renderer", "memhtml.adapters.html.head_edit", "memhtml.app.cli.help",
    "memhtml.app.cli.manifest", "memhtml.app.cli.failures", "memhtml.app.error_codes",
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


def _lexical_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMHTML_", "_MEMHTML"))}
    return {**env, "MEMHTML_EMBED": "off"}


def test_a_write_and_a_search_load_only_the_ports_they_use(tmp_path: Path) -> None:
    """A cold write loads no ranking or trace adapter; a cold search of a fresh index loads no
    write path, trace adapter or file codec; both succeed."""
    root, env = str(tmp_path / "store"), _lexical_env()
    subprocess.run(
        [sys.executable, "-m", "memhtml", "init", "--repo", root],
        env=env,
        check=True,
        capture_output=True,
    )
    claim = "The ledger service keeps its nightly cutoff at 02:00 UTC."
    write = ["--repo", root, "write", "--title", "Ledger cutoff", "--type", "semantic"]
    write_status, write_modules, _ = _loaded([*write, "--claim", claim], env=env)
    search_status, search_modules, found = _loaded(
        ["--repo", root, "search", "ledger cutoff"], env=env
    )
    assert (0, [], 0, [], 1) == (
        write_status,
        _under(write_modules, NOT_FOR_WRITE),
        search_status,
        _under(search_modules, NOT_FOR_SEARCH),
        len(json.loads(found)["data"]["hits"]),
    )
