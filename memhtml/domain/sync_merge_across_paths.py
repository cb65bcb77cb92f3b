"""The sync merge rules across paths (docs/sync.md §3), after every path was decided: archive
copies of one memory converge on one file, an active copy one side holds of a memory the other
archived folds into the archive copy, and one new content written at two paths on two sides is
kept once, at the earlier path."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from memhtml.domain.paths import is_archived_path
from memhtml.domain.sync_ledger import Key
from memhtml.domain.sync_merge_facts import archived_from, arrived, hash_of
from memhtml.domain.sync_merge_work import MergeWork
from memhtml.domain.sync_values import (
    CASE_CONVERGED,
    CASE_DEDUPLICATED,
    OURS,
    SIDES,
    THEIRS,
    Placement,
    Side,
    other_side,
)


def fold_across_paths(work: MergeWork) -> None:
    """Archive copies of one memory at two paths, a copy one side only moved while the
    other archived it, and one new content at two paths."""
    candidates: dict[tuple[str, bool], dict[Side, list[str]]] = defaultdict(
        lambda: {OURS: [], THEIRS: []}
    )
    shared: set[str] = set()  # paths both sides added a memory at, identically
    for side, path in _new_copies(work):
        facts = work.ledger.memory((side, path))
        archived = is_archived_path(path)
        if facts is None or (facts.is_task and not archived):
            continue
        candidates[(facts.content_hash, archived)][side].append(path)
        if work.sides.version(other_side(side), path) == work.sides.version(side, path):
            shared.add(path)
    moved_away = _moved_away_by_both(work)
    for (content_hash, archived), found in sorted(candidates.items()):
        if shared & {*found[OURS], *found[THEIRS]}:
            # Both sides already hold this copy at one path (placed under one side's name):
            # another copy of the same kind is one a side kept beside it on purpose.
            continue
        keys = [(side, p) for side in SIDES for p in found[side]]
        archives = candidates.get((content_hash, True)) if not archived else None
        if archives is not None:
            # One side archived the memory the other only moved (a relocation) or kept at
            # the path the archive copy came from: the archive wins, the copy folds in.
            keys = [
                key
                for key in keys
                if key[1] in shared or not _absorbed(work, key, archives, moved_away)
            ]
            found = {side: [p for s, p in keys if s == side] for side in SIDES}
        if not (found[OURS] and found[THEIRS]):
            continue
        ordered = sorted(keys, key=work.ledger.order)
        # An archive keeps the later copy (the latest stamps); new content the earlier
        # path, as the write path's dedup would have on one machine.
        keeper = ordered[-1] if archived else ordered[0]
        for key in keys:
            if key[0] != keeper[0]:
                work.fold_copy(key, keeper, CASE_CONVERGED if archived else CASE_DEDUPLICATED)


def _absorbed(
    work: MergeWork, key: Key, archives: Mapping[Side, list[str]], moved_away: frozenset[str]
) -> bool:
    """Fold the active copy ``key`` into the other side's archive copy of it, if that side
    archived this very memory; whether it did."""
    side, path = key
    facts = work.ledger.memory(key)
    if facts is None:
        return False
    other = other_side(side)
    rivals = [
        (other, archived)
        for archived in archives[other]
        if (facts.content_hash in moved_away and not archives[side])
        or (
            archived_from(archived, path)
            and hash_of(work.ledger.memory((other, path))) != facts.content_hash
            # A side holding this archive copy too kept the active one on purpose (it wrote
            # the content again after archiving it), whichever side's label it was placed under.
            and hash_of(work.ledger.memory((side, archived))) != facts.content_hash
        )
    ]
    if not rivals:
        return False
    work.fold_copy(key, max(rivals, key=work.ledger.order), CASE_CONVERGED)
    return True


def _new_copies(work: MergeWork) -> list[tuple[Side, str]]:
    """Memories a side added at a new path: those kept at it, and those about to move aside
    because the other side added another file there."""
    found: list[tuple[Side, str]] = []
    for path, placed in work.ledger.final.items():
        if not isinstance(placed, Placement) or placed.source != path:
            continue
        if arrived(work.sides, placed.side, path):
            found.append((placed.side, path))
    found += [(side, path) for side, path, _ in work.relocations if arrived(work.sides, side, path)]
    return found


def _moved_away_by_both(work: MergeWork) -> frozenset[str]:
    """Content hashes of base memories each side removed or replaced at their path (an
    archive or a correction): their archive copies are one memory."""
    return frozenset(
        version.memory.content_hash
        for path, version in work.sides.base.items()
        if version.memory is not None
        and all(
            hash_of(work.ledger.memory((side, path))) != version.memory.content_hash
            for side in SIDES
        )
    )
