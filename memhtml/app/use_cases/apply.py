"""``apply``, phase 2: run checked ops in order on one staged tree; one commit, one index pass.

Atomic by default: the first refused op aborts the batch (nothing written, ``aborted: true``;
the edges then report ``ERR_BATCH_ABORTED`` through :func:`refuse_aborted`).
With ``continue_on_error`` a refused op is reported and the others still commit. Either way the
results come back in input order, one per op.

The conflict assist runs once for the whole batch, after every op is staged (one lookup for
all written keys). With ``on_conflict`` ``fail`` a conflicting write is a refused op: an atomic
batch aborts at the first one; with ``continue_on_error`` the ops are first staged on a scratch
tree to learn which writes conflict, then staged for real with those refused. With
``supersede`` each conflicting write archives the older memories it conflicts with (once, if
several writes name one); a supersede that cannot be staged (an older file with uncommitted
edits) aborts the whole batch, ``continue_on_error`` or not, since its write is staged already.
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
from memhtml.app.errors import DirtyTree, FactConflict
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.apply_results import (
    ApplyResult,
    ApplySummary,
    OpResult,
    refuse_aborted,
    summary_of,
)
from memhtml.app.use_cases.archive import checked_reason, stage_archive
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.conflicts import (
    ON_CONFLICT_FAIL,
    ON_CONFLICT_REPORT,
    ON_CONFLICT_SUPERSEDE,
    WrittenClaim,
    checked_on_conflict,
    conflicts_for,
    refuse_conflicts,
)
from memhtml.app.use_cases.link import stage_link
from memhtml.app.use_cases.mutation import Plan, record_links, run_mutation
from memhtml.app.use_cases.supersede import stage_supersede
from memhtml.app.use_cases.write import stage_write
from memhtml.domain.commit_messages import OP_BATCH, batch_subject, commit_message
from memhtml.domain.errors import Conflict, DuplicateContent, InvalidInput, InvalidMemory, NotFound
from memhtml.ports.progress import NO_PROGRESS, PHASE_APPLYING, ProgressSink

__all__ = [
    "OP_REFUSALS",
    "ApplyResult",
    "ApplySummary",
    "OpResult",
    "apply_batch",
    "refuse_aborted",
]

# What refuses one op. Anything else (storage, git, a bug) fails the whole command: it says
# nothing about the op, and reporting it per op would hide a broken store behind exit 0.
OP_REFUSALS: Final = (
    InvalidInput,
    InvalidMemory,
    NotFound,
    Conflict,
    DuplicateContent,
    DirtyTree,
    FactConflict,
)


@attrs.frozen(kw_only=True)
class _Ran:
    """One op's result plus what the commit needs to know about it."""

    result: OpResult
    changed: bool = False
    title: str | None = None
    session: tuple[str, str | None, str | None, str | None] | None = None
    claim: WrittenClaim | None = None


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
        return _Ran(
            result=result,
            changed=True,
            title=staged.title,
            session=session,
            claim=staged.claim(),
        )
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


def _skipped_batch(ops: Sequence[ApplyOp], refused: _Ran) -> tuple[_Ran, ...]:
    """An aborted atomic batch: the refused op's result, every other op skipped."""
    at = refused.result.index
    return tuple(
        refused
        if i == at
        else _Ran(result=OpResult(index=i, op=_op_name(o), ok=False, skipped=True))
        for i, o in enumerate(ops)
    )


def _stage_ops(
    deps: WriteDeps,
    tree: StagedTree,
    ops: Sequence[ApplyOp],
    *,
    continue_on_error: bool,
    refusals: Mapping[int, Exception],
    progress: ProgressSink,
) -> tuple[tuple[_Ran, ...], bool]:
    """Stage every op in order on ``tree``; an op in ``refusals`` is refused with its error
    unrun. Returns the results and whether an atomic batch aborted."""
    ran: list[_Ran] = []
    hashes: dict[str, str] = {}
    now = deps.clock.now()
    if ops:
        progress.start(PHASE_APPLYING, len(ops))
    for index, op in enumerate(ops):
        try:
            if index in refusals:
                raise refusals[index]
            ran.append(_run_op(deps, tree, index, op, now=now, hashes=hashes))
        except OP_REFUSALS as error:
            refused = _Ran(result=_refused(index, op, error))
            if not continue_on_error:
                progress.finish()
                return _skipped_batch(ops, refused), True
            ran.append(refused)
        progress.advance()
    if ops:
        progress.finish()
    return tuple(ran), False


def _with_conflicts(deps: WriteDeps, tree: StagedTree, ran: Sequence[_Ran]) -> tuple[_Ran, ...]:
    """Each staged write's result with its conflicts, from one lookup for the batch."""
    writes = [r for r in ran if r.claim is not None]
    found = conflicts_for(deps.assists, tree, [r.claim for r in writes if r.claim is not None])
    by_index = {r.result.index: c for r, c in zip(writes, found, strict=True) if c}
    return tuple(
        attrs.evolve(r, result=attrs.evolve(r.result, conflicts=by_index[r.result.index]))
        if r.result.index in by_index
        else r
        for r in ran
    )


