"""``doctor``: what is wrong with a store, and what to do about it (docs/cli-contract.md §3.5).

The checks are read-only and always succeed. ``--fix`` runs the repairs first
(``doctor_fix``: dangling links in one commit, orphan access rows pruned), then the checks,
so the report describes the store as the repair left it and ``repaired`` says what changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import attrs

from memhtml.app.use_cases.conflicts import FrameConflict, frame_conflicts
from memhtml.app.use_cases.doctor_fix import Repair
from memhtml.app.use_cases.recovery_report import StoreFinding, needs_attention
from memhtml.app.use_cases.sync_status import SyncStatus
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.findings import Finding
from memhtml.domain.paths import is_indexable_path
from memhtml.domain.snippets import coverage_reason
from memhtml.domain.vocabulary import PARA_BUCKETS
from memhtml.ports.git import GitPort
from memhtml.ports.health import ContradictionLink, DanglingLink, HealthProbe
from memhtml.ports.history_store import HistoryStore
from memhtml.ports.indexer import Indexer
from memhtml.ports.memory_parser import MemoryParser

INBOX_CROWDED: Final = 20
"""More ordinary memories than this in ``areas/inbox/`` means placement is not routing them."""
INBOX_TASKS_CROWDED: Final = 10
"""More inbox tasks than this means tasks are written without a workspace."""


@attrs.frozen(kw_only=True)
class UnparseableFile:
    """A memory file the parser refuses, with its violations as ``code: detail; …``."""

    path: str
    reason: str


@attrs.frozen(kw_only=True)
class DoctorPorts:
    """What ``doctor`` reads (the facade builds it from the wired ports)."""

    git: GitPort
    parse: MemoryParser
    indexer: Indexer
    probe: HealthProbe
    root: str
    configured_model: str
    floor: float
    embeds: bool
    has_state: bool
    recovery: tuple[StoreFinding, ...] = ()
    history: HistoryStore | None = None
    sync: SyncStatus | None = None


NO_HISTORY_WARNING: Final = (
    "the index holds no transaction-time history, so --known-at refuses: run memhtml index "
    "rebuild (docs/index-schema.md §7)"
)


@attrs.frozen(kw_only=True)
class DoctorReport:
    """``doctor.report``.

    Attributes:
        root: The store's root.
        healthy: No check below found anything to act on.
        dangling: Authored links whose target is gone, with an archived copy to rewrite to.
        orphan_access_rows: State rows for paths the index does not hold.
        inbox_depth, inbox_crowded: Ordinary inbox memories, and whether there are over 20.
        inbox_task_depth, inbox_tasks_crowded: Inbox tasks, and whether there are over 10.
        unparseable: Memory files in the working tree that fail the format.
        frame_conflicts: Live memories stating one relation with other values, by frame key
            (``use_cases/conflicts``); a person or agent resolves them, ``--fix`` never does.
        contradictions: ``contradicts`` links between two active memories, with both gists;
            left to a person or agent as well. Neither counts against ``healthy``, which
            describes the store's machinery, not whether its facts agree.
        index_fresh: The watermark is at HEAD.
        index_head_sha, head_sha: The watermark and HEAD.
        embed_model_matches, stored_embed_model, configured_embed_model: The vector space.
        vector_coverage, vector_coverage_floor: The share of embedded chunks, and the floor.
        vector_coverage_low: Below the floor while an embedder is configured.
        chunks, embeddings: The counts behind the coverage.
        dirty: Paths with uncommitted changes.
        warnings: Format warnings as ``path: code: detail``, the coverage remedy when low, and
            the rebuild an index without transaction-time history needs (``--known-at``).
        has_state: The state plane is attached.
        recovery: What killed commands or damaged files left, each with its fix (issue 14).
        repaired: What ``--fix`` changed; ``None`` when it was not asked for.
        sync: The store against its sync remote (ahead, behind, the last sync), from local
            refs only; informative, never against ``healthy``.
    """

    root: str
    healthy: bool
    dangling: tuple[DanglingLink, ...]
    orphan_access_rows: tuple[str, ...]
    inbox_depth: int
    inbox_crowded: bool
    inbox_task_depth: int
    inbox_tasks_crowded: bool
    unparseable: tuple[UnparseableFile, ...]
    frame_conflicts: tuple[FrameConflict, ...]
    contradictions: tuple[ContradictionLink, ...]
    index_fresh: bool
    index_head_sha: str | None
    head_sha: str | None
    embed_model_matches: bool
    stored_embed_model: str | None
    configured_embed_model: str
    vector_coverage: float
    vector_coverage_floor: float
    vector_coverage_low: bool
    chunks: int
    embeddings: int
    dirty: tuple[str, ...]
    warnings: tuple[str, ...]
    has_state: bool
    recovery: tuple[StoreFinding, ...] = ()
    repaired: Repair | None = None
    sync: SyncStatus | None = None


def doctor_with(ports: DoctorPorts) -> DoctorReport:
    """Run every check. Nothing is changed, the index included: a doctor that updated the
    index first would always find it fresh and could never report that it was not.

    Raises:
        StorageFailure, GitFailure: The index or the repository cannot be read.
    """
    head = ports.git.head()
    status = ports.git.status()
    unparseable, format_warnings = format_check(ports.parse, working_files(ports.git, head))
    state = ports.indexer.index_state()
    coverage = ports.indexer.vector_coverage()
    dangling = ports.probe.dangling_links()
    orphans = ports.probe.orphan_access_rows()
    inbox = ports.probe.inbox_depths()
    conflicts = frame_conflicts(ports.probe.shared_frames())
    contradictions = ports.probe.active_contradictions()
    index_head = None if state is None else state.head_sha
    index_fresh = (
        state is not None and index_head is not None and (head is None or index_head == head)
    )
    matches = state is None or state.embed_model == ports.configured_model
    low = ports.embeds and coverage.coverage < ports.floor
    warnings = [f"{path}: {f.code}: {f.detail}" for path, f in format_warnings]
    if low:
        warnings.append(
            f"vector coverage is low: {coverage_reason(coverage.embeddings, coverage.chunks)}"
        )
    if ports.history is not None and state is not None and not ports.history.history_state().built:
        # Not unhealthy: every answer but --known-at is right, and that one refuses.
        warnings.append(NO_HISTORY_WARNING)
    healthy = (
        not (dangling or orphans or unparseable or low)
        and index_fresh
        and matches
        and ports.has_state
        and not needs_attention(ports.recovery)
    )
    return DoctorReport(
        root=ports.root,
        healthy=healthy,
        dangling=dangling,
        orphan_access_rows=orphans,
        inbox_depth=inbox.memories,
        inbox_crowded=inbox.memories > INBOX_CROWDED,
        inbox_task_depth=inbox.tasks,
        inbox_tasks_crowded=inbox.tasks > INBOX_TASKS_CROWDED,
        unparseable=unparseable,
        frame_conflicts=conflicts,
        contradictions=contradictions,
        index_fresh=index_fresh,
        index_head_sha=index_head,
        head_sha=head,
        embed_model_matches=matches,
        stored_embed_model=None if state is None else state.embed_model,
        configured_embed_model=ports.configured_model,
        vector_coverage=coverage.coverage,
        vector_coverage_floor=ports.floor,
        vector_coverage_low=low,
        chunks=coverage.chunks,
        embeddings=coverage.embeddings,
        dirty=tuple(sorted(entry.path for entry in status)),
        warnings=tuple(warnings),
        has_state=ports.has_state,
        recovery=ports.recovery,
        sync=ports.sync,
    )


def working_files(git: GitPort, head: str | None) -> dict[str, bytes]:
    """Every memory file of the working tree: HEAD's, overlaid with uncommitted changes.

    Raises:
        GitFailure: The repository cannot be read.
    """
    entries = git.list_tree(head, PARA_BUCKETS) if head is not None else ()
    committed = {e.path: e.blob_sha for e in entries if is_indexable_path(e.path)}
    changed = {e.path: e for e in git.status() if is_indexable_path(e.path)}
    clean = {path: sha for path, sha in committed.items() if path not in changed}
    blobs = git.read_blobs(tuple(clean.values())) if clean else {}
    files = {path: blobs[sha] for path, sha in clean.items()}
    for path, entry in changed.items():
        if not entry.deleted:
            files[path] = git.read_working_file(path)
    return dict(sorted(files.items()))


def format_check(
    parse: MemoryParser, files: Mapping[str, bytes]
) -> tuple[tuple[UnparseableFile, ...], tuple[tuple[str, Finding], ...]]:
    """Parse every file: the refused ones with their violations, and every file's warnings.

    Both come back in path order; a refused file's warnings are reported beside its violations.
    """
    refused: list[UnparseableFile] = []
    warned: list[tuple[str, Finding]] = []
    for path in sorted(files):
        try:
            doc = parse(files[path])
        except InvalidMemory as error:
            reason = "; ".join(f"{v.code}: {v.detail}" for v in error.violations)
            refused.append(UnparseableFile(path=path, reason=reason or str(error)))
            warned.extend((path, w) for w in error.warnings)
            continue
        warned.extend((path, w) for w in doc.warnings)
    return tuple(refused), tuple(warned)
