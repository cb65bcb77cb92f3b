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

The near-duplicate assist (``use_cases/near_duplicates``) also runs once for the batch: one
embedder call for the written first chunks and one lookup. ``near`` ``fail`` refuses a write with
near-duplicates as ``on_conflict`` ``fail`` refuses a conflicting one (an atomic batch aborts at
the lowest such op); ``skip`` leaves such writes out (``ok``, ``near_duplicate_skipped``) and
commits the rest, which needs the same scratch-tree probe first. Helpers: ``apply_assists``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Final

from memhtml.app.apply_ops import (
    OP_ARCHIVE,
    OP_LINK,
    OP_WRITE,
    ApplyOp,
    LinkOp,
    SessionDefaults,
    WriteOp,
)
from memhtml.app.errors import DirtyTree, FactConflict, NearDuplicateFound
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.apply_assists import (
    Ran,
    conflict_refusals,
    near_from,
    near_refusals,
    near_skipped,
    with_conflicts,
    with_near,
)
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
    checked_on_conflict,
)
from memhtml.app.use_cases.link import stage_link
from memhtml.app.use_cases.mutation import Plan, record_links, run_mutation
from memhtml.app.use_cases.near_duplicates import (
    ON_NEAR_FAIL,
    ON_NEAR_SKIP,
    NearCheck,
    NearDuplicate,
    NearPolicy,
    checked_near_policy,
    near_ports,
)
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
    NearDuplicateFound,
)


