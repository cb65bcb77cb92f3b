"""The sync merge rules (docs/sync.md §3): three trees in, one tree and its cases out.

Nothing is lost: every file either side changed ends up in the merge, byte for byte or as the
same memory (same content hash) with both sides' head additions. Paths only one side changed
take that side's file. Where both changed one path:

- the same memory on both sides (equal content hash) converges into one file: the side that
  changed it later keeps its bytes and gains the other side's new links;
- one side edited only the head while the other changed the content (a correction): the
  content change stays and the head additions follow the old content to where it moved;
- both changed the content, or two different files were added at one path: the later side
  stays at the path, the earlier one moves to a free ``<stem>-<n>`` path beside it; two
  versions of one memory (or two corrections of it) are linked ``contradicts``, earlier to
  later;
- changed on one side and removed on the other: the changed file stays, unless it was a head
  edit of a memory the other side moved (archived), which the edit then follows;
- generated files keep ours (their ``merge=ours`` driver), the access sidecar merges rows.

Across paths: archive copies of one content added on both sides converge on the later copy
(whatever the paths, and even when the merge base predates the memory); an active copy one side
holds of a memory the other side archived folds into the archive copy; and the same new content
written at two paths on two sides is kept once, at the earlier path (what the write path's dedup
would have done on one machine). Links a side added to a
file that moved or folded away are re-pointed. "Later" is the newer commit that changed the
path on each side (:class:`Stamp`), so the plan does not depend on which side is ours, except
for generated files.

The rules live in ``sync_merge_per_path`` and ``sync_merge_across_paths``, over the working
state of ``sync_merge_work``; ``sync_merge_facts`` holds what they read off paths and versions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_ledger import Key
from memhtml.domain.sync_merge_across_paths import fold_across_paths
from memhtml.domain.sync_merge_facts import arrived, is_generated, variant
from memhtml.domain.sync_merge_per_path import decide_path
from memhtml.domain.sync_merge_work import MAX_VARIANT, MergeWork
from memhtml.domain.sync_values import (
    CASE_CONFLICT,
    OURS,
    SIDES,
    THEIRS,
    MergePlan,
    MergeSides,
    Moved,
    Placement,
    SidecarMerge,
    Stamp,
)

__all__ = ["MAX_VARIANT", "is_generated", "plan_merge", "required_stamps", "variant"]


def required_stamps(sides: MergeSides) -> frozenset[Key]:
    """The ``(side, path)`` stamps :func:`plan_merge` compares: both sides of every path both
    changed, and every memory a side added (additions may fold across paths)."""
    need: set[Key] = set()
    for path in sides.touched():
        if sides.changed(OURS, path) and sides.changed(THEIRS, path):
            need.update({(OURS, path), (THEIRS, path)})
        for side in SIDES:
            if arrived(sides, side, path):
                need.add((side, path))
    return frozenset(need)


def plan_merge(
    sides: MergeSides, stamps: Mapping[Key, Stamp], occupied: Iterable[str] = ()
) -> MergePlan:
    """Merge the three trees by the rules of the module docstring.

    Args:
        sides: The three trees at the touched paths.
        stamps: At least every key :func:`required_stamps` names.
        occupied: Paths of the merged tree that neither side touched, near the touched ones:
            a moved file never lands on one.

    Raises:
        Conflict: No free ``-<n>`` variant of a path below ``MAX_VARIANT``.
    """
    work = MergeWork(sides, stamps, frozenset(occupied))
    for path in sides.touched():
        decide_path(work, path)
    fold_across_paths(work)
    work.relocate()
    final = work.ledger.edited()
    for earlier, later in work.ledger.link_successors(final):
        work.cases.append((CASE_CONFLICT, later, earlier))
    cases = sorted(
        (work.case(kind, kept, other) for kind, kept, other in work.cases),
        key=lambda c: (c.path, c.kind, c.other_path or ""),
    )
    moved = _moved(work)
    if moved:
        _merge_sidecar_rows(work, final)
    return MergePlan(final=final, cases=tuple(cases), moved=moved)


def _moved(work: MergeWork) -> tuple[Moved, ...]:
    """Every side's memory the merge placed away from that side's path, or folded into a copy
    elsewhere: its access rows follow it."""
    found: list[Moved] = []
    for path in work.sides.touched():
        for side in SIDES:
            version = work.sides.version(side, path)
            if version is None or version.memory is None:
                continue
            target = work.ledger.located((side, path))
            if target != path:
                found.append(
                    Moved(
                        side=side,
                        source=path,
                        target=target,
                        content_hash=version.memory.content_hash,
                    )
                )
    return tuple(found)


def _merge_sidecar_rows(work: MergeWork, final: dict[str, Placement | SidecarMerge]) -> None:
    """Rows must follow moved memories, so the sidecar is merged (its rows re-keyed) even when
    only one side changed it, or neither; the later change wins an outcome tie."""
    sides = work.sides
    if sides.ours.get(SIDECAR_PATH) is None and sides.theirs.get(SIDECAR_PATH) is None:
        return
    changed = [side for side in SIDES if sides.changed(side, SIDECAR_PATH)]
    if len(changed) == 2:
        later = work.ledger.later((OURS, SIDECAR_PATH), (THEIRS, SIDECAR_PATH))[0]
    else:
        later = changed[0] if changed else OURS
    final[SIDECAR_PATH] = SidecarMerge(path=SIDECAR_PATH, later=later)
