"""The sync merge rules for one path both sides may have changed (docs/sync.md §3): one side's
file, ours for a generated file, the sidecar's row merge, two added files, two modified ones,
and a file changed on one side and removed on the other."""

from __future__ import annotations

from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_merge_facts import blob_of, hash_of, is_generated, successor_targets
from memhtml.domain.sync_merge_work import MergeWork
from memhtml.domain.sync_values import (
    CASE_CONFLICT,
    CASE_CONVERGED,
    CASE_GENERATED,
    CASE_KEPT,
    CASE_RELOCATED,
    CASE_SIDECAR,
    OURS,
    THEIRS,
    Side,
    SidecarMerge,
    Version,
    other_side,
)


def decide_path(work: MergeWork, path: str) -> None:
    """Place ``path``'s file(s), or queue one to move aside, and note the case."""
    ledger = work.ledger
    base = work.sides.base.get(path)
    ours, theirs = work.sides.ours.get(path), work.sides.theirs.get(path)
    base_blob, ours_blob, theirs_blob = (blob_of(v) for v in (base, ours, theirs))
    if ours_blob in (theirs_blob, base_blob) or theirs_blob == base_blob:
        kept = OURS if ours_blob != base_blob or theirs_blob == base_blob else THEIRS
        if work.sides.version(kept, path) is not None:
            ledger.take(kept, path)
        return
    if is_generated(path):
        if ours is not None:
            ledger.take(OURS, path)
            work.cases.append((CASE_GENERATED, (OURS, path), None))
        return
    if ours is None or theirs is None:
        _modified_and_removed(work, path, OURS if ours is not None else THEIRS)
    elif path == SIDECAR_PATH:
        later = ledger.later((OURS, path), (THEIRS, path))
        ledger.final[path] = SidecarMerge(path=path, later=later[0])
        ledger.where[(OURS, path)] = ledger.where[(THEIRS, path)] = path
        work.cases.append((CASE_SIDECAR, later, None))
    elif base is None:
        _both_added(work, path)
    else:
        _both_modified(work, path, base)


def _both_added(work: MergeWork, path: str) -> None:
    ledger = work.ledger
    later = ledger.later((OURS, path), (THEIRS, path))
    earlier = (other_side(later[0]), path)
    kept, moved = ledger.memory(later), ledger.memory(earlier)
    ledger.take(*later)
    if kept is not None and moved is not None and kept.content_hash == moved.content_hash:
        ledger.fold(earlier, later, None)
        work.cases.append((CASE_CONVERGED, later, None))
        return
    rival = successor_targets(kept) & successor_targets(moved)
    work.relocations.append((earlier[0], path, bool(rival)))
    work.cases.append((CASE_CONFLICT if rival else CASE_RELOCATED, later, earlier))


def _both_modified(work: MergeWork, path: str, base: Version) -> None:
    ledger = work.ledger
    later = ledger.later((OURS, path), (THEIRS, path))
    earlier = (other_side(later[0]), path)
    old = base.memory
    kept, moved = ledger.memory(later), ledger.memory(earlier)
    if old is None or kept is None or moved is None:
        ledger.take(*later)
        work.relocations.append((earlier[0], path, False))
        work.cases.append((CASE_CONFLICT, later, earlier))
        return
    if kept.content_hash == moved.content_hash:
        ledger.take(*later)
        ledger.fold(earlier, later, old)
        work.cases.append((CASE_CONVERGED, later, None))
        return
    for head_only, content in ((earlier, later), (later, earlier)):
        if hash_of(ledger.memory(head_only)) == old.content_hash:
            # One side only edited the head: its additions follow the old content.
            ledger.take(*content)
            target = work.moved_copy(content[0], old.content_hash, path) or content
            ledger.fold(head_only, target, old)
            work.cases.append((CASE_CONVERGED, content, None))
            return
    if all(work.moved_copy(side, old.content_hash, path) for side in (later[0], earlier[0])):
        # Both sides moved the memory away (archived or corrected it) and wrote a new memory at
        # its path: two new files at one path, not two versions of one memory.
        _both_added(work, path)
        return
    ledger.take(*later)
    work.relocations.append((earlier[0], path, True))
    work.cases.append((CASE_CONFLICT, later, earlier))


def _modified_and_removed(work: MergeWork, path: str, keeper: Side) -> None:
    old = work.sides.base[path].memory
    kept = work.ledger.memory((keeper, path))
    if old is not None and kept is not None and kept.content_hash == old.content_hash:
        target = work.moved_copy(other_side(keeper), old.content_hash, path)
        if target is not None:
            work.ledger.fold((keeper, path), target, old)
            work.cases.append((CASE_CONVERGED, target, None))
            return
    work.ledger.take(keeper, path)
    work.cases.append((CASE_KEPT, (keeper, path), None))
