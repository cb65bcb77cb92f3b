"""The lazy command table: every deferred module registers exactly the names it is listed
under, and a command imports its own module and no other command module."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from memhtml.app.cli.app import REGISTRARS, build_cli
from memhtml.app.cli.command_table import LazyCommands, LazyModule

LAZY = [r for r in REGISTRARS if isinstance(r, LazyModule)]


@pytest.mark.parametrize("lazy", LAZY, ids=lambda lazy: lazy.module.rsplit(".", 1)[-1])
def test_each_module_registers_exactly_its_listed_commands(lazy: LazyModule) -> None:
    group = click.Group()
    lazy(group)
    assert sorted(lazy.names) == sorted(group.commands)


def test_the_names_are_unique_across_modules() -> None:
    names = [name for lazy in LAZY for name in lazy.names]
    assert len(names) == len(set(names))


def test_asking_for_one_command_loads_its_module_only() -> None:
    root = build_cli()
    commands = root.commands
    assert isinstance(commands, LazyCommands)
    assert commands.get("search") is not None
    # dict's own view: what is registered so far, without loading the rest.
    assert {"search", "recall"} == set(dict.keys(commands))


def test_walking_the_table_loads_every_command() -> None:
    root = build_cli()
    eager = click.Group()
    for register in REGISTRARS:
        register(eager)
    assert sorted(eager.commands) == sorted(root.commands)
    assert sorted(eager.commands) == root.list_commands(click.Context(root))


def test_a_write_process_never_imports_the_other_command_modules() -> None:
    probe = (
        "import json, sys; from memhtml.app.cli.app import cli; cli.commands.get('write'); "
        "print(json.dumps([m for m in sys.modules if m.startswith('memhtml.app.cli.commands.')]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = {name.rsplit(".", 1)[-1] for name in json.loads(done.stdout)}
    others = {"evaluation", "eval_locomo", "eval_discriminate", "trace", "sync", "index"}
    assert "store" in loaded
    assert not loaded & others
