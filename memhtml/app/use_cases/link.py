"""``link``: add one edge of the closed vocabulary to the source's head (docs/decisions.md §15)."""

from __future__ import annotations

import attrs

from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.memory_files import existing_memory, require_clean, text_of
from memhtml.app.use_cases.mutation import Plan, run_mutation
from memhtml.domain.commit_messages import OP_LINK, commit_message, link_subject
from memhtml.domain.errors import InvalidInput
from memhtml.domain.placement import repo_path
from memhtml.domain.vocabulary import LINKABLE_RELS, TASK_TYPE, edge_class_of


@attrs.frozen(kw_only=True)
class LinkResult:
    """``memory.linked``.

    Attributes:
        src_path, dst_path: The edge's ends, as repo paths.
        rel: The relation.
        created: The edge is new; False when the source already had it (no commit).
        commit_sha: The commit, or ``None`` when nothing changed.
        indexed: False only when the index update after the commit failed.
    """

    src_path: str
    dst_path: str
    rel: str
    created: bool
    commit_sha: str | None
    indexed: bool


@attrs.frozen(kw_only=True)
class StagedLink:
    """One edge planned on a staged tree (shared by ``link`` and ``apply``)."""

    src_path: str
    dst_path: str
    rel: str
    created: bool


def checked_rel(rel: str) -> str:
    """``rel`` when a caller may write it.

    Raises:
        InvalidInput: A person or provenance relation (the system's own bookkeeping), or a
            name outside the vocabulary.
    """
    if rel in LINKABLE_RELS:
        return rel
    if edge_class_of(rel) is not None:
        raise InvalidInput(f"{rel} edges are written by the system only")
    raise InvalidInput(f"rel must be one of {', '.join(LINKABLE_RELS)}, not {rel!r}")


def stage_link(
    deps: WriteDeps, tree: StagedTree, raw_src: str, rel: str, raw_dst: str
) -> StagedLink:
    """Stage ``<link rel href>`` in the source's head, unless that edge is already there.

    Memory relations join two non-tasks; ``blocks`` and ``subtask_of`` join two tasks. Either
    end may be archived or written earlier in the same batch; the article, hence the content
    hash, is never touched.

    Raises:
        InvalidInput: A relation callers may not write, ``src == dst``, a wrong endpoint type,
            or a path leaving the repository.
        NotFound: An end does not exist.
        InvalidMemory: An end fails to parse.
        DirtyTree: The source has uncommitted edits.
    """
    rel = checked_rel(rel)
    if repo_path(raw_src, "src") == repo_path(raw_dst, "dst"):
        raise InvalidInput("a memory cannot link to itself")
    src = existing_memory(tree, raw_src, "src")
    dst = existing_memory(tree, raw_dst, "dst")
    src_data = tree.read(src)
    src_is_task = deps.codec.parse(src_data).memory_type == TASK_TYPE
    dst_is_task = deps.codec.parse(tree.read(dst)).memory_type == TASK_TYPE
    if edge_class_of(rel) == "task":
        if not (src_is_task and dst_is_task):
            raise InvalidInput(f"{rel} joins two tasks")
    elif src_is_task or dst_is_task:
        raise InvalidInput(f"{rel} joins two memories that are not tasks")
    text = text_of(src_data)
    linked = deps.codec.add_link(text, rel, dst)
    if linked == text:
        return StagedLink(src_path=src, dst_path=dst, rel=rel, created=False)
    require_clean(tree, src)
    tree.write(src, linked.encode("utf-8"))
    return StagedLink(src_path=src, dst_path=dst, rel=rel, created=True)


def link_memories(deps: WriteDeps, raw_src: str, rel: str, raw_dst: str) -> LinkResult:
    """Add one edge as one commit ``memhtml(link): <rel> <src> -> <dst>``; none if it exists.

    Raises:
        InvalidInput, NotFound, InvalidMemory, DirtyTree: See ``stage_link``.
        IndexStale, EmbedModelMismatch: Before anything is written.
        HeadMoved: Other writers won every retry.
    """
    checked_rel(rel)

    def plan(tree: StagedTree) -> Plan[StagedLink]:
        staged = stage_link(deps, tree, raw_src, rel, raw_dst)
        if not staged.created:
            return Plan(outcome=staged, message=None)
        subject = link_subject(staged.rel, staged.src_path, staged.dst_path)
        return Plan(outcome=staged, message=commit_message(OP_LINK, subject))

    landed = run_mutation(deps, plan)
    staged = landed.outcome
    return LinkResult(
        src_path=staged.src_path,
        dst_path=staged.dst_path,
        rel=staged.rel,
        created=staged.created,
        commit_sha=landed.commit_sha,
        indexed=landed.indexed,
    )
