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
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Final

from memhtml.domain.errors import Conflict
from memhtml.domain.paths import GENERATED_NAMES, is_archived_path, origin_path
from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_ledger import Key, MergeLedger
from memhtml.domain.sync_values import (
    CASE_CONFLICT,
    CASE_CONVERGED,
    CASE_DEDUPLICATED,
    CASE_GENERATED,
    CASE_KEPT,
    CASE_RELOCATED,
    CASE_SIDECAR,
    CONTRADICTS,
    OURS,
    SIDES,
    SUPERSEDES,
    THEIRS,
    AddLink,
    Case,
    MemoryFacts,
    MergePlan,
    MergeSides,
    Placement,
    Side,
    SidecarMerge,
    Stamp,
    Version,
    other_side,
)

MAX_VARIANT: Final = 10_000
_VARIANT: Final = re.compile(r"-\d+(\.[^./]*)?$")


def required_stamps(sides: MergeSides) -> frozenset[Key]:
    """The ``(side, path)`` stamps :func:`plan_merge` compares: both sides of every path both
    changed, and every memory a side added (additions may fold across paths)."""
    need: set[Key] = set()
    for path in sides.touched():
        if sides.changed(OURS, path) and sides.changed(THEIRS, path):
            need.update({(OURS, path), (THEIRS, path)})
        for side in SIDES:
            if _arrived(sides, side, path):
                need.add((side, path))
    return frozenset(need)


def _arrived(sides: MergeSides, side: Side, path: str, content_hash: str | None = None) -> bool:
    """``side`` holds a memory at ``path`` that the base did not hold there: a new file, or one
    that replaced another (a merge moved it onto a path a file it moved aside had held). With
    ``content_hash``, only a copy of that content counts."""
    found = sides.version(side, path)
    if found is None or found.memory is None:
        return False
    if content_hash is not None and found.memory.content_hash != content_hash:
        return False
    return _hash(_memory(sides.base.get(path))) != found.memory.content_hash


def is_generated(path: str) -> bool:
    """A file a publish step regenerates (``index.html``, ``sitemap.xml`` at any depth)."""
    return path.rsplit("/", 1)[-1] in GENERATED_NAMES


def variant(path: str, n: int) -> str:
    """``dir/stem-n.ext`` (``dir/name-n`` without an extension) for ``n`` ≥ 2."""
    folder, slash, name = path.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    base = f"{stem}-{n}{dot}{ext}" if stem else f"{name}-{n}"
    return f"{folder}{slash}{base}"


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
    return _Merge(sides, stamps, frozenset(occupied)).run()


