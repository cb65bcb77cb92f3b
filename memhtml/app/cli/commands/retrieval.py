"""Retrieval commands (docs/cli-contract.md §3.3): ``search`` and ``recall``, with the ablation
switches of docs/decisions.md §12 so that a tuning run is one command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.commands.ranking_flags import ranking_options
from memhtml.app.cli.commands.scope_flags import (
    checked_as_of,
    checked_entity,
    checked_facets,
    checked_known_at,
    known_at_option,
    scope_options,
)
from memhtml.app.cli.output import CommandResult, emits
from memhtml.domain.errors import InvalidInput
from memhtml.domain.query_bounds import MAX_QUERY_CHARS

if TYPE_CHECKING:
    from memhtml.domain.scope import SearchScope
    from memhtml.ports.retrieval import RankingOptions

DEFAULT_LIMIT: Final = 10
MAX_LIMIT: Final = 200
DEFAULT_BUDGET: Final = 16_000


def register(group: click.Group) -> None:
    """Add search and recall to ``group``."""
    group.add_command(search)
    group.add_command(recall)


def checked_query(query: str) -> str:
    """The query of a search or recall; a blank one is refused, as the MCP tools refuse it.

    A blank query ran a priors-only ranking (recency and salience): an answer to a question
    nobody asked. ``list`` is the command that answers "what is there".

    Raises:
        InvalidInput: Nothing but whitespace.
    """
    if not query.strip():
        raise InvalidInput("query must not be blank: use memhtml list to browse")
    return query


def search_scope(
    memory_types: tuple[str, ...],
    workspace: str | None,
    tags: tuple[str, ...],
    entity: str | None,
    facets: tuple[str, ...],
    include_archived: bool,
    as_of: str | None,
) -> SearchScope:
    """The scope flags of search and recall (also the MCP tools' arguments), checked.

    Raises:
        InvalidInput: A malformed entity, facet or as-of instant.
    """
    from memhtml.domain.scope import SearchScope

    return SearchScope(
        workspace=workspace,
        tags=tags,
        entity=checked_entity(entity),
        facets=checked_facets(facets),
        memory_types=memory_types,
        include_archived=include_archived,
        as_of=checked_as_of(as_of),
    )


@click.command("search")
@click.argument(
    "query",
    help=f'What to look for (at most {MAX_QUERY_CHARS:,} characters); a balanced "…" span '
    "is a phrase.",
)
@scope_options(as_of=True)
@known_at_option
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=DEFAULT_LIMIT,
    show_default=True,
    help="How many hits.",
)
@ranking_options
@emits(
    "memory.hits",
    examples=(
        'memhtml search "when does the invoice export start"',
        "memhtml search pool --entity service:checkout-api --limit 3 --dense",
        'memhtml search "ledger lock" --known-at 2026-09-01',
    ),
)
def search(
    query: str,
    memory_types: tuple[str, ...],
    workspace: str | None,
    tags: tuple[str, ...],
    entity: str | None,
    facets: tuple[str, ...],
    include_archived: bool,
    as_of: str | None,
    known_at: str | None,
    limit: int,
    ranking: RankingOptions,
) -> CommandResult:
    """Rank memories for a query: full-text, vector, recency and salience arms, fused.

    Hits do not bump salience: being listed is not evidence of use. With --known-at, what
    the store knew then.
    """
    from memhtml.ports.retrieval import SearchRequest

    request = SearchRequest(
        query=checked_query(query),
        scope=search_scope(memory_types, workspace, tags, entity, facets, include_archived, as_of),
        limit=limit,
        options=ranking,
    )
    stamp = checked_known_at(known_at)
    with open_here(hold=True) as store:
        answer = store.search(request, known_at=stamp)
    return "memory.hits", shaping.hits_data(answer)


@click.command("recall")
@click.argument(
    "query", help=f"What the agent is about to work on (at most {MAX_QUERY_CHARS:,} characters)."
)
@scope_options(as_of=True)
@known_at_option
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=DEFAULT_BUDGET,
    show_default=True,
    help="Characters (UTF-16 units) of quoted memories.",
)
@ranking_options
@emits("recall.pack", examples=('memhtml recall "checkout database connections"',))
def recall(
    query: str,
    memory_types: tuple[str, ...],
    workspace: str | None,
    tags: tuple[str, ...],
    entity: str | None,
    facets: tuple[str, ...],
    include_archived: bool,
    as_of: str | None,
    known_at: str | None,
    budget: int,
    ranking: RankingOptions,
) -> CommandResult:
    """Pack the memories a task needs into a character budget: quotes first, index lines after."""
    from memhtml.ports.retrieval import RecallRequest

    request = RecallRequest(
        query=checked_query(query),
        scope=search_scope(memory_types, workspace, tags, entity, facets, include_archived, as_of),
        budget_chars=budget,
        options=ranking,
    )
    stamp = checked_known_at(known_at)
    with open_here(hold=True) as store:
        answer = store.recall(request, known_at=stamp)
    return "recall.pack", shaping.recall_data(answer)
