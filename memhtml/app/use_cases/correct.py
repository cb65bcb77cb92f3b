"""``correct``: archive a memory and write its replacement, linked both ways, in one commit."""

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
from memhtml.app.use_cases.landed_request import landed_move
from memhtml.app.use_cases.memory_files import (
    archive_destination,
    existing_memory,
    require_active,
    require_clean,
    text_of,
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
from memhtml.app.use_cases.write import active_holder, placed_path
from memhtml.domain import meta_names
from memhtml.domain.commit_messages import OP_CORRECT, commit_message
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.errors import DuplicateContent, NotFound
from memhtml.domain.model import CONCEPT_ENTITY_TYPE, LANG_ENTITY_TYPE, Link, MemoryDoc
from memhtml.domain.paths import workspace_of
from memhtml.domain.user_instants import normalize_user_instant
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.domain.write_requests import WriteRequest, checked, render_inputs


@attrs.frozen(kw_only=True)
class CorrectRequest:
    """The replacement for a memory. ``None`` routing fields default to the target's own.

    Attributes:
        title: The new title (required).
        claim, body, article_html: The new article, as for ``write``.
        memory_type: Defaults to the target's type.
        tags, entities, workspace: Default to the target's (its meta entities, its
            ``projects/<workspace>/`` folder), so the correction lands beside the original.
        reason: Why, recorded in the commit message body.
        event_at, valid_from: Caller instants; ``valid_from`` sets the validity boundary.
        importance, confidence: Optional metas of the new file.
        session_id, prompt_id, turn_uuid: Metas of the new file and commit trailers.
    """

    title: str
    claim: str | None = None
    body: tuple[str, ...] = ()
    article_html: str | None = None
    memory_type: str | None = None
    tags: tuple[str, ...] | None = None
    entities: tuple[str, ...] | None = None
    workspace: str | None = None
    reason: str | None = None
    event_at: str | None = None
    valid_from: str | None = None
    importance: int | None = None
    confidence: float | None = None
    session_id: str | None = None
    prompt_id: str | None = None
    turn_uuid: str | None = None


@attrs.frozen(kw_only=True)
class CorrectResult:
    """``memory.corrected``.

    Attributes:
        path: The new memory (the target, untouched, when a near-duplicate skipped it).
        archived_path: Where the corrected memory went; ``None`` when skipped.
        commit_sha: The one commit holding both changes.
        content_hash: The new memory's hash.
        indexed: False only when the index update after the commit failed.
        conflicts: Other live memories stating the new memory's relation with other values
            (the corrected memory, archived by the same commit, never counts).
        near_duplicates, near_duplicate_skipped, near_duplicate_note: As in ``WriteResult``;
            the corrected memory is never its successor's near-duplicate.
    """

    path: str
    archived_path: str | None
    commit_sha: str | None
    content_hash: str
    indexed: bool
    conflicts: tuple[ConflictingMemory, ...] = ()
    near_duplicates: tuple[NearDuplicate, ...] = ()
    near_duplicate_skipped: bool = False
    near_duplicate_note: str | None = None


def _meta_entities(doc: MemoryDoc) -> tuple[str, ...]:
    """The target's authored entities: the ``concept:``/``lang:`` rows its article derives are
    left out, so they are not frozen into metas the new article may no longer justify."""
    derived = {(CONCEPT_ENTITY_TYPE, term) for term in doc.defined_terms}
    derived |= {(LANG_ENTITY_TYPE, lang) for lang in doc.code_langs}
    return tuple(e.ref for e in doc.entities if (e.type, e.name) not in derived)


def _write_request(correction: CorrectRequest, target: str, old: MemoryDoc) -> WriteRequest:
    return checked(
        WriteRequest(
            title=correction.title,
            memory_type=correction.memory_type or old.memory_type,
            claim=correction.claim,
            body=correction.body,
            article_html=correction.article_html,
            workspace=correction.workspace or workspace_of(target),
            tags=old.tags if correction.tags is None else correction.tags,
            entities=_meta_entities(old) if correction.entities is None else correction.entities,
            importance=correction.importance,
            confidence=correction.confidence,
            event_at=correction.event_at,
            valid_from=correction.valid_from,
            session_id=correction.session_id,
            prompt_id=correction.prompt_id,
            turn_uuid=correction.turn_uuid,
        )
    )


def _stage_correction(
    deps: WriteDeps, tree: StagedTree, raw_target: str, correction: CorrectRequest
) -> tuple[str, str, str, WrittenClaim, WrittenText]:
    """Stage the archive move and the new file; returns (new path, archived path, hash, the
    new memory's claim and first chunk)."""
    target = existing_memory(tree, raw_target, "target")
    require_active(target)
    require_clean(tree, target)
    old_data = tree.read(target)
    old = deps.codec.parse(old_data)
    request = _write_request(correction, target, old)
    now: dt.datetime = deps.clock.now()
    stamp = utc_stamp(now)
    archived = archive_destination(tree, target, now.year)
    supersedes = (Link("supersedes", archived),)
    data = deps.codec.render(render_inputs(request, now=stamp, links=supersedes)).encode()
    doc = deps.codec.parse(data)
    # The boundary between the two validity windows: the caller's valid-from, else the new
    # fact's own first <time>, else now.
    boundary = request.valid_from
    if boundary is None:
        event = doc.event_at
        boundary = stamp if event is None else normalize_user_instant(event, "event time")
        inputs = render_inputs(request, now=stamp, links=supersedes, valid_from=boundary)
        data = deps.codec.render(inputs).encode()
    if request.memory_type != TASK_TYPE:
        holder = active_holder(deps, tree, doc.content_hash)
        if holder is not None:
            raise DuplicateContent(f"{holder} already holds this content")
    # An earlier end the old memory already stated stays: the correction cannot extend it.
    until = old.valid_until if old.valid_until and old.valid_until < boundary else boundary
    # Moved first, so an unchanged title and routing give the new memory the old path.
    tree.move(target, archived, old_data)
    path = placed_path(tree, request, stamp)
    edit = deps.codec.set_meta
    stamped = deps.codec.mark_archived(text_of(old_data), stamp)
    stamped = edit(stamped, meta_names.VALID_UNTIL, until)
    stamped = edit(stamped, meta_names.SUPERSEDED_BY, "/" + path)
    tree.write(archived, stamped.encode("utf-8"))
    tree.write(path, data)
    claim = WrittenClaim(path=path, gist=doc.gist, memory_type=request.memory_type)
    return path, archived, doc.content_hash, claim, written_text(path, doc)


def correct_memory(
    deps: WriteDeps,
    raw_target: str,
    correction: CorrectRequest,
    *,
    on_conflict: str = ON_CONFLICT_REPORT,
    near: NearPolicy | None = None,
) -> CorrectResult:
    """Replace a memory: one commit moves it to ``archive/<YYYY>/`` and writes its successor.

    The old file is stamped ``status=archived``, ``memhtml-archived``, ``memhtml-valid-until``
    (the new memory's valid-from, else its first ``<time>``, else now; an earlier existing
    value wins) and ``memhtml-superseded-by``; the new one carries ``memhtml-valid-from`` and a
    ``supersedes`` link to the archived path. A ``corrected`` session link names the new file.
    The near-duplicate assist runs as in ``write`` (``near``); with ``skip`` nothing is
    committed and the target stays as it was.

    Raises:
        NotFound: No memory at the target. Neither this nor ``DuplicateContent`` is raised
            when this request's own commit (``deps.request_id``) corrected the target
            already: that commit's result is returned (``landed_request.py``; conflicts and
            near-duplicates are not reported again).
        InvalidMemory: The target is archived, or the new file breaks docs/format.md §10.
        DuplicateContent: The new content equals an active non-task memory (target included).
        DirtyTree: The target has uncommitted edits.
        InvalidInput: A malformed request or a path leaving the repository.
        IndexStale, EmbedModelMismatch: Before anything is written.
        HeadMoved: Other writers won every retry.
        FactConflict: ``on_conflict`` is ``fail`` and the new memory conflicts with another
            live one; nothing is written.
        NearDuplicateFound: ``near.mode`` is ``fail`` and the new memory nearly repeats
            another live one; nothing is written.
    """
    checked_on_conflict(on_conflict)
    policy = checked_near_policy(near or NearPolicy())
    cache: dict[str, bytes] = {}

    def plan(
        tree: StagedTree,
    ) -> Plan[tuple[str, str, str, tuple[ConflictingMemory, ...], NearCheck]]:
        path, archived, content_hash, claim, text = _stage_correction(
            deps, tree, raw_target, correction
        )
        (conflicts,) = conflicts_for(deps.assists, tree, [claim])
        if conflicts and on_conflict == ON_CONFLICT_FAIL:
            raise refuse_conflicts(path, conflicts)
        check = near_duplicates_for(near_ports(deps), tree, [text], policy, cache=cache)
        (found,) = check.found
        if found and policy.mode == ON_NEAR_FAIL:
            raise refuse_near_duplicates(path, found)
        outcome = (path, archived, content_hash, conflicts, check)
        if found and policy.mode == ON_NEAR_SKIP:
            return Plan(outcome=outcome, message=None)
        if conflicts and on_conflict == ON_CONFLICT_SUPERSEDE:
            stage_supersede(deps, tree, path, conflicts, now=deps.clock.now(), archived={})
        message = commit_message(
            OP_CORRECT,
            correction.title,
            body=correction.reason,
            session_id=correction.session_id,
            prompt_id=correction.prompt_id,
        )
        return Plan(outcome=outcome, message=message, vectors=check.vectors)

    try:
        landed = run_mutation(deps, plan)
    except (NotFound, DuplicateContent):
        # Run again after its first run committed: the target is gone, or (same title) holds
        # the successor, whose content this run would write once more.
        replayed = _replayed(deps, raw_target)
        if replayed is None:
            raise
        return replayed
    path, archived, content_hash, conflicts, check = landed.outcome
    (found,) = check.found
    if landed.commit_sha is None:
        return CorrectResult(
            path=raw_target,
            archived_path=None,
            commit_sha=None,
            content_hash=content_hash,
            indexed=landed.indexed,
            conflicts=conflicts,
            near_duplicates=found,
            near_duplicate_skipped=True,
            near_duplicate_note=check.note,
        )
    touched = [(path, correction.session_id, correction.prompt_id, correction.turn_uuid)]
    record_links(deps, "corrected", touched)
    return CorrectResult(
        path=path,
        archived_path=archived,
        commit_sha=landed.commit_sha,
        content_hash=content_hash,
        indexed=landed.indexed,
        conflicts=conflicts,
        near_duplicates=found,
        near_duplicate_note=check.note,
    )


def _replayed(deps: WriteDeps, raw_target: str) -> CorrectResult | None:
    """The result of this request's own earlier correction of ``raw_target``, read from its
    commit; ``None`` when there is none."""
    done = landed_move(deps.git, deps.request_id, raw_target)
    if done is None or done.successor is None:
        return None
    successor = done.successor
    (entry,) = deps.git.list_tree(done.commit_sha, [successor])
    doc = deps.codec.parse(deps.git.read_blobs([entry.blob_sha])[entry.blob_sha])
    return CorrectResult(
        path=successor,
        archived_path=done.archived_path,
        commit_sha=done.commit_sha,
        content_hash=doc.content_hash,
        indexed=True,
    )
