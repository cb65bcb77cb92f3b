"""The ``eval`` group (docs/cli-contract.md §2, docs/evaluation.md): ``eval discriminate`` and
``eval locomo``.

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
    """Measure retrieval: the discrimination gate and the LoCoMo benchmark (docs/evaluation.md)."""


eval_discriminate.register(evaluation)
eval_locomo.register(evaluation)
eval_compare.register(evaluation)
