"""``write``: render one memory, refuse it whole or dedup it, place it, commit it
(docs/cli-contract.md §3.2)."""

from __future__ import annotations

import datetime as dt

import attrs

from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.conflicts import (
    ON_CONFLICT_FAIL,
    ON_CONFLICT_REPORT,
    ON_CONFLICT_SUPERSEDE,
    ConflictingMemory,
    WrittenClaim,
    checked_on_conflict,
    conflicts_for,
    refuse_conflicts,
)
from memhtml.app.use_cases.mutation import Plan, record_links, run_mutation
from memhtml.app.use_cases.near_duplicates import (
    ON_NEAR_FAIL,
    ON_NEAR_SKIP,
    NearCheck,
    NearDuplicate,
    NearPolicy,
    WrittenText,
    checked_near_policy,
    near_duplicates_for,
    near_ports,
    refuse_near_duplicates,
    written_text,
)
from memhtml.app.use_cases.supersede import stage_supersede
from memhtml.domain.commit_messages import OP_WRITE, commit_message
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.errors import Conflict
from memhtml.domain.paths import placement_dir
from memhtml.domain.placement import explicit_path, free_path
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.domain.write_requests import WriteRequest, checked, render_inputs


@attrs.frozen(kw_only=True)
class WriteResult:
    """``memory.written``.

    Attributes:
        path: Where the memory is: the new file, or the existing one when deduped.
        created: A new file was committed.
        deduped: An active non-task memory already held this content; nothing was written.
        existing_path: That memory's path when deduped, else ``None``.
        commit_sha: The commit, or ``None`` when deduped.
        content_hash: The rendered article's hash.
        indexed: False only when the commit landed and the index update after it failed.
        conflicts: Live memories stating the same relation with other values
            (``use_cases/conflicts``); empty when deduped.
        near_duplicates: Live memories whose first chunk is near this one's
            (``use_cases/near_duplicates``), most similar first; empty when deduped.
        near_duplicate_skipped: ``--on-near-duplicate skip`` left the memory unwritten;
            ``path`` is then its nearest duplicate.
        near_duplicate_note: Why near-duplicates were not (all) checked, else ``None``.
    """

    path: str
    created: bool
    deduped: bool
    existing_path: str | None
    commit_sha: str | None
    content_hash: str
    indexed: bool
    conflicts: tuple[ConflictingMemory, ...] = ()
    near_duplicates: tuple[NearDuplicate, ...] = ()
    near_duplicate_skipped: bool = False
    near_duplicate_note: str | None = None


@attrs.frozen(kw_only=True)
class StagedWrite:
    """One write planned on a staged tree (shared by ``write`` and ``apply``).

    Attributes:
        path: The new path, or the existing one when deduped.
        deduped: Nothing was staged because the content already lives at ``path``.
        content_hash: The rendered article's hash.
        title: The memory's title, for the commit subject.
        gist, memory_type: What the conflict assist compares (the parsed claim).
        text: What the near-duplicate assist compares (the first chunk); ``None`` when
            deduped.
    """

    path: str
    deduped: bool
    content_hash: str
    title: str
    gist: str = ""
    memory_type: str = ""
    text: WrittenText | None = None

    def claim(self) -> WrittenClaim:
        """The written memory as the conflict assist sees it."""
        return WrittenClaim(path=self.path, gist=self.gist, memory_type=self.memory_type)


def stage_write(
    deps: WriteDeps,
    tree: StagedTree,
    request: WriteRequest,
    *,
    now: dt.datetime,
    batch_hashes: dict[str, str],
) -> StagedWrite:
    """Render, check, dedup and place one memory on ``tree``; stage it unless deduped.

    Dedup looks at the index (active non-task rows whose file is still in the staged tree)
    and at ``batch_hashes``, the content this batch already staged; a new non-task file adds
    its hash there. Everything is decided before anything is staged, so a refused write leaves
    ``tree`` and ``batch_hashes`` as they were. The file is parsed once, by the renderer's own
    check; that document gives the hash and is staged beside the bytes for the index update.

    Raises:
        InvalidInput: A malformed request (see ``checked``) or a path leaving the repository.
        InvalidMemory: The rendered file breaks docs/format.md §10, or ``strict_path`` refused.
        Conflict: The explicit path is occupied (never suffixed).
    """
    request = checked(request)
    explicit = explicit_path(request.path, strict=request.strict_path)
    stamp = utc_stamp(now)
    rendered = deps.codec.render_parsed(render_inputs(request, now=stamp))
    data = rendered.text.encode("utf-8")
    content_hash = rendered.doc.content_hash
    dedups = request.memory_type != TASK_TYPE
    if dedups:
        existing = batch_hashes.get(content_hash) or active_holder(deps, tree, content_hash)
        if existing is not None:
            return StagedWrite(
                path=existing, deduped=True, content_hash=content_hash, title=request.title
            )
    if explicit is not None:
        if not tree.is_free(explicit):
            raise Conflict(f"{explicit} is occupied; choose another path")
        path = explicit
    else:
        path = placed_path(tree, request, stamp)
    tree.write(path, data, rendered.doc)
    if dedups:
        batch_hashes[content_hash] = path
    return StagedWrite(
        path=path,
        deduped=False,
        content_hash=content_hash,
        title=request.title,
        gist=rendered.doc.gist,
        memory_type=request.memory_type,
        text=written_text(path, rendered.doc),
    )


