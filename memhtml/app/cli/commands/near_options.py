"""The near-duplicate assist's flags, shared by ``write``, ``correct`` and ``apply``
(``app/use_cases/near_duplicates``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar

import click

from memhtml.app.use_cases.near_duplicates import ON_NEAR_DUPLICATE_MODES, ON_NEAR_REPORT
from memhtml.domain.near_duplicates import DEFAULT_NEAR_FLOOR, DEFAULT_NEAR_LIMIT

F = TypeVar("F", bound=Callable[..., object])

MODE_HELP: Final = (
    "When a written memory's first chunk is at least the floor's cosine similarity to a live "
    "memory's: report it in nearDuplicates, skip the write (nearDuplicateSkipped), or fail "
    "(ERR_NEAR_DUPLICATE, nothing written). report does not load the model here, so it checks "
    "nothing and says so in nearDuplicateNote; skip and fail load it. A store without an "
    "embedder never checks."
)


def near_duplicate_options(command: F) -> F:
    """Add ``--on-near-duplicate``, ``--near-duplicate-floor`` and ``--near-duplicate-limit``."""
    options = (
        click.option(
            "--on-near-duplicate",
            type=click.Choice(ON_NEAR_DUPLICATE_MODES),
            default=ON_NEAR_REPORT,
            show_default=True,
            help=MODE_HELP,
        ),
        click.option(
            "--near-duplicate-floor",
            type=click.FloatRange(-1.0, 1.0),
            default=DEFAULT_NEAR_FLOOR,
            show_default=True,
            help="The cosine similarity at or above which a live memory counts as near; the "
            "default was measured with the local model.",
        ),
        click.option(
            "--near-duplicate-limit",
            type=click.IntRange(min=1),
            default=DEFAULT_NEAR_LIMIT,
            show_default=True,
            help="Near-duplicates listed per written memory, most similar first.",
        ),
    )
    for option in reversed(options):
        command = option(command)
    return command
