"""``list``: path-ascending keyset pages over the index, with search's scope vocabulary.

No salience: a listing is not evidence that any memory in it was used (docs/ranking.md §9.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.domain.errors import InvalidInput
from memhtml.domain.scope import FacetFilter, SearchScope
from memhtml.domain.vocabulary import PARA_BUCKETS
from memhtml.ports.indexer import Indexer
from memhtml.ports.lister import ListedMemory, Lister

DEFAULT_LIST_LIMIT: Final = 50
MAX_LIST_LIMIT: Final = 500
ARCHIVE_PARA: Final = "archive"


@attrs.frozen(kw_only=True)
class ListRequest:
    """The ``list`` flags.

    Attributes:
        memory_types: Any-of; empty means every type but ``task``.
        workspace: Strict equality on ``projects/<workspace>/`` (slugged).
        tags: Any-of.
        entity: One ``type:name``.
        facets: Parsed ``name=value`` filters.
        para: One PARA bucket. ``archive`` admits archived memories by itself: otherwise the
            default archived exclusion would make that bucket always list nothing.
        include_archived: Drop the default exclusion of archived memories.
        limit: Page size, 1–500.
        cursor: ``next_cursor`` of the previous page, or None for the first page.
    """

    memory_types: tuple[str, ...] = ()
    workspace: str | None = None
    tags: tuple[str, ...] = ()
    entity: str | None = None
    facets: tuple[FacetFilter, ...] = ()
    para: str | None = None
    include_archived: bool = False
    limit: int = DEFAULT_LIST_LIMIT
    cursor: str | None = None


@attrs.frozen(kw_only=True)
class ListResult:
    """``memory.list``: one page, the next page's cursor, and the index's freshness."""

    files: tuple[ListedMemory, ...]
    next_cursor: str | None
    index_fresh: bool
    index_update_ms: float


def list_scope(request: ListRequest) -> SearchScope:
    """The search scope a listing request names (validated by ``SearchScope`` itself).

    Raises:
        InvalidInput: An unknown memory type, an unknown bucket or a limit outside 1–500.
    """
    if not 1 <= request.limit <= MAX_LIST_LIMIT:
        raise InvalidInput(f"limit must lie in 1–{MAX_LIST_LIMIT}, got {request.limit!r}")
    if request.para is not None and request.para not in PARA_BUCKETS:
        raise InvalidInput(f"para must be one of {', '.join(PARA_BUCKETS)}, got {request.para!r}")
    return SearchScope(
        workspace=request.workspace,
        tags=request.tags,
        entity=request.entity,
        facets=request.facets,
        memory_types=request.memory_types,
        include_archived=request.include_archived or request.para == ARCHIVE_PARA,
    )


def list_with(indexer: Indexer, lister: Lister, request: ListRequest, *, embed: bool) -> ListResult:
    """Validate, update the index, then read one page.

    Raises:
        InvalidInput: See :func:`list_scope`.
        StorageFailure: The index cannot be read.
    """
    scope = list_scope(request)
    freshness = ensure_fresh(indexer, embed=embed)
    page = lister.list_page(scope, para=request.para, after=request.cursor, limit=request.limit)
    return ListResult(
        files=page.files,
        next_cursor=page.next_cursor,
        index_fresh=freshness.index_fresh,
        index_update_ms=freshness.index_update_ms,
    )


def facet_filters(specs: Sequence[str]) -> tuple[FacetFilter, ...]:
    """``name=value`` specs as filters, refusing a malformed one (docs/decisions.md §17).

    Raises:
        InvalidInput: A spec without ``=`` or with an empty side.
    """
    from memhtml.domain.scope import parse_facet_filter_strict

    return tuple(parse_facet_filter_strict(spec) for spec in specs)