class _Merge:
    """One plan in the making; a working object for :func:`plan_merge` only."""

    def __init__(
        self, sides: MergeSides, stamps: Mapping[Key, Stamp], occupied: frozenset[str]
    ) -> None:
        self.sides = sides
        self.occupied = occupied
        self.ledger = MergeLedger(sides, stamps)
        self.relocations: list[tuple[Side, str, bool]] = []
        self.cases: list[tuple[str, Key, Key | None]] = []

    def run(self) -> MergePlan:
        for path in self.sides.touched():
            self._decide(path)
        self._fold_across_paths()
        self._relocate()
        final = self.ledger.edited()
        for earlier, later in self.ledger.link_successors(final):
            self.cases.append((CASE_CONFLICT, later, earlier))
        cases = sorted(
            (self._case(kind, kept, other) for kind, kept, other in self.cases),
            key=lambda c: (c.path, c.kind, c.other_path or ""),
        )
        return MergePlan(final=final, cases=tuple(cases))

    # --- per path -------------------------------------------------------------------------

    def _decide(self, path: str) -> None:
        base = self.sides.base.get(path)
        ours, theirs = self.sides.ours.get(path), self.sides.theirs.get(path)
        base_blob, ours_blob, theirs_blob = (_blob(v) for v in (base, ours, theirs))
        if ours_blob in (theirs_blob, base_blob) or theirs_blob == base_blob:
            kept = OURS if ours_blob != base_blob or theirs_blob == base_blob else THEIRS
            if self.sides.version(kept, path) is not None:
                self.ledger.take(kept, path)
            return
        if is_generated(path):
            if ours is not None:
                self.ledger.take(OURS, path)
                self.cases.append((CASE_GENERATED, (OURS, path), None))
            return
        if ours is None or theirs is None:
            self._modified_and_removed(path, OURS if ours is not None else THEIRS)
        elif path == SIDECAR_PATH:
            later = self.ledger.later((OURS, path), (THEIRS, path))
            self.ledger.final[path] = SidecarMerge(path=path, later=later[0])
            self.ledger.where[(OURS, path)] = self.ledger.where[(THEIRS, path)] = path
            self.cases.append((CASE_SIDECAR, later, None))
        elif base is None:
            self._both_added(path)
        else:
            self._both_modified(path, base)

    def _both_added(self, path: str) -> None:
        later = self.ledger.later((OURS, path), (THEIRS, path))
        earlier = (other_side(later[0]), path)
        kept, moved = self.ledger.memory(later), self.ledger.memory(earlier)
        self.ledger.take(*later)
        if kept is not None and moved is not None and kept.content_hash == moved.content_hash:
            self.ledger.fold(earlier, later, None)
            self.cases.append((CASE_CONVERGED, later, None))
            return
        rival = _successor_targets(kept) & _successor_targets(moved)
        self.relocations.append((earlier[0], path, bool(rival)))
        self.cases.append((CASE_CONFLICT if rival else CASE_RELOCATED, later, earlier))

    def _both_modified(self, path: str, base: Version) -> None:
        later = self.ledger.later((OURS, path), (THEIRS, path))
        earlier = (other_side(later[0]), path)
        old = base.memory
        kept, moved = self.ledger.memory(later), self.ledger.memory(earlier)
        if old is None or kept is None or moved is None:
            self.ledger.take(*later)
            self.relocations.append((earlier[0], path, False))
            self.cases.append((CASE_CONFLICT, later, earlier))
            return
        if kept.content_hash == moved.content_hash:
            self.ledger.take(*later)
            self.ledger.fold(earlier, later, old)
            self.cases.append((CASE_CONVERGED, later, None))
            return
        for head_only, content in ((earlier, later), (later, earlier)):
            if _hash(self.ledger.memory(head_only)) == old.content_hash:
                # One side only edited the head: its additions follow the old content.
                self.ledger.take(*content)
                target = self._moved_copy(content[0], old.content_hash, path) or content
                self.ledger.fold(head_only, target, old)
                self.cases.append((CASE_CONVERGED, content, None))
                return
        self.ledger.take(*later)
        self.relocations.append((earlier[0], path, True))
        self.cases.append((CASE_CONFLICT, later, earlier))

    def _modified_and_removed(self, path: str, keeper: Side) -> None:
        old = self.sides.base[path].memory
        kept = self.ledger.memory((keeper, path))
        if old is not None and kept is not None and kept.content_hash == old.content_hash:
            target = self._moved_copy(other_side(keeper), old.content_hash, path)
            if target is not None:
                self.ledger.fold((keeper, path), target, old)
                self.cases.append((CASE_CONVERGED, target, None))
                return
        self.ledger.take(keeper, path)
        self.cases.append((CASE_KEPT, (keeper, path), None))

    def _moved_copy(self, side: Side, content_hash: str, away_from: str) -> Key | None:
        """Where ``side`` put the old content it moved away from ``away_from`` (a copy it
        added), if anywhere: an archive path first, then the first path."""
        found = [
            path
            for path in (self.sides.ours if side == OURS else self.sides.theirs)
            if path != away_from
            and not _special(path)
            and _arrived(self.sides, side, path, content_hash)
        ]
        found.sort(key=lambda p: (not is_archived_path(p), p))
        return (side, found[0]) if found else None

    # --- across paths ---------------------------------------------------------------------

    def _fold_across_paths(self) -> None:
        """Archive copies of one memory at two paths, a copy one side only moved while the
        other archived it, and one new content at two paths."""
        candidates: dict[tuple[str, bool], dict[Side, list[str]]] = defaultdict(
            lambda: {OURS: [], THEIRS: []}
        )
        shared: set[str] = set()  # paths both sides added a memory at, identically
        for side, path in self._new_copies():
            facts = self.ledger.memory((side, path))
            archived = is_archived_path(path)
            if facts is None or (facts.is_task and not archived):
                continue
            candidates[(facts.content_hash, archived)][side].append(path)
            if self.sides.version(other_side(side), path) == self.sides.version(side, path):
                shared.add(path)
        moved_away = self._moved_away_by_both()
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
                    if key[1] in shared or not self._absorbed(key, archives, moved_away)
                ]
                found = {side: [p for s, p in keys if s == side] for side in SIDES}
            if not (found[OURS] and found[THEIRS]):
                continue
            ordered = sorted(keys, key=self.ledger.order)
            # An archive keeps the later copy (the latest stamps); new content the earlier
            # path, as the write path's dedup would have on one machine.
            keeper = ordered[-1] if archived else ordered[0]
            for key in keys:
                if key[0] != keeper[0]:
                    self._fold_copy(key, keeper, CASE_CONVERGED if archived else CASE_DEDUPLICATED)

    def _absorbed(
        self, key: Key, archives: Mapping[Side, list[str]], moved_away: frozenset[str]
    ) -> bool:
        """Fold the active copy ``key`` into the other side's archive copy of it, if that side
        archived this very memory; whether it did."""
        side, path = key
        facts = self.ledger.memory(key)
        if facts is None:
            return False
        other = other_side(side)
        rivals = [
            (other, archived)
            for archived in archives[other]
            if (facts.content_hash in moved_away and not archives[side])
            or (
                _archived_from(archived, path)
                and _hash(self.ledger.memory((other, path))) != facts.content_hash
                # A side holding this archive copy too kept the active one on purpose (it wrote
                # the content again after archiving it), whichever side's label it was placed under.
                and _hash(self.ledger.memory((side, archived))) != facts.content_hash
            )
        ]
        if not rivals:
            return False
        self._fold_copy(key, max(rivals, key=self.ledger.order), CASE_CONVERGED)
        return True

    def _new_copies(self) -> list[tuple[Side, str]]:
        """Memories a side added at a new path: those kept at it, and those about to move aside
        because the other side added another file there."""
        found: list[tuple[Side, str]] = []
        for path, placed in self.ledger.final.items():
            if not isinstance(placed, Placement) or placed.source != path:
                continue
            if _arrived(self.sides, placed.side, path):
                found.append((placed.side, path))
        found += [
            (side, path) for side, path, _ in self.relocations if _arrived(self.sides, side, path)
        ]
        return found

    def _fold_copy(self, key: Key, keeper: Key, kind: str) -> None:
        """Fold the copy ``key`` into ``keeper``: it leaves the merge (placed or about to be)."""
        pending = [r for r in self.relocations if (r[0], r[1]) == key]
        if pending:
            self.relocations = [r for r in self.relocations if (r[0], r[1]) != key]
            self.ledger.moved.add(key)
        else:
            self.ledger.drop(key)
            self._reclaim(key[1])
        self.ledger.fold(key, keeper, None)
        self.cases.append((kind, keeper, key))

    def _reclaim(self, path: str) -> None:
        """A file left ``path``: the other side's file that was to move aside from it stays."""
        waiting = [r for r in self.relocations if r[1] == path]
        if not waiting or path in self.ledger.final:
            return
        side = waiting[0][0]
        self.relocations.remove(waiting[0])
        self.ledger.take(side, path)
        self.cases = [c for c in self.cases if c[2] != (side, path)]

    def _moved_away_by_both(self) -> frozenset[str]:
        """Content hashes of base memories each side removed or replaced at their path (an
        archive or a correction): their archive copies are one memory."""
        return frozenset(
            version.memory.content_hash
            for path, version in self.sides.base.items()
            if version.memory is not None
            and all(
                _hash(self.ledger.memory((side, path))) != version.memory.content_hash
                for side in SIDES
            )
        )

    def _relocate(self) -> None:
        for side, path, rival in sorted(self.relocations, key=lambda r: r[1]):
            self.ledger.take(side, path, at=self._free_variant(path))
            if rival:
                link = AddLink(rel=CONTRADICTS, target=path)
                self.ledger.add((side, path), other_side(side), link)

    def _free_variant(self, path: str) -> str:
        for n in range(2, MAX_VARIANT + 1):
            candidate = variant(path, n)
            if candidate not in self.ledger.final and candidate not in self.occupied:
                return candidate
        raise Conflict(f"no free path beside {path} for the other side's file")

    def _case(self, kind: str, kept: Key, other: Key | None) -> Case:
        """A case at the kept file's merged path; the other file's merged path when it was
        kept too, its own path when it was folded into the kept one."""
        other_path = None
        if other is not None:
            folded = self.ledger.root(other) != other
            other_path = other[1] if folded else self.ledger.located(other)
        return Case(
            kind=kind,
            path=self.ledger.located(kept),
            other_path=other_path,
            kept=self.ledger.root(kept)[0],
        )


def _archived_from(archived: str, path: str) -> bool:
    """``archived`` is where archiving ``path`` puts it (``archive/<YYYY>/<path>``, or that with
    the ``-<n>`` an occupied archive path gets)."""
    origin = origin_path(archived)
    return origin is not None and (origin == path or _VARIANT.sub(r"\1", origin) == path)


def _special(path: str) -> bool:
    """A path with a rule of its own: never a memory's new home."""
    return path == SIDECAR_PATH or is_generated(path)


def _blob(version: Version | None) -> str | None:
    return None if version is None else version.blob


def _hash(facts: MemoryFacts | None) -> str | None:
    return None if facts is None else facts.content_hash


def _memory(version: Version | None) -> MemoryFacts | None:
    return None if version is None else version.memory


def _successor_targets(facts: MemoryFacts | None) -> frozenset[str]:
    """What a memory says it supersedes: two new files superseding one are rival corrections."""
    if facts is None:
        return frozenset()
    return frozenset(target for rel, target in facts.links if rel == SUPERSEDES)
