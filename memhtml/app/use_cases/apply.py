"""``apply``, phase 2: run checked ops in order on one staged tree; one commit, one index pass.

Atomic by default: the first refused op aborts the batch (nothing written, ``aborted: true``;
the edges then report ``ERR_BATCH_ABORTED`` through :func:`refuse_aborted`).
With ``continue_on_error`` a refused op is reported and the others still commit. Either way the
results come back in input order, one per op.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from memhtml.app.apply_ops import (
    OP_ARCHIVE,
    OP_LINK,
    OP_WRITE,
    ApplyOp,
    LinkOp,
    SessionDefaults,
    WriteOp,
)
from memhtml.app.errors import BatchAborted, DirtyTree
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.archive import checked_reason, stage_archive
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.link import stage_link
from memhtml.app.use_cases.mutation import Plan, record_links, run_mutation
from memhtml.app.use_cases.write import stage_write
from memhtml.domain.commit_messages import OP_BATCH, batch_subject, commit_message
from memhtml.domain.errors import Conflict, DuplicateContent, InvalidInput, InvalidMemory, NotFound
from memhtml.ports.progress import NO_PROGRESS, PHASE_APPLYING, ProgressSink

# What refuses one op. Anything else (storage, git, a bug) fails the whole command: it says
# nothing about the op, and reporting it per op would hide a broken store behind exit 0.
OP_REFUSALS: Final = (InvalidInput, InvalidMemory, NotFound, Conflict, DuplicateContent, DirtyTree)


@attrs.frozen(kw_only=True)
class OpResult:
    """One op's outcome (camelCase in the envelope, like every other result).

    Attributes:
        index: 0-based position in the batch (blank lines not counted).
        op: ``write``, ``link`` or ``archive``.
        ok: The op took effect (or deduped); False when refused or skipped.
        path: The written file, the existing one when deduped, the link's source, or the
            archive destination.
        deduped: A write whose content already lives at ``existing_path``.
        existing_path: That path, when deduped.
        code, error: The ``ERR_*`` code and message of a refused op.
        skipped: Not run, or rolled back, because the atomic batch aborted.
    """

    index: int
    op: str
    ok: bool
    path: str | None = None
    deduped: bool = False
    existing_path: str | None = None
    code: str | None = None
    error: str | None = None
    skipped: bool = False


@attrs.frozen(kw_only=True)
class ApplySummary:
    """Counts over the results."""

    total: int
    written: int
    deduped: int
    linked: int
    archived: int
    failed: int
    skipped: int


@attrs.frozen(kw_only=True)
class ApplyResult:
    """``batch.applied``.

    Attributes:
        results: One per op, in input order.
        summary: The counts.
        commit_sha: The batch's one commit, or ``None`` when nothing was committed.
        aborted: An atomic batch stopped at a refused op.
        indexed: False only when the commit landed and the index pass after it failed.
    """

    results: tuple[OpResult, ...]
    summary: ApplySummary
    commit_sha: str | None
    aborted: bool
    indexed: bool


@attrs.frozen(kw_only=True)
class _Ran:
    """One op's result plus what the commit needs to know about it."""

    result: OpResult
    changed: bool = False
    title: str | None = None
    session: tuple[str, str | None, str | None, str | None] | None = None


def _run_op(
    deps: WriteDeps,
    tree: StagedTree,
    index: int,
    op: ApplyOp,
    *,
    now: dt.datetime,
    hashes: dict[str, str],
) -> _Ran:
    """Stage one op; every check runs before its change is staged, so a refusal stages nothing."""
    if isinstance(op, WriteOp):
        staged = stage_write(deps, tree, op.request, now=now, batch_hashes=hashes)
        result = OpResult(
            index=index,
            op=OP_WRITE,
            ok=True,
            path=staged.path,
            deduped=staged.deduped,
            existing_path=staged.path if staged.deduped else None,
        )
        if staged.deduped:
            return _Ran(result=result)
        request = op.request
        session = (staged.path, request.session_id, request.prompt_id, request.turn_uuid)
        return _Ran(result=result, changed=True, title=staged.title, session=session)
    if isinstance(op, LinkOp):
        link = stage_link(deps, tree, op.src, op.rel, op.dst)
        result = OpResult(index=index, op=OP_LINK, ok=True, path=link.src_path)
        return _Ran(result=result, changed=link.created)
    checked_reason(op.reason)
    moved = stage_archive(deps, tree, op.path, now=now)
    return _Ran(
        result=OpResult(index=index, op=OP_ARCHIVE, ok=True, path=moved.archive_path), changed=True
    )


