"""``list``: path-ascending keyset pages over the index, with search's scope vocabulary.

No salience: a listing is not evidence that any memory in it was used (docs/ranking.md §9.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.app.use_cases.known_at import NO_HISTORY_REASON, PastVersionMemo, known_at_view
from memhtml.domain.errors import InvalidInput
from memhtml.domain.past_versions import past_scope_facts
from memhtml.domain.projection import FileProjection
from memhtml.domain.scope import FacetFilter, SearchScope, scope_admits
from memhtml.domain.vocabulary import PARA_BUCKETS
from memhtml.ports.errors import IndexStale
from memhtml.ports.git import GitPort
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.indexer import Indexer
from memhtml.ports.lister import ListedMemory, Lister
from memhtml.ports.memory_parser import MemoryParser

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
        known_at: A normalised UTC stamp: list what the store knew then (docs/index-schema.md
            §7); ``None`` lists today's memories.
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
    known_at: str | None = None


@attrs.frozen(kw_only=True)
class ListResult:
    """``memory.list``: one page, the next page's cursor, and the index's freshness; with
    ``known_at``, the commit whose tree answered (``None`` when the store knew nothing then)."""

    files: tuple[ListedMemory, ...]
    next_cursor: str | None
    index_fresh: bool
    index_update_ms: float
    known_at_commit: str | None = None


@attrs.frozen(kw_only=True)
class KnownAtListing:
    """What ``list --known-at`` needs beyond the lister: the spans, git and the parser."""

    history: HistoryStore | None
    git: GitPort
    parse: MemoryParser
    tokenizer: str = "unicode61"
    memo: PastVersionMemo | None = None


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


def list_with(
    indexer: Indexer,
    lister: Lister,
    request: ListRequest,
    *,
    embed: bool,
    known: KnownAtListing | None = None,
) -> ListResult:
    """Validate, update the index, then read one page.

    With ``request.known_at`` the page is what the store knew then: today's rows whose blob
    that commit held, and the versions of then no row holds (read from git), merged by path.

    Raises:
        InvalidInput: See :func:`list_scope`; an unreadable ``known_at``.
        IndexStale: ``known_at`` on an index without history.
        StorageFailure: The index cannot be read.
    """
    scope = list_scope(request)
    freshness = ensure_fresh(indexer, embed=embed)
    if request.known_at is None:
        page = lister.list_page(scope, para=request.para, after=request.cursor, limit=request.limit)
        files, cursor, commit = page.files, page.next_cursor, None
    else:
        files, cursor, commit = _known_at_page(lister, request, scope, known)
    return ListResult(
        files=files,
        next_cursor=cursor,
        index_fresh=freshness.index_fresh,
        index_update_ms=freshness.index_update_ms,
        known_at_commit=commit,
    )


def _known_at_page(
    lister: Lister, request: ListRequest, scope: SearchScope, known: KnownAtListing | None
) -> tuple[tuple[ListedMemory, ...], str | None, str | None]:
    if request.known_at is None:  # pragma: no cover - the caller checked
        raise ValueError("no instant")
    if known is None:
        raise IndexStale(NO_HISTORY_REASON)
    view = known_at_view(
        known.history,
        known.git,
        known.parse,
        request.known_at,
        tokenizer=known.tokenizer,
        memo=known.memo,
    )
    if view.commit is None:
        return (), None, None
    masked = attrs.evolve(scope, known_seq=view.seq)
    page = lister.list_page(masked, para=request.para, after=request.cursor, limit=request.limit)
    past = [
        _listed(p)
        for p in (version.projection for version in view.past)
        if (request.cursor is None or p.path > request.cursor)
        and (request.para is None or p.row.para == request.para)
        and scope_admits(scope, past_scope_facts(p))
    ]
    merged = sorted([*page.files, *past], key=lambda m: m.path)
    files = tuple(merged[: request.limit])
    more = page.next_cursor is not None or len(merged) > request.limit
    return files, files[-1].path if more and files else None, view.commit.sha


def _listed(projection: FileProjection) -> ListedMemory:
    row = projection.row
    return ListedMemory(
        path=row.path,
        title=row.title,
        memory_type=row.memory_type,
        gist=row.gist,
        workspace=row.workspace,
        para=row.para,
        confidence=row.confidence,
        importance=row.importance,
        archived=row.archived,
        updated_at=row.updated_at,
    )


def facet_filters(specs: Sequence[str]) -> tuple[FacetFilter, ...]:
    """``name=value`` specs as filters, refusing a malformed one (docs/decisions.md §17).

    Raises:
        InvalidInput: A spec without ``=`` or with an empty side.
    """
    from memhtml.domain.scope import parse_facet_filter_strict

    return tuple(parse_facet_filter_strict(spec) for spec in specs)
