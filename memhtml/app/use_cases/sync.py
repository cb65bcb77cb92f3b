"""``memhtml sync``: exchange commits with a remote and lose nothing (docs/sync.md).

The steps, each safe to kill (the next ``sync`` completes the work):

1. the access table is exported to the committed sidecar, so it travels with the commits;
2. fetch the remote's branch;
3. integrate: nothing to do, a fast-forward, or a merge commit decided by the sync merge rules
   (``domain/sync_merge``), the branch moved by the journaled compare-and-swap;
4. push, compare-and-swap on the remote's branch; someone pushed first: back to 2, with a
   bounded, jittered backoff;
5. the index catches up from the diff (an incremental update, never a rebuild);
6. the merged sidecar is imported into the access table, so salience learned elsewhere counts
   here; then the finished sync is recorded on this machine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import Final, Literal

import attrs

from memhtml.app.use_cases.state_ops import export_with, import_with
from memhtml.app.use_cases.sync_rows import follow_merge_moves, merge_message
from memhtml.app.use_cases.sync_trees import decide, load_merge, merge_output
from memhtml.domain.model import MemoryDoc
from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_values import MergePlan
from memhtml.faults import fault_point
from memhtml.ports.clock import Clock
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import GitPort
from memhtml.ports.git_history import AheadBehind, GitHistory
from memhtml.ports.git_landing import GitLanding
from memhtml.ports.git_remote import DEFAULT_REMOTE, GitRemote, PushRejected, SyncMark
from memhtml.ports.git_writer import GitWriter, HeadMoved
from memhtml.ports.indexer import Indexer
from memhtml.ports.memory_codec import MemoryCodec
from memhtml.ports.progress import NO_PROGRESS, ProgressSink
from memhtml.ports.state_plane import StatePlane

SYNC_ATTEMPTS: Final = 6
FIRST_PAUSE_S: Final = 0.05
PAUSE_JITTER: Final = (0.5, 1.5)

Action = Literal["up-to-date", "pushed", "fast-forward", "merged", "empty"]
UP_TO_DATE: Final[Action] = "up-to-date"
PUSHED: Final[Action] = "pushed"
FAST_FORWARD: Final[Action] = "fast-forward"
MERGED: Final[Action] = "merged"
EMPTY: Final[Action] = "empty"


@attrs.frozen(kw_only=True)
class SyncPorts:
    """What a sync reads and writes.

    Attributes:
        state: The access table; ``None`` when the store has no state plane.
        embed: Whether the index catch-up embeds the new chunks.
    """

    git: GitPort
    writer: GitWriter
    history: GitHistory
    landing: GitLanding
    remote: GitRemote
    indexer: Indexer
    codec: MemoryCodec
    clock: Clock
    state: StatePlane | None
    embed: bool
    pause: Callable[[float], None] = time.sleep


@attrs.frozen(kw_only=True)
class SyncCase:
    """One merge decision reported to the user (``domain/sync_values`` ``CASE_*``)."""

    kind: str
    path: str
    other_path: str | None
    kept: str


@attrs.frozen(kw_only=True)
class SyncResult:
    """``sync``.

    Attributes:
        remote, url: The remote's name and redacted URL.
        dry_run: Nothing was committed, moved or pushed (the fetch still ran).
        action: ``up-to-date``, ``pushed`` (we were ahead), ``fast-forward`` (we were behind),
            ``merged`` (both moved), or ``empty`` (neither side has a commit).
        head_before, head_after: The local branch before and after.
        remote_head: The remote's branch afterwards (as fetched, on a dry run).
        ahead, behind: Commits only we had, and only the remote had, when the sync looked.
        cases: The merge's reported cases (docs/sync.md §3), by path.
        attempts: Fetch-integrate-push rounds (more than one when someone pushed first).
        exported: The access table was committed to the sidecar first.
        indexed: Paths the index catch-up added, changed, moved or removed.
        state_rows: Access rows the merged sidecar held when it was imported.
        skipped_edits: Head edits a file refused; the file was kept as it was.
    """

    remote: str
    url: str
    dry_run: bool
    action: Action
    head_before: str | None
    head_after: str | None
    remote_head: str | None
    ahead: int
    behind: int
    cases: tuple[SyncCase, ...]
    attempts: int
    exported: bool
    indexed: int
    state_rows: int
    skipped_edits: int


@attrs.frozen(kw_only=True)
class _Round:
    action: Action
    head_before: str | None
    head_after: str | None
    remote_head: str | None
    ahead: int
    behind: int
    plan: MergePlan | None = None
    skipped_edits: int = 0
    known: Mapping[bytes, MemoryDoc] = attrs.field(factory=dict)


def sync_with(
    ports: SyncPorts,
    *,
    remote: str = DEFAULT_REMOTE,
    dry_run: bool = False,
    progress: ProgressSink = NO_PROGRESS,
    attempts: int = SYNC_ATTEMPTS,
) -> SyncResult:
    """Fetch, integrate, push, catch the index up and merge the state plane.

    Raises:
        RemoteMissing, RemoteUnreachable: The remote is not configured or cannot be reached.
        PushRejected: The remote declined the push (a hook), or moved on every attempt.
        HeadMoved: Local writers moved the branch on every attempt.
        GitFailure, StorageFailure: As their names say; nothing pushed is ever lost locally.
    """
    info = ports.remote.remote(remote)
    exported, held = False, 0
    if not dry_run and ports.state is not None:
        # Rows a merge moved that a killed sync did not move yet go first, so the import below
        # cannot merge them into the file now at their old path.
        last = ports.remote.last_sync(remote)
        follow_merge_moves(
            ports.state,
            ports.history,
            ports.git,
            ports.codec,
            before=None if last is None else last.head,
            after=ports.git.head(),
        )
        # The committed sidecar first joins the table (a fresh clone's table is empty, a
        # killed sync may not have imported it), so the export never drops a row.
        _import_state(ports)
        export = export_with(ports.state, ports.git, ports.writer)
        exported, held = export.written, export.rows
    start = ports.git.head()
    tries = max(1, attempts)
    for attempt in range(tries):
        try:
            done = _round(ports, remote, dry_run=dry_run, progress=progress)
        except (HeadMoved, PushRejected) as error:
            stale = isinstance(error, HeadMoved) or error.moved
            if not stale or attempt == tries - 1:
                raise
            ports.pause(FIRST_PAUSE_S * 2**attempt * random.uniform(*PAUSE_JITTER))
            continue
        break
    else:  # pragma: no cover - the last attempt returns or raises
        raise AssertionError("unreachable")
    indexed, rows = 0, 0
    if not dry_run:
        # From the commits alone: the sync only moved the branch, and walking the working
        # tree for edits it did not make was a third of a sync into 10,000 memories.
        # The memories a merge parsed are not parsed again.
        report = ports.indexer.update(
            embed=ports.embed, progress=progress, known=done.known, committed_only=True
        )
        indexed = report.added + report.modified + report.removed + report.renamed
        fault_point("sync.indexed")
        follow_merge_moves(
            ports.state, ports.history, ports.git, ports.codec, before=start, after=done.head_after
        )
        # Only commits from the remote bring a sidecar the first import has not seen; else the
        # committed sidecar is the export's, which holds the table's rows.
        rows = _import_state(ports) if done.action in (FAST_FORWARD, MERGED) else held
        ports.remote.record_sync(
            SyncMark(
                remote=remote,
                at=ports.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                head=done.head_after,
                remote_head=done.remote_head,
            )
        )
    plan = done.plan
    cases = () if plan is None else plan.cases
    return SyncResult(
        remote=remote,
        url=info.url,
        dry_run=dry_run,
        action=done.action,
        head_before=done.head_before,
        head_after=done.head_after,
        remote_head=done.remote_head,
        ahead=done.ahead,
        behind=done.behind,
        cases=tuple(
            SyncCase(kind=c.kind, path=c.path, other_path=c.other_path, kept=c.kept) for c in cases
        ),
        attempts=attempt + 1,
        exported=exported,
        indexed=indexed,
        state_rows=rows,
        skipped_edits=done.skipped_edits,
    )


def _round(ports: SyncPorts, remote: str, *, dry_run: bool, progress: ProgressSink) -> _Round:
    """One fetch, integrate and push."""
    theirs = ports.remote.fetch(remote, progress=progress)
    fault_point("sync.fetched")
    ours = ports.git.head()
    counts = (
        AheadBehind(ahead=0, behind=0)
        if ours == theirs
        else ports.history.ahead_behind(ours, theirs)
    )

    def ended(
        action: Action,
        after: str | None,
        remote_head: str | None,
        plan: MergePlan | None = None,
        skipped: int = 0,
        known: Mapping[bytes, MemoryDoc] | None = None,
    ) -> _Round:
        return _Round(
            action=action,
            head_before=ours,
            head_after=after,
            remote_head=remote_head,
            ahead=counts.ahead,
            behind=counts.behind,
            plan=plan,
            skipped_edits=skipped,
            known={} if known is None else known,
        )

    if ours is None and theirs is None:
        return ended(EMPTY, None, None)
    if ours == theirs:
        return ended(UP_TO_DATE, ours, theirs)
    if theirs is None or counts.behind == 0:
        if not dry_run and ours is not None:
            ports.remote.push(remote, new=ours, expected=theirs, progress=progress)
            fault_point("sync.pushed")
        pushed = theirs if dry_run else ours
        return ended(PUSHED, ours, pushed)
    if ours is None or counts.ahead == 0:
        if not dry_run:
            ports.landing.advance(expected_head=ours, target=theirs)
            fault_point("sync.merged")
        after = ours if dry_run else theirs
        return ended(FAST_FORWARD, after, theirs)
    bases = ports.history.merge_bases(ours, theirs)
    found = load_merge(
        ports.git,
        ports.history,
        ports.codec,
        base=bases[0] if bases else None,
        ours=ours,
        theirs=theirs,
    )
    plan = decide(found)
    if dry_run:
        return ended(MERGED, ours, theirs, plan)
    output = merge_output(ports.git, ports.codec, found, plan)
    merged = ports.landing.merge_commit(
        parents=(ours, theirs),
        edits=output.edits,
        writes=output.writes,
        message=merge_message(remote, plan),
    )
    ports.landing.advance(expected_head=ours, target=merged)
    fault_point("sync.merged")
    ports.remote.push(remote, new=merged, expected=theirs, progress=progress)
    fault_point("sync.pushed")
    return ended(MERGED, merged, merged, plan, output.skipped_edits, found.docs)


def _import_state(ports: SyncPorts) -> int:
    """Merge the working tree's sidecar into the access table; its row count (0 without one)."""
    if ports.state is None:
        return 0
    try:
        sidecar = ports.git.read_working_file(SIDECAR_PATH)
    except GitFailure:
        return 0
    return import_with(ports.state, sidecar, has_state=True).rows