def _run_op(
    deps: WriteDeps,
    tree: StagedTree,
    index: int,
    op: ApplyOp,
    *,
    now: dt.datetime,
    hashes: dict[str, str],
) -> Ran:
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
            return Ran(result=result)
        request = op.request
        session = (staged.path, request.session_id, request.prompt_id, request.turn_uuid)
        return Ran(
            result=result,
            changed=True,
            title=staged.title,
            session=session,
            claim=staged.claim(),
            text=staged.text,
        )
    if isinstance(op, LinkOp):
        link = stage_link(deps, tree, op.src, op.rel, op.dst)
        result = OpResult(index=index, op=OP_LINK, ok=True, path=link.src_path)
        return Ran(result=result, changed=link.created)
    checked_reason(op.reason)
    moved = stage_archive(deps, tree, op.path, now=now)
    return Ran(
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


def _skipped_batch(ops: Sequence[ApplyOp], refused: Ran) -> tuple[Ran, ...]:
    """An aborted atomic batch: the refused op's result, every other op skipped."""
    at = refused.result.index
    return tuple(
        refused
        if i == at
        else Ran(result=OpResult(index=i, op=_op_name(o), ok=False, skipped=True))
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
    skips: Mapping[int, tuple[NearDuplicate, ...]] | None = None,
) -> tuple[tuple[Ran, ...], bool]:
    """Stage every op in order on ``tree``; an op in ``refusals`` is refused with its error
    unrun, an op in ``skips`` (a write with near-duplicates) is left out, ``ok``. Returns the
    results and whether an atomic batch aborted."""
    ran: list[Ran] = []
    hashes: dict[str, str] = {}
    now = deps.clock.now()
    if ops:
        progress.start(PHASE_APPLYING, len(ops))
    for index, op in enumerate(ops):
        near = (skips or {}).get(index)
        if near:
            ran.append(Ran(result=near_skipped(index, near)))
            progress.advance()
            continue
        try:
            if index in refusals:
                raise refusals[index]
            ran.append(_run_op(deps, tree, index, op, now=now, hashes=hashes))
        except OP_REFUSALS as error:
            refused = Ran(result=_refused(index, op, error))
            if not continue_on_error:
                progress.finish()
                return _skipped_batch(ops, refused), True
            ran.append(refused)
        progress.advance()
    if ops:
        progress.finish()
    return tuple(ran), False


def _supersede_all(
    deps: WriteDeps, tree: StagedTree, ops: Sequence[ApplyOp], ran: Sequence[Ran]
) -> Ran | None:
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
            return Ran(result=_refused(r.result.index, ops[r.result.index], error))
    return None


def apply_batch(
    deps: WriteDeps,
    ops: Sequence[ApplyOp],
    *,
    continue_on_error: bool = False,
    defaults: SessionDefaults | None = None,
    progress: ProgressSink = NO_PROGRESS,
    on_conflict: str = ON_CONFLICT_REPORT,
    near: NearPolicy | None = None,
) -> ApplyResult:
    """Run a checked batch (``parse_apply_lines``) as one commit and one index pass.

    Each op sees the files earlier ops wrote, moved or linked. A write whose content equals an
    active non-task memory or an earlier op's write dedups (``ok``, ``deduped``). Each staged
    write carries its conflicts and near-duplicates (see the module docstring for
    ``on_conflict`` and ``near``). The commit subject follows docs/cli-contract.md §3.2; the
    batch-wide session values become its trailers, and each written memory naming a session
    gets a ``wrote`` session link. ``progress`` hears of the applying phase (units: ops; an
    aborting batch finishes early) and the index pass's phases.

    Raises:
        IndexStale, EmbedModelMismatch: Before anything is written.
        PathRefused: A path the git writer refuses (a symlink out of the repository); nothing
            is written.
        HeadMoved: Other writers won every retry.
        StorageFailure, GitFailure: The store failed; nothing is written before the commit.
        InvalidInput: ``on_conflict`` is not a mode, or ``near`` is not a usable policy.
    """
    session = defaults or SessionDefaults()
    checked_on_conflict(on_conflict)
    policy = checked_near_policy(near or NearPolicy())
    fails = on_conflict == ON_CONFLICT_FAIL
    near_fails = policy.mode == ON_NEAR_FAIL
    ports = near_ports(deps)
    cache: dict[str, bytes] = {}

    def plan(tree: StagedTree) -> Plan[tuple[tuple[Ran, ...], bool, NearCheck]]:
        refusals: dict[int, Exception] = {}
        skips: dict[int, tuple[NearDuplicate, ...]] = {}
        probed: tuple[Ran, ...] = ()
        probed_near: NearCheck | None = None
        if ((fails or near_fails) and continue_on_error) or policy.mode == ON_NEAR_SKIP:
            # Which writes conflict or nearly repeat is known only once every op is staged:
            # learn it on a scratch tree of the same HEAD, then stage for real with those
            # writes refused or left out.
            scratch = tree.scratch()
            staged, _ = _stage_ops(
                deps, scratch, ops, continue_on_error=True, refusals={}, progress=NO_PROGRESS
            )
            probed, probed_near = with_near(ports, scratch, staged, policy, cache)
            if fails and continue_on_error:
                refusals = conflict_refusals(with_conflicts(deps, scratch, staged))
            if near_fails and continue_on_error:
                refusals = {**near_refusals(probed), **refusals}
            if policy.mode == ON_NEAR_SKIP:
                skips = {
                    r.result.index: r.result.near_duplicates
                    for r in probed
                    if r.result.near_duplicates and r.result.index not in refusals
                }
        ran, aborted = _stage_ops(
            deps,
            tree,
            ops,
            continue_on_error=continue_on_error,
            refusals=refusals,
            progress=progress,
            skips=skips,
        )
        if aborted:
            return Plan(outcome=(ran, True, NearCheck(found=())), message=None)
        ran = with_conflicts(deps, tree, ran)
        if probed_near is None:
            ran, check = with_near(ports, tree, ran, policy, cache)
        else:
            # The probe asked already: the same texts against the same index.
            ran, check = near_from(probed, ran), probed_near
        if not continue_on_error:
            found = near_refusals(ran) if near_fails else {}
            found.update(conflict_refusals(ran) if fails else {})
            if found:
                index = min(found)
                refused = Ran(result=_refused(index, ops[index], found[index]))
                return Plan(outcome=(_skipped_batch(ops, refused), True, check), message=None)
        if on_conflict == ON_CONFLICT_SUPERSEDE:
            superseding = _supersede_all(deps, tree, ops, ran)
            if superseding is not None:
                return Plan(outcome=(_skipped_batch(ops, superseding), True, check), message=None)
        changed = [r for r in ran if r.changed]
        if not changed:
            return Plan(outcome=(ran, False, check), message=None)
        names = tuple(r.result.op for r in changed)
        subject = batch_subject(names, changed[0].title if len(changed) == 1 else None)
        message = commit_message(
            OP_BATCH, subject, session_id=session.session_id, prompt_id=session.prompt_id
        )
        return Plan(outcome=(ran, False, check), message=message, vectors=check.vectors)

    landed = run_mutation(deps, plan, progress=progress)
    ran, aborted, check = landed.outcome
    if landed.commit_sha is not None:
        record_links(deps, "wrote", [r.session for r in ran if r.session is not None])
    results = tuple(r.result for r in ran)
    return ApplyResult(
        results=results,
        summary=summary_of(results),
        commit_sha=landed.commit_sha,
        aborted=aborted,
        indexed=landed.indexed,
        near_duplicate_note=check.note,
    )
