"""``index rebuild|update|embed|status`` (docs/cli-contract.md §3.4) over the indexer port.

The rebuild, update and embed reports are the indexer port's own values
(:class:`~memhtml.ports.indexer.RebuildReport`, ``UpdateReport``, ``BackfillReport``); the
command line names the subcommand as ``mode``. Only ``status`` assembles a value of its own.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.app.use_cases.sync_status import SyncStatus
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.index_census import IndexCensus
from memhtml.ports.indexer import (
    BackfillReport,
    Indexer,
    IndexState,
    RebuildReport,
    UpdateReport,
    watermark_commit,
)
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

NO_EMBEDDER_REASON: Final = "no embedder is configured (MEMHTML_EMBED=off)"
REBUILD_FIX: Final = "memhtml index rebuild"
UPDATE_FIX: Final = "memhtml index update"


@attrs.frozen(kw_only=True)
class IndexStatus:
    """``index.report`` for ``status``.

    Attributes:
        head_sha: The commit the index describes; None before the first rebuild or while an
            interrupted rebuild's window is open.
        embed_model, embed_dim: The stored vector space; None before the first rebuild.
        embed_model_matches: The stored space equals the configured one (True with none stored).
        configured_embed_model: The space this process writes (``<model>@<dim>``).
        rebuilt_at, updated_at: When the last rebuild started and the watermark last moved.
        files, active_files: Indexed memories, and those not archived.
        chunks, embeddings: Every chunk, and those with a vector in the configured space.
        vector_coverage, vector_coverage_floor: Their ratio, and the floor search compares it to.
        edges, derived_edges, tags, entities: Row counts (tags and entities distinct).
        has_state: The state plane is attached.
        stale: The index does not describe HEAD (never built, a rebuild died or is running,
            or commits landed since); reads and writes catch it up on their own.
        stale_reason: Why, in words; ``None`` when fresh.
        stale_fix: The command that brings it level now; ``None`` when fresh or when only
            waiting helps (another process is rebuilding).
        history_built: The transaction-time spans exist, so ``--known-at`` can answer
            (docs/index-schema.md §7); false for an index built before them or whose line
            was rewritten, until ``index rebuild``.
        history_commits: Commits of the first-parent line the spans describe.
        sync: The store against its sync remote, from local refs (``use_cases/sync_status``);
            ``None`` when it was not asked for.
    """

    head_sha: str | None
    embed_model: str | None
    embed_dim: int | None
    embed_model_matches: bool
    configured_embed_model: str
    rebuilt_at: str | None
    updated_at: str | None
    files: int
    active_files: int
    chunks: int
    embeddings: int
    vector_coverage: float
    vector_coverage_floor: float
    edges: int
    derived_edges: int
    tags: int
    entities: int
    has_state: bool
    stale: bool = False
    stale_reason: str | None = None
    stale_fix: str | None = None
    history_built: bool = False
    history_commits: int = 0
    sync: SyncStatus | None = None


def staleness(
    state: IndexState | None, head: str | None, *, rebuilding: bool
) -> tuple[bool, str | None, str | None]:
    """Whether the index lags HEAD, why, and the command that fixes it (pure).

    The working tree is not looked at: that costs a status walk, and every read indexes
    uncommitted edits before it answers anyway.
    """
    if state is None:
        return True, "the index has never been built", REBUILD_FIX
    if state.head_sha is None:
        if rebuilding:
            return True, "another process is rebuilding the index", None
        return True, "a rebuild died and left the index partial", REBUILD_FIX
    at = watermark_commit(state)
    if at != head:
        shown = "an unborn HEAD" if at is None else at[:7]
        return True, f"the index describes {shown}, HEAD is {(head or 'unborn')[:7]}", UPDATE_FIX
    return False, None, None


def index_rebuild(
    indexer: Indexer,
    *,
    embed: bool,
    force: bool = False,
    progress: ProgressSink = NO_PROGRESS,
) -> RebuildReport:
    """Rebuild the index from HEAD.

    Raises:
        EmbedModelMismatch, RebuildNoEmbedRefused: See ``Indexer.rebuild``.
    """
    return indexer.rebuild(embed=embed, force=force, progress=progress)


def index_update(
    indexer: Indexer, *, embed: bool, progress: ProgressSink = NO_PROGRESS
) -> UpdateReport:
    """Bring the index level with HEAD and the working tree.

    Raises:
        IndexStale, EmbedModelMismatch: See ``Indexer.update``.
    """
    return indexer.update(embed=embed, progress=progress)


def embed_with(
    indexer: Indexer, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
) -> BackfillReport:
    """Embed every chunk lacking a configured-space vector, in persisted slices.

    docs/decisions.md §23: when chunks were pending and not one slice landed, the pass failed as a
    whole, so it raises rather than reporting a success that did nothing; a pass that landed
    some slices before the model stopped reports what it did, and the gap.

    Raises:
        ModelUnavailable: Chunks were pending and no vector landed; the report is in the message.
        EmbedModelMismatch: The stored space differs from the configured one.
    """
    report = indexer.backfill(dry_run=dry_run, progress=progress)
    if dry_run or report.embeddings_written > 0 or report.embeddings_remaining == 0:
        return report
    cause = report.model_failure or (
        "the model wrote nothing" if indexer.embedder_bound else NO_EMBEDDER_REASON
    )
    raise ModelUnavailable(
        f"{cause}; no vector landed (chunks {report.chunks}, embeddings {report.embeddings}, "
        f"embeddingsWritten 0, embeddingsRemaining {report.embeddings_remaining})"
    )


def status_with(
    indexer: Indexer,
    census: IndexCensus,
    *,
    configured_model: str,
    floor: float,
    has_state: bool,
    head: str | None = None,
    history: HistoryStore | None = None,
    sync: SyncStatus | None = None,
) -> IndexStatus:
    """Assemble the status from the watermark row, the coverage and the census; ``head`` is
    HEAD's commit, which the watermark is compared with; ``sync`` is reported as given.

    Raises:
        StorageFailure: The index cannot be read.
    """
    state = indexer.index_state()
    coverage = indexer.vector_coverage()
    counts = census.counts()
    rebuilding = state is not None and state.head_sha is None and indexer.rebuild_in_progress()
    stale, reason, fix = staleness(state, head, rebuilding=rebuilding)
    line = None if history is None else history.history_state()
    return IndexStatus(
        head_sha=None if state is None else state.head_sha,
        embed_model=None if state is None else state.embed_model,
        embed_dim=None if state is None else state.embed_dim,
        embed_model_matches=state is None or state.embed_model == configured_model,
        configured_embed_model=configured_model,
        rebuilt_at=None if state is None else state.rebuilt_at,
        updated_at=None if state is None else state.updated_at,
        files=counts.files,
        active_files=counts.active_files,
        chunks=coverage.chunks,
        embeddings=coverage.embeddings,
        vector_coverage=coverage.coverage,
        vector_coverage_floor=floor,
        edges=counts.edges,
        derived_edges=counts.derived_edges,
        tags=counts.tags,
        entities=counts.entities,
        has_state=has_state,
        stale=stale,
        stale_reason=reason,
        stale_fix=fix,
        history_built=line is not None and line.built,
        history_commits=0 if line is None else line.commits,
        sync=sync,
    )
