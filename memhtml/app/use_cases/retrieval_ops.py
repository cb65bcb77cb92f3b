"""``search``, ``recall`` and ``reinforce`` over an index brought up to date first.

Hits never bump salience: being listed is not evidence of use (docs/ranking.md §9.1). ``reinforce``
is the explicit signal; an unknown path refuses the whole call before anything is bumped.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.app.use_cases.known_at import KnownAtView, known_at_view, past_reason
from memhtml.app.use_cases.known_at_merge import fold_with_past, ranked_past, search_with_past
from memhtml.app.use_cases.pending_vectors import degraded_reason, settle_pending
from memhtml.app.use_cases.read import ReadPorts, record_session_link
from memhtml.domain.disclosure import DisclosureFold
from memhtml.domain.errors import InvalidInput
from memhtml.domain.past_versions import PAST_ARM
from memhtml.domain.placement import repo_path
from memhtml.domain.reinforce import Signal
from memhtml.ports.retrieval import (
    ArchivedMatch,
    RankingOptions,
    RecallRequest,
    SearchHit,
    SearchRequest,
)


@attrs.frozen(kw_only=True)
class SearchAnswer:
    """``memory.hits``: the retrieval port's result plus the freshness of the index it read.

    Attributes mirror :class:`memhtml.ports.retrieval.SearchResult`, then ``index_fresh`` and
    ``index_update_ms`` (docs/decisions.md §20), then ``pending_vectors`` (chunks still waiting for
    a vector after this search embedded its share) and ``degraded_reason`` (why the vector arm
    did not run, ``None`` when it did).
    """

    hits: tuple[SearchHit, ...]
    vector_coverage: float
    arms: tuple[str, ...]
    degraded: bool
    entity_scope: str | None
    scope_empty: bool
    archived_matches: int
    archived: tuple[ArchivedMatch, ...]
    index_fresh: bool
    index_update_ms: float
    pending_vectors: int = 0
    degraded_reason: str | None = None
    known_at_commit: str | None = None


@attrs.frozen(kw_only=True)
class RecallAnswer:
    """``recall.pack``: the recall pack plus the freshness of the index it read.

    Attributes mirror :class:`memhtml.ports.retrieval.RecallResult`, then ``index_fresh``,
    ``index_update_ms``, ``pending_vectors`` and ``degraded_reason`` (as in ``SearchAnswer``).
    """

    arcs: DisclosureFold
    memories: DisclosureFold
    spent_chars: int
    truncated: bool
    degraded: bool
    vector_coverage: float
    arms: tuple[str, ...]
    index_fresh: bool
    index_update_ms: float
    pending_vectors: int = 0
    degraded_reason: str | None = None
    known_at_commit: str | None = None


@attrs.frozen(kw_only=True)
class ReinforceAnswer:
    """``memory.reinforced``: which paths moved, which were still cooling down, the signal."""

    bumped: tuple[str, ...]
    cooled_down: tuple[str, ...]
    signal: str


def search_with(
    ports: ReadPorts, request: SearchRequest, *, known_at: str | None = None
) -> SearchAnswer:
    """Update the index, embed a bounded share of pending chunks, then rank. Nothing is bumped.

    With ``known_at`` (a normalised UTC stamp) the answer is what the store knew then
    (docs/ranking.md §12): today's rows masked to that commit's blobs, and the versions of then
    no row holds ranked by full text and interleaved (``degraded`` says so).

    Raises:
        InvalidInput: ``known_at`` is unreadable.
        IndexStale: ``known_at`` on an index without history.
        StorageFailure: The index cannot be read.
    """
    _prefetch(ports, request.query, request.options)
    freshness = ensure_fresh(ports.indexer, embed=ports.embed)
    pending = settle_pending(ports.indexer, embed=ports.embed)
    view = _view(ports, known_at)
    past_note: str | None = None
    if view is None:
        result = ports.retrieval.search(request)
        vector_degraded = result.degraded
    else:
        scope = attrs.evolve(request.scope, known_seq=view.seq)
        result = ports.retrieval.search(attrs.evolve(request, scope=scope))
        vector_degraded = result.degraded
        past = ranked_past(view, request.query, scope, request.options, ports.fts_tokenizer)
        result, kept = search_with_past(
            result, past, rrf_k=request.options.rrf_k, limit=request.limit
        )
        past_note = past_reason(view, kept)
    reason = degraded_reason(
        degraded=vector_degraded,
        embed=ports.embed,
        coverage=result.vector_coverage,
        floor=ports.vector_floor,
        pending=pending,
    )
    return SearchAnswer(
        **attrs.asdict(result, recurse=False),
        index_fresh=freshness.index_fresh,
        index_update_ms=freshness.index_update_ms,
        pending_vectors=pending,
        degraded_reason=_joined(reason, past_note),
        known_at_commit=None if view is None or view.commit is None else view.commit.sha,
    )


def recall_with(
    ports: ReadPorts, request: RecallRequest, *, known_at: str | None = None
) -> RecallAnswer:
    """Update the index, embed a bounded share of pending chunks, then fold the recall pack.
    Nothing is bumped. ``known_at`` as in :func:`search_with`; the versions of then no row
    holds fold after the ranked memories, into what budget remains.

    Raises:
        InvalidInput: ``known_at`` is unreadable.
        IndexStale: ``known_at`` on an index without history.
        StorageFailure: The index cannot be read.
    """
    _prefetch(ports, request.query, request.options)
    freshness = ensure_fresh(ports.indexer, embed=ports.embed)
    pending = settle_pending(ports.indexer, embed=ports.embed)
    view = _view(ports, known_at)
    past_note: str | None = None
    if view is None:
        result = ports.retrieval.recall(request)
        vector_degraded = result.degraded
    else:
        scope = attrs.evolve(request.scope, known_seq=view.seq)
        result = ports.retrieval.recall(attrs.evolve(request, scope=scope))
        vector_degraded = result.degraded
        past = ranked_past(view, request.query, scope, request.options, ports.fts_tokenizer)
        memories, kept = fold_with_past(result.memories, past, request.budget_chars)
        result = attrs.evolve(
            result,
            memories=memories,
            spent_chars=result.arcs.spent_chars + memories.spent_chars,
            truncated=result.arcs.truncated or memories.truncated,
            degraded=result.degraded or bool(kept),
            arms=(*result.arms, PAST_ARM) if kept else result.arms,
        )
        past_note = past_reason(view, kept)
    reason = degraded_reason(
        degraded=vector_degraded,
        embed=ports.embed,
        coverage=result.vector_coverage,
        floor=ports.vector_floor,
        pending=pending,
    )
    return RecallAnswer(
        **attrs.asdict(result, recurse=False),
        index_fresh=freshness.index_fresh,
        index_update_ms=freshness.index_update_ms,
        pending_vectors=pending,
        degraded_reason=_joined(reason, past_note),
        known_at_commit=None if view is None or view.commit is None else view.commit.sha,
    )


def _prefetch(ports: ReadPorts, query: str, options: RankingOptions) -> None:
    """Start the query's vector before the freshness pass, when the vector arm may run."""
    if ports.prefetch_query is not None and options.wants_vector():
        ports.prefetch_query(query)


