"""``archive``: move a memory under ``archive/<YYYY>/`` and stamp it, as one commit."""

from __future__ import annotations

import datetime as dt

import attrs

from memhtml.app.errors import MissingArgument
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.landed_request import landed_move
from memhtml.app.use_cases.memory_files import (
    archive_destination,
    existing_memory,
    require_active,
    require_clean,
    text_of,
)
from memhtml.app.use_cases.mutation import Plan, run_mutation
from memhtml.domain.commit_messages import OP_ARCHIVE, archive_subject, commit_message
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.errors import NotFound
from memhtml.domain.model import collapse_whitespace


@attrs.frozen(kw_only=True)
class ArchiveResult:
    """``memory.archived``.

    Attributes:
        path: The file's path before the move.
        archived_path: Where it is now (the same key ``correct`` reports).
        commit_sha: The commit.
        indexed: False only when the index update after the commit failed.
    """

    path: str
    archived_path: str
    commit_sha: str | None
    indexed: bool


@attrs.frozen(kw_only=True)
class StagedArchive:
    """One archive move planned on a staged tree (shared by ``archive`` and ``apply``)."""

    path: str
    archive_path: str


def checked_reason(reason: str) -> str:
    """The reason with whitespace collapsed.

    Raises:
        MissingArgument: The reason is blank; every archive says why.
    """
    cleaned = collapse_whitespace(reason)
    if not cleaned:
        raise MissingArgument("archive needs a reason")
    return cleaned


def stage_archive(
    deps: WriteDeps, tree: StagedTree, raw_path: str, *, now: dt.datetime
) -> StagedArchive:
    """Stage the move of an active memory to ``archive/<UTC year>/<path>``, stamped.

    The stamps are ``status=archived``, ``memhtml-archived`` and ``memhtml-updated``; the
    article is untouched, so the content hash and the chunk vectors survive the move. Inbound
    links are left as they are (``doctor`` reports them).

    Raises:
        InvalidInput: The path could leave the repository.
        NotFound: No memory at the path.
        InvalidMemory: The file is already archived, or is not UTF-8.
        DirtyTree: The file has uncommitted edits.
    """
    path = existing_memory(tree, raw_path, "path")
    require_active(path)
    require_clean(tree, path)
    stamped = deps.codec.mark_archived(text_of(tree.read(path)), utc_stamp(now))
    destination = archive_destination(tree, path, now.year)
    tree.move(path, destination, stamped.encode("utf-8"))
    return StagedArchive(path=path, archive_path=destination)


def archive_memory(deps: WriteDeps, raw_path: str, reason: str) -> ArchiveResult:
    """Archive one memory as one commit ``memhtml(archive): <path> — <reason>``.

    Raises:
        MissingArgument: A blank reason.
        InvalidInput, NotFound, InvalidMemory, DirtyTree: See ``stage_archive``.
        IndexStale, EmbedModelMismatch: Before anything is written.
        HeadMoved: Other writers won every retry.

    A target already moved by this request's own commit (``deps.request_id``) is reported as
    that commit's result, not ``NotFound`` (``landed_request.py``).
    """
    why = checked_reason(reason)

    def plan(tree: StagedTree) -> Plan[StagedArchive]:
        staged = stage_archive(deps, tree, raw_path, now=deps.clock.now())
        message = commit_message(OP_ARCHIVE, archive_subject(staged.path, why))
        return Plan(outcome=staged, message=message)

    try:
        landed = run_mutation(deps, plan)
    except NotFound:
        done = landed_move(deps.git, deps.request_id, raw_path)
        if done is None:
            raise
        # This command's first run (a warm helper lost mid-command) archived it already.
        return ArchiveResult(
            path=done.path,
            archived_path=done.archived_path,
            commit_sha=done.commit_sha,
            indexed=True,
        )
    return ArchiveResult(
        path=landed.outcome.path,
        archived_path=landed.outcome.archive_path,
        commit_sha=landed.commit_sha,
        indexed=landed.indexed,
    )