def _refused(index: int, op: ApplyOp, error: Exception) -> OpResult:
    # The error table is the one place codes are decided; imported here, on the refusal path
    # only, so running a batch does not load click.
    from memhtml.app.error_codes import error_code_for

    code = error_code_for(error).code
    return OpResult(index=index, op=_op_name(op), ok=False, code=code, error=str(error))


def _op_name(op: ApplyOp) -> str:
    return (
        OP_WRITE if isinstance(op, WriteOp) else OP_LINK if isinstance(op, LinkOp) else OP_ARCHIVE
    )


def _summary(results: Sequence[OpResult]) -> ApplySummary:
    def count(op: str) -> int:
        return sum(1 for r in results if r.ok and r.op == op and not r.deduped)

    return ApplySummary(
        total=len(results),
        written=count(OP_WRITE),
        deduped=sum(1 for r in results if r.ok and r.deduped),
        linked=count(OP_LINK),
        archived=count(OP_ARCHIVE),
        failed=sum(1 for r in results if not r.ok and not r.skipped),
        skipped=sum(1 for r in results if r.skipped),
    )


def apply_batch(
    deps: WriteDeps,
    ops: Sequence[ApplyOp],
    *,
    continue_on_error: bool = False,
    defaults: SessionDefaults | None = None,
    progress: ProgressSink = NO_PROGRESS,
) -> ApplyResult:
    """Run a checked batch (``parse_apply_lines``) as one commit and one index pass.

    Each op sees the files earlier ops wrote, moved or linked. A write whose content equals an
    active non-task memory or an earlier op's write dedups (``ok``, ``deduped``). The commit
    subject follows CLI.md §3.2; the batch-wide session values become its trailers, and each
    written memory naming a session gets a ``wrote`` session link. ``progress`` hears of the
    applying phase (units: ops; an aborting batch finishes early) and the index pass's phases.

    Raises:
        IndexStale, EmbedModelMismatch: Before anything is written.
        PathRefused: A path the git writer refuses (a symlink out of the repository); nothing
            is written.
        HeadMoved: Other writers won every retry.
        StorageFailure, GitFailure: The store failed; nothing is written before the commit.
    """
    session = defaults or SessionDefaults()

    def plan(tree: StagedTree) -> Plan[tuple[tuple[_Ran, ...], bool]]:
        ran: list[_Ran] = []
        hashes: dict[str, str] = {}
        now = deps.clock.now()
        if ops:
            progress.start(PHASE_APPLYING, len(ops))
        for index, op in enumerate(ops):
            try:
                ran.append(_run_op(deps, tree, index, op, now=now, hashes=hashes))
            except OP_REFUSALS as error:
                refused = _Ran(result=_refused(index, op, error))
                if not continue_on_error:
                    progress.finish()
                    results = tuple(
                        refused
                        if i == index
                        else _Ran(result=OpResult(index=i, op=_op_name(o), ok=False, skipped=True))
                        for i, o in enumerate(ops)
                    )
                    return Plan(outcome=(results, True), message=None)
                ran.append(refused)
            progress.advance()
        if ops:
            progress.finish()
        changed = [r for r in ran if r.changed]
        if not changed:
            return Plan(outcome=(tuple(ran), False), message=None)
        names = tuple(r.result.op for r in changed)
        subject = batch_subject(names, changed[0].title if len(changed) == 1 else None)
        message = commit_message(
            OP_BATCH, subject, session_id=session.session_id, prompt_id=session.prompt_id
        )
        return Plan(outcome=(tuple(ran), False), message=message)

    landed = run_mutation(deps, plan, progress=progress)
    ran, aborted = landed.outcome
    if landed.commit_sha is not None:
        record_links(deps, "wrote", [r.session for r in ran if r.session is not None])
    results = tuple(r.result for r in ran)
    return ApplyResult(
        results=results,
        summary=_summary(results),
        commit_sha=landed.commit_sha,
        aborted=aborted,
        indexed=landed.indexed,
    )


def refuse_aborted(result: ApplyResult, detail: Mapping[str, object]) -> None:
    """Raise when an atomic batch aborted, so every edge reports it as a failure.

    ``aborted: true`` used to come back as a success (exit 0), and a script that checked only
    the exit status took a batch that wrote nothing for one that landed. ``detail`` is the
    edge's shaping of ``result`` (``batch.applied`` data), carried whole by the error.

    Raises:
        BatchAborted: ``result.aborted``; the message names the refused op and its code.
    """
    if not result.aborted:
        return
    refused = next(r for r in result.results if not r.ok and not r.skipped)
    raise BatchAborted(
        f"the batch was aborted at op index {refused.index} ({refused.op}): {refused.code}: "
        f"{refused.error}; nothing was written",
        detail=detail,
        suggestions=(
            f"fix or drop op index {refused.index}, then run the batch again",
            "memhtml apply --continue-on-error (commits the ops that succeed)",
        ),
    )