def _view(ports: ReadPorts, known_at: str | None) -> KnownAtView | None:
    if known_at is None:
        return None
    return known_at_view(
        ports.history,
        ports.git,
        ports.parse,
        known_at,
        tokenizer=ports.fts_tokenizer,
        memo=ports.past_memo,
    )


def _joined(*reasons: str | None) -> str | None:
    said = [reason for reason in reasons if reason]
    return "; ".join(said) if said else None


def reinforce_with(
    ports: ReadPorts,
    raw_paths: Sequence[str],
    signal: Signal | str = Signal.NEUTRAL,
    *,
    session_id: str | None = None,
    prompt_id: str | None = None,
    turn_uuid: str | None = None,
) -> ReinforceAnswer:
    """Bump each path past its 900 s cooldown; non-neutral signals also move the outcome.

    The index is brought up to date first, so a memory written a moment ago is known. The port
    checks every path against the index before bumping any, so an unknown path leaves no
    orphan row behind (the original tool's behaviour did). A ``reinforced`` session link is
    filed per path when a session is named.

    Raises:
        InvalidInput: No path, a path that could leave the repository, or an unknown signal.
        NotFound: A path is not in the index; nothing is bumped.
        StorageFailure: The state plane cannot be written.
    """
    chosen = _signal(signal)
    paths = tuple(dict.fromkeys(repo_path(raw, "path") for raw in raw_paths))
    if not paths:
        raise InvalidInput("reinforce needs at least one path")
    ensure_fresh(ports.indexer, embed=ports.embed)
    result = ports.retrieval.reinforce(paths, chosen)
    if session_id:
        record_session_link(ports, "reinforced", paths, session_id, prompt_id, turn_uuid)
    return ReinforceAnswer(
        bumped=result.bumped, cooled_down=result.cooled_down, signal=chosen.value
    )


def _signal(value: Signal | str) -> Signal:
    try:
        return Signal(value)
    except ValueError as error:
        names = ", ".join(s.value for s in Signal)
        raise InvalidInput(f"signal must be one of {names}, got {value!r}") from error
