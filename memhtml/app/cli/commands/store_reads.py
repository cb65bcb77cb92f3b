"""The store commands that read or only touch the state plane: read, list, neighbors, reinforce.

Split from ``store.py`` (the committing commands) to keep each module about one thing; both
are part of the "store" group of docs/cli-contract.md §2.
"""

from __future__ import annotations

from typing import Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.commands.scope_flags import (
    checked_entity,
    checked_facets,
    checked_known_at,
    known_at_option,
    scope_options,
)
from memhtml.app.cli.environment import ENV_SESSION_ID
from memhtml.app.cli.output import CommandResult, emits
from memhtml.domain.reinforce import Signal
from memhtml.domain.vocabulary import ALL_RELS, PARA_BUCKETS

DEFAULT_LIST_LIMIT: Final = 50
MAX_LIST_LIMIT: Final = 500
SIGNALS: Final = tuple(signal.value for signal in Signal)


def register(group: click.Group) -> None:
    """Add read, list, neighbors and reinforce to ``group``."""
    for command in (read, list_command, neighbors, reinforce):
        group.add_command(command)


@click.command("read")
@click.argument("path", help="The memory's repo path (a leading / is allowed).")
@click.option(
    "--session-id", envvar=ENV_SESSION_ID, help="Session reading it (files a session link)."
)
@click.option(
    "--known-at",
    help="Read it as the store knew it then: the file in the last commit at or before this "
    "ISO date or date-time (no salience bump).",
)
@emits(
    "memory.detail",
    examples=(
        "memhtml read resources/billing/invoice-export.html",
        "memhtml read resources/billing/invoice-export.html --known-at 2026-09-01",
    ),
)
def read(path: str, session_id: str | None, known_at: str | None) -> CommandResult:
    """Show one memory's fields and article; archived paths are allowed. Bumps its salience,
    except with --known-at, which reads the file as it was committed then."""
    from memhtml.domain.user_instants import normalize_user_instant

    stamp = None if known_at is None else normalize_user_instant(known_at, "--known-at")
    with open_here(hold=True) as store:
        result = store.read(path, session_id=session_id, known_at=stamp)
    return "memory.detail", shaping.detail_data(result)


@click.command("neighbors")
@click.argument("path", help="The memory's repo path (a leading / is allowed).")
@click.option(
    "--depth",
    type=click.IntRange(1, 3),
    default=1,
    show_default=True,
    help="Hops to walk; a memory reached at one hop is not listed again further out.",
)
@click.option(
    "--relation",
    "relations",
    type=click.Choice(ALL_RELS),
    multiple=True,
    help="Follow only this relation (repeatable); default every relation.",
)
@emits(
    "memory.neighbors",
    examples=(
        "memhtml neighbors areas/inbox/linker-fails-on-stale-objects.html",
        "memhtml neighbors resources/deploy/release-procedure.html --depth 2 --relation fixes",
    ),
)
def neighbors(path: str, depth: int, relations: tuple[str, ...]) -> CommandResult:
    """List a memory's outbound and inbound links with their relation and class, out to
    --depth hops. No salience bump."""
    with open_here(hold=True) as store:
        result = store.neighbors(path, depth=depth, relations=relations or None)
    return "memory.neighbors", shaping.neighbors_data(result)


@click.command("list")
@scope_options(as_of=False)
@known_at_option
@click.option("--para", type=click.Choice(PARA_BUCKETS), help="Only this PARA bucket.")
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIST_LIMIT),
    default=DEFAULT_LIST_LIMIT,
    show_default=True,
    help="Page size.",
)
@click.option("--cursor", help="nextCursor of the previous page.")
@emits(
    "memory.list",
    examples=(
        "memhtml list --tag billing",
        "memhtml list --para archive",
        "memhtml list --known-at 2026-09-01",
    ),
)
def list_command(
    memory_types: tuple[str, ...],
    workspace: str | None,
    tags: tuple[str, ...],
    entity: str | None,
    facets: tuple[str, ...],
    include_archived: bool,
    known_at: str | None,
    para: str | None,
    limit: int,
    cursor: str | None,
) -> CommandResult:
    """List memories by path, a page at a time; no ranking and no salience bump."""
    from memhtml.app.use_cases.listing import ListRequest

    request = ListRequest(
        memory_types=memory_types,
        workspace=workspace,
        tags=tags,
        entity=checked_entity(entity),
        facets=checked_facets(facets),
        para=para,
        include_archived=include_archived,
        limit=limit,
        cursor=cursor,
        known_at=checked_known_at(known_at),
    )
    with open_here(hold=True) as store:
        result = store.list(request)
    return "memory.list", shaping.list_data(result)


@click.command("reinforce")
@click.argument("paths", nargs=-1, required=True, help="Memories that proved useful (or not).")
@click.option(
    "--signal",
    type=click.Choice(SIGNALS),
    default="neutral",
    show_default=True,
    help="Non-neutral signals also move the outcome score.",
)
@click.option(
    "--session-id", envvar=ENV_SESSION_ID, help="Session giving the signal (files a session link)."
)
@emits("memory.reinforced", examples=("memhtml reinforce areas/inbox/x.html --signal positive",))
def reinforce(paths: tuple[str, ...], signal: str, session_id: str | None) -> CommandResult:
    """Record access (900 s cooldown per path) and feedback on memories; no commit."""

    with open_here() as store:
        answer = store.reinforce(paths, signal, session_id=session_id)
    return "memory.reinforced", shaping.shaped(answer, shaping.REINFORCED_KEYS)
