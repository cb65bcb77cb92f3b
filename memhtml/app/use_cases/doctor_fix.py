"""``doctor --fix``: repair dangling links in one commit, then prune orphan access rows.

Each dangling link (an authored ``<link>`` whose target no memory holds) is pointed at the
archived copy doctor found for it (``rewriteTo``: the file was archived, or moved under
``archive/<YYYY>/`` by hand), or dropped when there is none. Every edit lands in one commit,
``memhtml(link): repair <n> dangling links``, through the same mutation frame as ``link``, so
the index is updated before the plan (the dangling list is current) and after the commit (the
edges reflect it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Final

import attrs

from memhtml.app.errors import DirtyTree
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.memory_files import text_of
from memhtml.app.use_cases.mutation import Plan, run_mutation
from memhtml.app.use_cases.recovery_report import StoreFinding
from memhtml.domain.commit_messages import OP_LINK, commit_message
from memhtml.faults import fault_point
from memhtml.ports.health import DanglingLink, HealthProbe, OrphanPruner

logger = logging.getLogger("memhtml.doctor")

REPAIR_SUBJECT: Final = "repair {count} dangling links"
"""docs/cli-contract.md §3.1; the count is every link the commit rewrote or dropped."""


@attrs.frozen(kw_only=True)
class Repair:
    """``repaired`` in ``doctor.report`` after ``--fix``.

    Attributes:
        rewritten: Dangling links now pointing at their archived copy.
        dropped: Dangling links removed because no copy was found.
        pruned_access_rows: State rows deleted because no indexed memory has their path.
        commit_sha: The repair commit, or ``None`` when no link needed repairing.
        recovered: What a killed command or a damaged file had left, repaired as the store
            opened (issue 14).
    """

    rewritten: int
    dropped: int
    pruned_access_rows: int
    commit_sha: str | None
    recovered: tuple[StoreFinding, ...] = ()


@attrs.frozen(kw_only=True)
class FixPorts:
    """What ``--fix`` needs beside the write path.

    Attributes:
        deps: The mutation frame's collaborators (git, writer, indexer, clock…).
        probe: Finds the dangling links in the freshly updated index.
        pruner: Deletes orphan access rows.
        retarget: ``(html, rel, target, new_target)`` to the html with that link re-pointed
            (``memhtml.adapters.html.retarget_link``).
        drop: ``(html, rel, target)`` to the html without that link (``drop_link``).
    """

    deps: WriteDeps
    probe: HealthProbe
    pruner: OrphanPruner
    retarget: Callable[[str, str, str, str], str]
    drop: Callable[[str, str, str], str]


def destination(link: DanglingLink) -> str | None:
    """Where a dangling link should point now: its archived copy, else nowhere (drop it).

    A copy that is the link's own source would make a self-link, which no file may state.
    """
    if link.rewrite_to is None or link.rewrite_to == link.src_path:
        return None
    return link.rewrite_to


def blocking_paths(tree: StagedTree, dangling: tuple[DanglingLink, ...]) -> tuple[str, ...]:
    """Paths with uncommitted edits that a repair depends on, sorted.

    The source is rewritten, so its unsaved edits would be swept into the commit. The target
    and the copy are only read, but the dangling list comes from an index that includes the
    working tree: a target deleted without a commit, or a copy never committed, would have the
    commit drop or point a link by a state that git does not hold.
    """
    touched = {
        path
        for link in dangling
        for path in (link.src_path, link.dst_path, link.rewrite_to)
        if path is not None
    }
    return tuple(sorted(path for path in touched if tree.is_dirty(path)))


def stage_repairs(
    ports: FixPorts, tree: StagedTree, dangling: tuple[DanglingLink, ...]
) -> tuple[int, int]:
    """Stage every source's edits; return how many links were rewritten and dropped.

    A link whose target file is committed and unchanged is left alone: the index lacks it
    because it fails the format or duplicates another memory (doctor reports it as such), and
    fixing that file is the repair, not losing the link. So is a link its source states where
    the head editor does not look (outside the head). Neither is counted, so the counts say
    what the commit holds.

    Raises:
        DirtyTree: A path the repair depends on has uncommitted edits; nothing is staged.
        InvalidMemory: A source is not UTF-8 text.
    """
    repairable = tuple(
        link for link in dangling if not tree.exists(link.dst_path) or tree.is_dirty(link.dst_path)
    )
    blocked = blocking_paths(tree, repairable)
    if blocked:
        raise DirtyTree(blocked)
    rewritten = dropped = 0
    by_source: dict[str, list[DanglingLink]] = {}
    for link in repairable:
        by_source.setdefault(link.src_path, []).append(link)
    for source, links in by_source.items():
        original = text_of(tree.read(source))
        text = original
        for link in links:
            target = destination(link)
            if target is None:
                edited = ports.drop(text, link.rel, link.dst_path)
            else:
                edited = ports.retarget(text, link.rel, link.dst_path, target)
            if edited == text:
                continue
            text = edited
            if target is None:
                dropped += 1
            else:
                rewritten += 1
        if text != original:
            tree.write(source, text.encode("utf-8"))
    return rewritten, dropped


def repair_with(ports: FixPorts) -> Repair:
    """Repair dangling links as one commit, then prune orphan access rows.

    Orphans are pruned only when the index is current after the commit: a file the index has
    not caught up with would look orphaned, and its counts would be lost.

    Raises:
        DirtyTree: See :func:`stage_repairs`; nothing is written, the state plane included.
        IndexStale, EmbedModelMismatch: From the preflight, before anything is written.
        HeadMoved: Other writers won every retry.
        StorageFailure, GitFailure: The store failed.
    """

    def plan(tree: StagedTree) -> Plan[tuple[int, int]]:
        dangling = ports.probe.dangling_links()
        rewritten, dropped = stage_repairs(ports, tree, dangling)
        count = rewritten + dropped
        message = commit_message(OP_LINK, REPAIR_SUBJECT.format(count=count)) if count else None
        return Plan(outcome=(rewritten, dropped), message=message)

    landed = run_mutation(ports.deps, plan)
    fault_point("doctor.repaired")
    rewritten, dropped = landed.outcome
    pruned: tuple[str, ...] = ()
    if landed.indexed:
        pruned = ports.pruner.prune_orphan_access_rows()
    else:
        logger.warning("orphan access rows were kept: the index is behind the repair commit")
    return Repair(
        rewritten=rewritten,
        dropped=dropped,
        pruned_access_rows=len(pruned),
        commit_sha=landed.commit_sha,
    )
