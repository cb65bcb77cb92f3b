"""``search``, ``recall`` and ``reinforce`` over an index brought up to date first.

Hits never bump salience: being listed is not evidence of use (docs/ranking.md §9.1). ``reinforce``
is the explicit signal; an unknown path refuses the whole call before anything is bumped.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.app.use_cases.pending_vectors import degraded_reason, settle_pending
from memhtml.app.use_cases.read import ReadPorts, record_session_link
from memhtml.domain.disclosure import DisclosureFold
from memhtml.domain.errors import InvalidInput
from memhtml.domain.placement import repo_path
from memhtml.domain.reinforce import Signal
from memhtml.ports.retrieval import ArchivedMatch, RecallRequest, SearchHit, SearchRequest


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


@attrs.frozen(kw_only=True)
class ReinforceAnswer:
    """``memory.reinforced``: which paths moved, which were still cooling down, the signal."""

    bumped: tuple[str, ...]
    cooled_down: tuple[str, ...]
    signal: str


def search_with(ports: ReadPorts, request: SearchRequest) -> SearchAnswer:
    """Update the index, embed a bounded share of pending chunks, then rank. Nothing is bumped.

    Raises:
        StorageFailure: The index cannot be read.
    """
    freshness = ensure_fresh(ports.indexer, embed=ports.embed)
    pending = settle_pending(ports.indexer, embed=ports.embed)
    result = ports.retrieval.search(request)
    reason = degraded_reason(
        degraded=result.degraded,
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
        degraded_reason=reason,
    )


def recall_with(ports: ReadPorts, request: RecallRequest) -> RecallAnswer:
    """Update the index, embed a bounded share of pending chunks, then fold the recall pack.
    Nothing is bumped.

    Raises:
        StorageFailure: The index cannot be read.
    """
    freshness = ensure_fresh(ports.indexer, embed=ports.embed)
    pending = settle_pending(ports.indexer, embed=ports.embed)
    result = ports.retrieval.recall(request)
    reason = degraded_reason(
        degraded=result.degraded,
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
        degraded_reason=reason,
    )


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
