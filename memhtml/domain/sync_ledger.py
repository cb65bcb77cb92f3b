"""The bookkeeping of one sync merge: which version is kept where, which folded into which, and
the head edits that follow from it (docs/sync.md §3).

``sync_merge`` decides; this module remembers the decisions and, at the end, turns them into
placements with head edits: a side's own new links to a file that had to give up its path are
re-pointed, links carried from a folded version are added (re-pointed the same way), and two
rival successors of one memory are linked ``contradicts``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from memhtml.domain.sync_values import (
    CONTRADICTS,
    AddLink,
    HeadEdit,
    MemoryFacts,
    MergeSides,
    Placement,
    RetargetLink,
    SetSupersededBy,
    Side,
    SidecarMerge,
    Stamp,
    other_side,
)

Key = tuple[Side, str]
"""A version: one side's file at one path (its path on that side)."""


class MergeLedger:
    """The decisions of one merge so far; a working object, not a value."""

    def __init__(self, sides: MergeSides, stamps: Mapping[Key, Stamp]) -> None:
        self.sides = sides
        self.stamps = stamps
        self.final: dict[str, Placement | SidecarMerge] = {}
        self.where: dict[Key, str] = {}  # a kept version's path in the merge
        self.alias: dict[Key, Key] = {}  # a version folded into another
        self.moved: set[Key] = set()  # versions whose path another file now holds
        self.extra: dict[Key, list[tuple[Side, HeadEdit]]] = defaultdict(list)
        self.successors: list[tuple[Key, Key]] = []  # (earlier, later) rival successors

    # --- recording ------------------------------------------------------------------------

    def take(self, side: Side, path: str, *, at: str | None = None) -> None:
        """Keep ``side``'s file from ``path`` at ``at`` (its own path by default)."""
        where = path if at is None else at
        self.final[where] = Placement(path=where, side=side, source=path)
        self.where[(side, path)] = where
        if where != path:
            self.moved.add((side, path))

    def drop(self, key: Key) -> None:
        """Forget a kept version's placement (it is about to be folded elsewhere)."""
        del self.final[self.where.pop(key)]
        self.moved.add(key)

    def fold(self, key: Key, into: Key, old: MemoryFacts | None) -> None:
        """Fold version ``key`` into the kept version ``into``: its head additions (against
        ``old``, the common version) are carried over; rival superseded-by values are
        remembered as rival successors."""
        self.alias[key] = into
        folded, kept = self.memory(key), self.memory(into)
        if folded is None:
            return
        old_links = old.links if old is not None else frozenset()
        for rel, target in sorted(folded.links - old_links):
            self.extra[into].append((key[0], AddLink(rel=rel, target=target)))
        old_sb = old.superseded_by if old is not None else None
        if folded.superseded_by is None or folded.superseded_by == old_sb:
            return
        kept_sb = kept.superseded_by if kept is not None else None
        if kept_sb is None or kept_sb == old_sb:
            self.extra[into].append((key[0], SetSupersededBy(target=folded.superseded_by)))
        elif kept_sb != folded.superseded_by:
            pair = ((key[0], folded.superseded_by), (into[0], kept_sb))
            self.successors.append(pair if self.order(key) < self.order(into) else pair[::-1])

    def add(self, key: Key, side: Side, edit: HeadEdit) -> None:
        """A head edit for the file that will hold ``key``; targets are in ``side``'s world."""
        self.extra[key].append((side, edit))

    # --- reading --------------------------------------------------------------------------

    def memory(self, key: Key) -> MemoryFacts | None:
        """The facts of a version, ``None`` when it is absent or not a memory."""
        found = self.sides.version(*key)
        return None if found is None else found.memory

    def order(self, key: Key) -> tuple[Stamp, str, str]:
        """How late a version's change is: its stamp, then blob and path to break a tie."""
        found = self.sides.version(*key)
        return (self.stamps[key], "" if found is None else found.blob, key[1])

    def later(self, a: Key, b: Key) -> Key:
        """The version changed later."""
        return a if self.order(a) > self.order(b) else b

    def root(self, key: Key) -> Key:
        """The kept version ``key`` was folded into (itself when kept)."""
        while key in self.alias:
            key = self.alias[key]
        return key

    def located(self, key: Key) -> str:
        """The merged path holding ``key``'s memory (its own path when never placed)."""
        root = self.root(key)
        return self.where.get(root, root[1])

    def mapped(self, side: Side, target: str) -> str:
        """Where ``side``'s file at ``target`` is now, when it had to give the path up."""
        key = (side, target)
        return self.located(key) if key in self.moved else target

    # --- resolving ------------------------------------------------------------------------

    def edited(self) -> dict[str, Placement | SidecarMerge]:
        """Every placement with its head edits, rival successors linked."""
        carried: dict[Key, list[tuple[Side, HeadEdit]]] = defaultdict(list)
        for key, pending in self.extra.items():
            carried[self.root(key)].extend(pending)
        final: dict[str, Placement | SidecarMerge] = {}
        for path, placed in sorted(self.final.items()):
            if isinstance(placed, SidecarMerge):
                final[path] = placed
                continue
            key = (placed.side, placed.source)
            facts = self.memory(key)
            own = self._own_retargets(key, facts)
            edits = own + self._carried(path, placed.side, facts, carried[key])
            final[path] = Placement(path=path, side=placed.side, source=placed.source, edits=edits)
        return final

    def link_successors(self, final: dict[str, Placement | SidecarMerge]) -> list[tuple[Key, Key]]:
        """Link each earlier rival successor to the later one; returns the pairs linked."""
        linked: list[tuple[Key, Key]] = []
        for earlier, later in self.successors:
            source, target = self.located(earlier), self.located(later)
            placed = final.get(source)
            if source == target or target not in final or not isinstance(placed, Placement):
                continue
            link = AddLink(rel=CONTRADICTS, target=target)
            if link not in placed.edits:
                edits = (*placed.edits, link)
                final[source] = Placement(
                    path=source, side=placed.side, source=placed.source, edits=edits
                )
            linked.append((earlier, later))
        return linked

    def _own_retargets(self, key: Key, facts: MemoryFacts | None) -> tuple[HeadEdit, ...]:
        """The side's own new links (and superseded-by) to a file that moved, re-pointed.

        A file both sides hold identically belongs to neither: its link follows a move only
        when both sides moved the target to the same place. Otherwise (each side's memory at
        the target went its own way) the link stays on the path, whichever side placed the
        file, so swapping the sides gives the same tree.
        """
        if facts is None:
            return ()
        side, source = key
        base = self.sides.base.get(source)
        old = base.memory if base is not None else None
        old_links = old.links if old is not None else frozenset()
        other = other_side(side)
        shared = self.sides.version(side, source) == self.sides.version(other, source)

        def moved(target: str) -> str:
            new = self.mapped(side, target)
            return new if not shared or self.mapped(other, target) == new else target

        edits: list[HeadEdit] = []
        for rel, target in sorted(facts.links - old_links):
            new = moved(target)
            if new != target:
                edits.append(RetargetLink(rel=rel, old=target, new=new))
        sb = facts.superseded_by
        fresh = sb is not None and sb != (old.superseded_by if old is not None else None)
        if sb is not None and fresh and moved(sb) != sb:
            edits.append(SetSupersededBy(target=moved(sb)))
        return tuple(edits)

    def _carried(
        self,
        path: str,
        owner: Side,
        facts: MemoryFacts | None,
        carried: list[tuple[Side, HeadEdit]],
    ) -> tuple[HeadEdit, ...]:
        """Links and superseded-by carried in from folded versions, in the kept file's world."""
        have: set[tuple[str, str]] = set()
        if facts is not None:
            # Where the owner's links point once re-pointed: a target the owner had to give up
            # is not one its file still links to.
            have = {(r, self.mapped(owner, t)) for r, t in facts.links}
        links: set[tuple[str, str]] = set()
        superseded: list[str] = []
        for side, edit in carried:
            if isinstance(edit, AddLink):
                target = self.mapped(side, edit.target)
                if target != path and (edit.rel, target) not in have:
                    links.add((edit.rel, target))
            elif isinstance(edit, SetSupersededBy):
                superseded.append(self.mapped(side, edit.target))
        edits: list[HeadEdit] = [AddLink(rel=r, target=t) for r, t in sorted(links)]
        if superseded and (facts is None or facts.superseded_by is None):
            edits.append(SetSupersededBy(target=min(superseded)))
        return tuple(edits)
