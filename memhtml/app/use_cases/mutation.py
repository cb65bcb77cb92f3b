"""The frame every mutating command runs in: preflight, plan, one commit, retry, reindex.

Order, and why:

0. Take the store's write lock (``WriteDeps.write_lock``) for steps 1–3, so memhtml writers in
   other processes wait their turn: without it a writer in a tight loop could make another
   lose every retry, and a plan could dedup against an index that lags another's commit.
   Under it, first repair what a killed writer left (``app.recovery``), so the preflight
   never indexes a working tree half-way to a commit.
1. ``indexer.update`` first. It is the preflight (it raises ``IndexStale`` and
   ``EmbedModelMismatch``, exactly the states docs/cli-contract.md §3.1 says must refuse before
   writing), and it brings the index level with HEAD and the working tree, so the dedup lookup sees
   every file. When nothing moved since the last pass it costs a HEAD read and a status walk.
2. Plan against a fresh ``StagedTree`` of the current HEAD; the plan stages its changes and
   names the commit message. The tree takes its uncommitted paths from the preflight's status
   walk when that pass wrote nothing after it (``UpdateReport.working``), so a write walks the
   working tree once; otherwise it walks again.
3. One commit, compare-and-swap on that HEAD. ``HeadMoved`` means another writer landed first:
   pause (jittered, doubling) and run 1–3 again from scratch, a bounded number of times.
4. After the commit, one more ``indexer.update``; its failure is logged and reported as
   ``indexed=False``, never raised, because the commit has landed and the next update catches up.
   The documents the plan already parsed go to that update as an argument, so a written file
   is parsed once per command, not once more by the index. That update applies the commits
   alone (``committed_only``) and does not walk: the preflight just recorded the working
   tree's dirty paths, and the commit wrote none of them, so what it changed is exactly what
   it committed. An edit someone made meanwhile waits for the next pass, which every command
   (a read's freshness check included) runs first and which walks. A commit that wrote a
   path the tree saw dirty gets a full pass.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Generic, TypeVar

import attrs

from memhtml.app.recovery import repair_before_writing
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.domain.commit_messages import with_request
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.errors import MemhtmlError
from memhtml.domain.model import MemoryDoc
from memhtml.faults import fault_point
from memhtml.ports.git_writer import HeadMoved
from memhtml.ports.progress import NO_PROGRESS, ProgressSink
from memhtml.ports.recorder import LinkKind, SessionLink

logger = logging.getLogger("memhtml.write")

T = TypeVar("T")

FIRST_PAUSE_S: Final = 0.01
"""Pause before the first retry; doubles per retry, so 8 attempts wait about 1.3 s in all."""
PAUSE_JITTER: Final = (0.8, 1.2)


@attrs.frozen(kw_only=True)
class Plan(Generic[T]):
    """What a use case decided on one tree: its outcome and the commit message, if any.

    Attributes:
        outcome: The use case's own answer (paths, hashes…).
        message: The commit message; ``None`` when the command changes nothing (a dedup, an
            existing edge), so no commit is made even if the tree was touched.
        vectors: Vectors the plan already embedded, by chunk id (the near-duplicate
            assist's), handed to the index update after the commit so they are stored, not
            embedded again.
    """

    outcome: T
    message: str | None
    vectors: Mapping[str, bytes] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class Landed(Generic[T]):
    """A finished mutation.

    Attributes:
        outcome: The plan's outcome from the attempt that landed.
        commit_sha: The new commit, or ``None`` when nothing was committed.
        indexed: False only when a commit landed and the index update after it failed.
    """

    outcome: T
    commit_sha: str | None
    indexed: bool


def run_mutation(
    deps: WriteDeps,
    plan: Callable[[StagedTree], Plan[T]],
    *,
    progress: ProgressSink = NO_PROGRESS,
) -> Landed[T]:
    """Run ``plan`` on a fresh tree until its commit lands (see the module docstring).

    ``progress`` hears of both index updates' phases (the preflight's, usually none).

    Raises:
        IndexStale, EmbedModelMismatch: From the preflight, before anything is written.
        HeadMoved: Every attempt lost the race (the CLI reports ``ERR_WRITE_CONFLICT``).
        MemhtmlError: Whatever ``plan`` refuses with; nothing is written.
    """
    attempts = max(1, deps.commit_attempts)
    for attempt in range(attempts):
        with deps.write_lock():
            repair_before_writing(deps.writer)
            preflight = deps.indexer.update(embed=deps.embed, progress=progress)
            tree = StagedTree.load(deps.git, preflight.working)
            planned = plan(tree)
            changes = tree.change_set()
            if planned.message is None or not (changes.writes or changes.moves or changes.deletes):
                return Landed(outcome=planned.outcome, commit_sha=None, indexed=True)
            message = with_request(planned.message, deps.request_id)
            try:
                sha = deps.writer.commit(changes, message, expected_head=tree.head)
            except HeadMoved:
                # Another writer that does not take the lock (git itself) moved HEAD.
                if attempt == attempts - 1:
                    raise
                sha = None
        if sha is None:
            deps.pause(FIRST_PAUSE_S * 2**attempt * random.uniform(*PAUSE_JITTER))
            continue
        fault_point("mutation.committed")
        # After the lock is released: the next writer's preflight indexes this commit too.
        indexed = refresh_index(
            deps,
            progress,
            parsed=tree.documents(),
            vectors=planned.vectors,
            committed_only=not tree.touches_dirty(changes),
        )
        return Landed(outcome=planned.outcome, commit_sha=sha, indexed=indexed)
    raise AssertionError("unreachable: the last attempt returns or raises")


def refresh_index(
    deps: WriteDeps,
    progress: ProgressSink = NO_PROGRESS,
    *,
    parsed: Mapping[bytes, MemoryDoc] | None = None,
    vectors: Mapping[str, bytes] | None = None,
    committed_only: bool = False,
) -> bool:
    """One index update after a commit; False (and a logged cause) when it fails.

    ``parsed`` (file bytes to document) hands the indexer the documents the plan already
    parsed, so a written file is not parsed again; ``vectors`` (chunk id to vector) the
    vectors it already embedded; ``committed_only`` skips the working-tree walk (see the
    module docstring, step 4).
    """
    try:
        report = deps.indexer.update(
            embed=deps.embed,
            progress=progress,
            known=parsed,
            vectors=vectors or None,
            committed_only=committed_only,
        )
    except MemhtmlError as error:
        logger.warning(
            "committed, but the index update failed (%s); run `memhtml index update`", error
        )
        return False
    if report.model_failure is not None:
        logger.warning("indexed without some vectors: %s", report.model_failure)
    return True


def record_links(
    deps: WriteDeps,
    kind: LinkKind,
    touched: Sequence[tuple[str, str | None, str | None, str | None]],
) -> None:
    """File a session link for each ``(path, session, prompt, turn)`` that names a session.

    After the commit, so a failure here is logged and swallowed: the file itself carries the
    session in its head, and a lost index row must not turn a landed write into an error.
    """
    at = utc_stamp(deps.clock.now())
    links = [
        SessionLink(
            path=path, session_id=session, kind=kind, at=at, prompt_id=prompt, turn_uuid=turn
        )
        for path, session, prompt, turn in touched
        if session
    ]
    if not links:
        return
    try:
        deps.recorder.record_session_links(links)
    except MemhtmlError as error:
        logger.warning("committed, but the session links were not recorded (%s)", error)
