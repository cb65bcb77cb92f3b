"""The scope flags ``search``, ``recall`` and ``list`` share, and their checks
(docs/cli-contract.md §3.3).

Malformed scope values are refused here, before anything runs: the library drops a malformed
facet (docs/decisions.md §17) and would scope an entity without a type to nothing, but a person
typing a flag should hear about the typo.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

import click

from memhtml.domain.errors import InvalidInput
from memhtml.domain.vocabulary import MEMORY_TYPES

if TYPE_CHECKING:
    from memhtml.domain.scope import FacetFilter

F = TypeVar("F", bound=Callable[..., object])

ENTITY_SEPARATOR: Final = ":"


def scope_options(*, as_of: bool) -> Callable[[F], F]:
    """Add ``--type* --workspace --tag* --entity --facet* --include-archived`` (and
    ``--as-of`` when ``as_of``) to a command, in that order."""

    def decorate(command: F) -> F:
        decorators = [
            click.option(
                "--type",
                "memory_types",
                multiple=True,
                type=click.Choice(MEMORY_TYPES),
                help="Any of these types; default every type but task. Repeatable.",
            ),
            click.option("--workspace", help="Only memories under projects/<workspace>/."),
            click.option("--tag", "tags", multiple=True, help="Any of these tags. Repeatable."),
            click.option("--entity", help="One entity as type:name (case-insensitive)."),
            click.option(
                "--facet",
                "facets",
                multiple=True,
                help="name=value; same name ORs, different names AND. Repeatable.",
            ),
            click.option(
                "--include-archived", is_flag=True, help="Admit archived memories as well."
            ),
        ]
        if as_of:
            decorators.append(
                click.option(
                    "--as-of",
                    help="Only facts valid at this ISO instant (archived ones admitted).",
                )
            )
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return decorate


def checked_entity(entity: str | None) -> str | None:
    """``--entity`` when it names a type and a name; ``None`` when not given.

    Raises:
        InvalidInput: No ``:`` or an empty side.
    """
    if entity is None:
        return None
    kind, separator, name = entity.partition(ENTITY_SEPARATOR)
    if not separator or not kind.strip() or not name.strip():
        raise InvalidInput(f"--entity expects type:name, got {entity!r}")
    return entity


def checked_facets(specs: tuple[str, ...]) -> tuple[FacetFilter, ...]:
    """``--facet`` specs parsed strictly (docs/decisions.md §17).

    Raises:
        InvalidInput: A spec without ``=`` or with an empty side.
    """
    from memhtml.domain.scope import parse_facet_filter_strict

    return tuple(parse_facet_filter_strict(spec) for spec in specs)


def checked_as_of(as_of: str | None) -> str | None:
    """``--as-of`` normalised to the stamp the index compares against (docs/decisions.md §2).

    Raises:
        InvalidInput: Not an ISO date or date-time.
    """
    if as_of is None:
        return None
    from memhtml.domain.user_instants import normalize_user_instant

    return normalize_user_instant(as_of, "--as-of")


KNOWN_AT_HELP: Final = (
    "Answer with what the store knew then: the tree of the last commit at or before this ISO "
    "date or date-time (transaction time; --as-of is valid time, and both combine)."
)


def known_at_option(command: F) -> F:
    """Add ``--known-at`` (docs/index-schema.md §7) to a command."""
    decorated: F = click.option("--known-at", help=KNOWN_AT_HELP)(command)
    return decorated


def checked_known_at(known_at: str | None) -> str | None:
    """``--known-at`` normalised to a UTC stamp.

    Raises:
        InvalidInput: Not an ISO date or date-time.
    """
    if known_at is None:
        return None
    from memhtml.domain.user_instants import normalize_user_instant

    return normalize_user_instant(known_at, "--known-at")
