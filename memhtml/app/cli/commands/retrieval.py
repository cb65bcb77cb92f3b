"""Retrieval commands (CLI.md §3.3): ``search`` and ``recall``, with the ablation switches of
DECISIONS 12 so that a tuning run is one command line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final, TypeVar

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.commands.scope_flags import (
    checked_as_of,
    checked_entity,
    checked_facets,
    scope_options,
)
from memhtml.app.cli.output import CommandResult, emits
from memhtml.domain.errors import InvalidInput
from memhtml.domain.fusion import RRF_K

if TYPE_CHECKING:
    from memhtml.domain.scope import SearchScope
    from memhtml.ports.retrieval import RankingOptions

F = TypeVar("F", bound=Callable[..., object])

DEFAULT_LIMIT: Final = 10
MAX_LIMIT: Final = 200
DEFAULT_BUDGET: Final = 16_000
LIST_SEPARATOR: Final = ","
WEIGHT_SEPARATOR: Final = "="


def register(group: click.Group) -> None:
    """Add search and recall to ``group``."""
    group.add_command(search)
    group.add_command(recall)


def ranking_options(command: F) -> F:
    """Add the ablation flags (DECISIONS 12) to a command."""
    decorators = [
        click.option("--arms", help="Comma-separated arms to run: fts,vector,recency,salience."),
        click.option(
            "--gate-priors/--no-gate-priors",
            default=False,
            help="Rank recency and salience only over the query arms' candidates.",
        ),
        click.option(
            "--rrf-k",
            type=click.FloatRange(min=0),
            default=RRF_K,
            show_default=True,
            help="The reciprocal rank fusion constant.",
        ),
        click.option(
            "--weights", help="Per-arm weights, e.g. fts=1,vector=0.5,recency=0.5,salience=0.4."
        ),
        click.option(
            "--fts-stopwords/--no-fts-stopwords",
            default=True,
            show_default=True,
            help="Drop English function words from the lexical query.",
        ),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


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


def parse_arms(text: str | None) -> tuple[str, ...] | None:
    """``fts,vector`` → ``("fts", "vector")``; ``None`` (every arm) when not given.

    Raises:
        InvalidInput: The list names no arm.
    """
    if text is None:
        return None
    names = tuple(name.strip() for name in text.split(LIST_SEPARATOR) if name.strip())
    if not names:
        raise InvalidInput("--arms names no arm")
    return names


def parse_weights(text: str | None) -> tuple[tuple[str, float], ...]:
    """``fts=1,recency=0.5`` → ``(("fts", 1.0), ("recency", 0.5))``, in the order given.

    Raises:
        InvalidInput: An item without ``=``, or a weight that is not a number.
    """
    if text is None:
        return ()
    pairs: list[tuple[str, float]] = []
    for item in (part.strip() for part in text.split(LIST_SEPARATOR)):
        if not item:
            continue
        name, separator, raw = item.partition(WEIGHT_SEPARATOR)
        try:
            weight = float(raw)
        except ValueError:
            weight = None
        if not separator or not name.strip() or weight is None:
            raise InvalidInput(f"--weights expects arm=number items, got {item!r}")
        pairs.append((name.strip(), weight))
    return tuple(pairs)


def _options(
    arms: str | None,
    gate_priors: bool,
    rrf_k: float,
    weights: str | None,
    fts_stopwords: bool,
) -> RankingOptions:
    from memhtml.ports.retrieval import RankingOptions

    return RankingOptions(
        arms=parse_arms(arms),
        gate_priors=gate_priors,
        rrf_k=rrf_k,
        weights=parse_weights(weights),
        fts_stopwords=fts_stopwords,
    )


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
@click.argument("query", help='What to look for; a balanced "…" span is a phrase.')
@scope_options(as_of=True)
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
    limit: int,
    arms: str | None,
    gate_priors: bool,
    rrf_k: float,
    weights: str | None,
    fts_stopwords: bool,
) -> CommandResult:
    """Rank memories for a query: full-text, vector, recency and salience arms, fused.

    Hits do not bump salience: being listed is not evidence of use.
    """
    from memhtml.ports.retrieval import SearchRequest

    request = SearchRequest(
        query=checked_query(query),
        scope=search_scope(memory_types, workspace, tags, entity, facets, include_archived, as_of),
        limit=limit,
        options=_options(arms, gate_priors, rrf_k, weights, fts_stopwords),
    )
    with open_here() as store:
        answer = store.search(request)
    return "memory.hits", shaping.hits_data(answer)


@click.command("recall")
@click.argument("query", help="What the agent is about to work on.")
@scope_options(as_of=True)
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
    budget: int,
    arms: str | None,
    gate_priors: bool,
    rrf_k: float,
    weights: str | None,
    fts_stopwords: bool,
) -> CommandResult:
    """Pack the memories a task needs into a character budget: quotes first, index lines after."""
    from memhtml.ports.retrieval import RecallRequest

    request = RecallRequest(
        query=checked_query(query),
        scope=search_scope(memory_types, workspace, tags, entity, facets, include_archived, as_of),
        budget_chars=budget,
        options=_options(arms, gate_priors, rrf_k, weights, fts_stopwords),
    )
    with open_here() as store:
        answer = store.recall(request)
    return "recall.pack", shaping.recall_data(answer)
