"""The ``memhtml`` command line: one click group, one envelope per invocation on stdout.

Importing this package loads click and the framework only; command bodies import their
adapters when they run.
"""

from __future__ import annotations

from memhtml.app.cli.app import REGISTRARS, RootGroup, build_cli, cli, main, run
from memhtml.app.cli.output import CommandResult, emits

__all__ = ["REGISTRARS", "CommandResult", "RootGroup", "build_cli", "cli", "emits", "main", "run"]
