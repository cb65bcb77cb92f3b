"""The ``memhtml`` command line: one click group, one envelope per invocation on stdout.

Importing this package loads nothing but the entry point (``front_door``): the root's help and
the version are printed from text ``make docs`` renders. The click program and the output
decorator load when first named here; command bodies import their adapters when they run.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final

from memhtml.app.cli.front_door import main

if TYPE_CHECKING:
    from memhtml.app.cli.app import REGISTRARS, RootGroup, build_cli, cli, run
    from memhtml.app.cli.output import CommandResult, emits

__all__ = ["REGISTRARS", "CommandResult", "RootGroup", "build_cli", "cli", "emits", "main", "run"]

_LOADED_ON_USE: Final = {
    "REGISTRARS": "memhtml.app.cli.app",
    "RootGroup": "memhtml.app.cli.app",
    "build_cli": "memhtml.app.cli.app",
    "cli": "memhtml.app.cli.app",
    "run": "memhtml.app.cli.app",
    "CommandResult": "memhtml.app.cli.output",
    "emits": "memhtml.app.cli.output",
}


def __getattr__(name: str) -> object:
    """The program's names, imported the first time one is asked for."""
    module = _LOADED_ON_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
