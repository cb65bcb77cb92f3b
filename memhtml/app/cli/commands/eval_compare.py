"""``memhtml eval compare BASE VARIANT``: two LoCoMo runs, question by question."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

import click

from memhtml.app.cli.output import CommandResult, emits

RESPONSE_TYPE: Final = "eval.compare"


def register(group: click.Group) -> None:
    """Add ``compare`` to the ``eval`` group."""
    group.add_command(compare)


@click.command("compare")
@click.argument("base", type=click.Path(dir_okay=False, exists=True), help="The baseline run.")
@click.argument("variant", type=click.Path(dir_okay=False, exists=True), help="The run to judge.")
@emits(
    RESPONSE_TYPE,
    examples=("memhtml eval compare base/locomo-hybrid-turn.json porter/locomo-hybrid-turn.json",),
)
def compare(base: str, variant: str) -> CommandResult:
    """Compare two `eval locomo --out` runs with a paired bootstrap over their questions.

    Each metric's difference (variant − base) comes with its 95 % interval; `supported` means
    the interval excludes 0. Overall and per category.
    """
    from memhtml.app.eval.compare import compare_runs, questions_of

    left = questions_of(_data(base), base)
    right = questions_of(_data(variant), variant)
    return RESPONSE_TYPE, {"base": base, "variant": variant, **compare_runs(left, right)}


_MAX_NESTING: Final = 64
"""Far deeper than any ``eval locomo --out`` file nests; deeper text is not one."""


def _data(path: str) -> dict[str, object]:
    from memhtml.domain.errors import InvalidInput
    from memhtml.domain.json_depth import nests_deeper_than

    try:
        text = Path(path).read_text(encoding="utf-8")
        # The decoder recurses per bracket: a hostile file must not reach it.
        if nests_deeper_than(text, _MAX_NESTING):
            raise ValueError("nested too deeply")
        loaded = json.loads(text)
    except (OSError, ValueError) as error:
        raise InvalidInput(f"{path} is not a readable eval locomo JSON file") from error
    data = loaded.get("data") if isinstance(loaded, dict) else None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path} is not an eval.locomo envelope")
    return data