def _supersede_all(
    deps: WriteDeps, tree: StagedTree, ops: Sequence[ApplyOp], ran: Sequence[_Ran]
) -> _Ran | None:
    """Stage each conflicting write's supersede; the refused op when one cannot be staged."""
    archived: dict[str, str] = {}
    now = deps.clock.now()
    for r in ran:
        if not r.result.conflicts or r.result.path is None:
            continue
        try:
            stage_supersede(
                deps, tree, r.result.path, r.result.conflicts, now=now, archived=archived
            )
        except OP_REFUSALS as error:
            return _Ran(result=_refused(r.result.index, ops[r.result.index], error))
    return None


def _conflict_refusals(ran: Sequence[_Ran]) -> dict[int, Exception]:
    """``--on-conflict fail``: the refusal of each write that conflicts, by op index."""
    return {
        r.result.index: refuse_conflicts(r.result.path or "", r.result.conflicts)
        for r in ran
        if r.result.conflicts
    }


def apply_batch(
    deps: WriteDeps,
    ops: Sequence[ApplyOp],
    *,
    continue_on_error: bool = False,
    defaults: SessionDefaults | None = None,
    progress: ProgressSink = NO_PROGRESS,
    on_conflict: str = ON_CONFLICT_REPORT,
) -> ApplyResult:
    """Run a checked batch (``parse_apply_lines``) as one commit and one index pass.

    Each op sees the files earlier ops wrote, moved or linked. A write whose content equals an
    active non-task memory or an earlier op's write dedups (``ok``, ``deduped``). Each staged
    write carries its conflicts (see the module docstring for ``on_conflict``). The commit
    subject follows docs/cli-contract.md §3.2; the batch-wide session values become its trailers,
    and each written memory naming a session gets a ``wrote`` session link. ``progress`` hears of
    the applying phase (units: ops; an aborting batch finishes early) and the index pass's phases.

    Raises:
        IndexStale, EmbedModelMismatch: Before anything is written.
        PathRefused: A path the git writer refuses (a symlink out of the repository); nothing
            is written.
        HeadMoved: Other writers won every retry.
        StorageFailure, GitFailure: The store failed; nothing is written before the commit.
        InvalidInput: ``on_conflict`` is not a mode.
    """
    session = defaults or SessionDefaults()
    checked_on_conflict(on_conflict)
    fails = on_conflict == ON_CONFLICT_FAIL

    def plan(tree: StagedTree) -> Plan[tuple[tuple[_Ran, ...], bool]]:
        refusals: dict[int, Exception] = {}
        if fails and continue_on_error:
            # Which writes conflict is known only once every op is staged: learn it on a
            # scratch tree of the same HEAD, then stage for real with those writes refused.
            scratch = StagedTree.load(deps.git)
            probed, _ = _stage_ops(
                deps, scratch, ops, continue_on_error=True, refusals={}, progress=NO_PROGRESS
            )
            refusals = _conflict_refusals(_with_conflicts(deps, scratch, probed))
        ran, aborted = _stage_ops(
            deps,
            tree,
            ops,
            continue_on_error=continue_on_error,
            refusals=refusals,
            progress=progress,
        )
        if aborted:
            return Plan(outcome=(ran, True), message=None)
        ran = _with_conflicts(deps, tree, ran)
        if on_conflict == ON_CONFLICT_SUPERSEDE:
            refused = _supersede_all(deps, tree, ops, ran)
            if refused is not None:
                return Plan(outcome=(_skipped_batch(ops, refused), True), message=None)
        if fails and not continue_on_error:
            first = next(iter(_conflict_refusals(ran).items()), None)
            if first is not None:
                index, error = first
                refused = _Ran(result=_refused(index, ops[index], error))
                return Plan(outcome=(_skipped_batch(ops, refused), True), message=None)
        changed = [r for r in ran if r.changed]
        if not changed:
            return Plan(outcome=(ran, False), message=None)
        names = tuple(r.result.op for r in changed)
        subject = batch_subject(names, changed[0].title if len(changed) == 1 else None)
        message = commit_message(
            OP_BATCH, subject, session_id=session.session_id, prompt_id=session.prompt_id
        )
        return Plan(outcome=(ran, False), message=message)

    landed = run_mutation(deps, plan, progress=progress)
    ran, aborted = landed.outcome
    if landed.commit_sha is not None:
        record_links(deps, "wrote", [r.session for r in ran if r.session is not None])
    results = tuple(r.result for r in ran)
    return ApplyResult(
        results=results,
        summary=summary_of(results),
        commit_sha=landed.commit_sha,
        aborted=aborted,
        indexed=landed.indexed,
    )
