"""The ``eval`` group (CLI.md §2, EVAL.md): ``eval discriminate`` and ``eval locomo``.

Neither command opens a user repository: each builds its own stores in a temporary folder.
"""

from __future__ import annotations

import click

from memhtml.app.cli.commands import eval_compare, eval_discriminate, eval_locomo


def register(group: click.Group) -> None:
    """Add the ``eval`` group and its commands to ``group``."""
    group.add_command(evaluation)


@click.group("eval")
def evaluation() -> None:
    """Measure retrieval: the discrimination gate and the LoCoMo benchmark (EVAL.md)."""


eval_discriminate.register(evaluation)
eval_locomo.register(evaluation)
eval_compare.register(evaluation)