def placed_path(tree: StagedTree, request: WriteRequest, stamp: str) -> str:
    """The first free path placement gives ``request`` (docs/format.md §11 rules 2–7).

    Raises:
        Conflict: The placement folder lies under a file (a symlink, say) or every collision
            suffix is taken.
    """
    directory = placement_dir(request.memory_type, workspace=request.workspace, tags=request.tags)
    if not tree.is_usable_folder(directory):
        raise Conflict(f"{directory} is a file, not a folder; nothing can be placed under it")
    return free_path(directory, request.title, request.memory_type, stamp[:10], tree.is_free)


def active_holder(deps: WriteDeps, tree: StagedTree, content_hash: str) -> str | None:
    """The active non-task memory holding ``content_hash``, if its file is still in the tree.

    A file this batch archived or moved is still active in the index until the commit is
    indexed; its content is free to be written again.
    """
    found = deps.recorder.active_path_for_hash(content_hash)
    return found if found is not None and tree.exists(found) else None


def write_memory(
    deps: WriteDeps,
    request: WriteRequest,
    *,
    on_conflict: str = ON_CONFLICT_REPORT,
    near: NearPolicy | None = None,
) -> WriteResult:
    """Write one memory as one commit, or report the active memory that already holds it.

    Order: the request is checked; the index is brought level with the tree (refusing on a
    stale index or a model mismatch); the file is rendered and re-parsed (any violation
    refuses, the tree untouched); dedup; placement; the conflict assist (one lookup; with
    ``on_conflict`` ``fail`` a conflict refuses before the commit, with ``supersede`` the older
    memories are archived in the same commit); the near-duplicate assist (``near``: with
    ``fail`` a near-duplicate refuses, with ``skip`` nothing is committed); one commit; one
    index update; a ``wrote`` session link when a session is named.

    Raises:
        InvalidInput, InvalidMemory, Conflict: See ``stage_write``; nothing is written.
        IndexStale, EmbedModelMismatch: Before anything is written.
        HeadMoved: Other writers won every retry.
        FactConflict: ``on_conflict`` is ``fail`` and the memory conflicts; nothing is
            written.
        NearDuplicateFound: ``near.mode`` is ``fail`` and the memory has a near-duplicate;
            nothing is written.
    """
    request = checked(request)
    checked_on_conflict(on_conflict)
    policy = checked_near_policy(near or NearPolicy())
    cache: dict[str, bytes] = {}

    def plan(
        tree: StagedTree,
    ) -> Plan[tuple[StagedWrite, tuple[ConflictingMemory, ...], NearCheck]]:
        now = deps.clock.now()
        staged = stage_write(deps, tree, request, now=now, batch_hashes={})
        if staged.deduped:
            return Plan(outcome=(staged, (), NearCheck(found=((),))), message=None)
        (conflicts,) = conflicts_for(deps.assists, tree, [staged.claim()])
        if conflicts and on_conflict == ON_CONFLICT_FAIL:
            raise refuse_conflicts(staged.path, conflicts)
        texts = [] if staged.text is None else [staged.text]
        check = near_duplicates_for(near_ports(deps), tree, texts, policy, cache=cache)
        found = check.found[0] if check.found else ()
        if found and policy.mode == ON_NEAR_FAIL:
            raise refuse_near_duplicates(staged.path, found)
        if found and policy.mode == ON_NEAR_SKIP:
            return Plan(outcome=(staged, conflicts, check), message=None)
        if conflicts and on_conflict == ON_CONFLICT_SUPERSEDE:
            stage_supersede(deps, tree, staged.path, conflicts, now=now, archived={})
        message = commit_message(
            OP_WRITE, staged.title, session_id=request.session_id, prompt_id=request.prompt_id
        )
        return Plan(outcome=(staged, conflicts, check), message=message, vectors=check.vectors)

    landed = run_mutation(deps, plan)
    staged, conflicts, check = landed.outcome
    found = check.found[0] if check.found else ()
    if landed.commit_sha is not None:
        touched = [(staged.path, request.session_id, request.prompt_id, request.turn_uuid)]
        record_links(deps, "wrote", touched)
    skipped = bool(found) and policy.mode == ON_NEAR_SKIP
    return WriteResult(
        path=found[0].path if skipped else staged.path,
        created=landed.commit_sha is not None,
        deduped=staged.deduped,
        existing_path=staged.path if staged.deduped else None,
        commit_sha=landed.commit_sha,
        content_hash=staged.content_hash,
        indexed=landed.indexed,
        conflicts=conflicts,
        near_duplicates=found,
        near_duplicate_skipped=skipped,
        near_duplicate_note=check.note,
    )
