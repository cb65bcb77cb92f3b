"""One sync merge plan in the making (docs/sync.md §3): the ledger, the files waiting to move
aside, the cases to report, and the steps the per-path and across-path rules share (fold a
copy away, give a path back, find where a side moved a memory, move the waiting files to free
``-<n>`` paths)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from memhtml.domain.errors import Conflict
from memhtml.domain.paths import is_archived_path
from memhtml.domain.sync_ledger import Key, MergeLedger
from memhtml.domain.sync_merge_facts import arrived, special, variant
from memhtml.domain.sync_values import (
    CONTRADICTS,
    OURS,
    AddLink,
    Case,
    MergeSides,
    Side,
    Stamp,
    other_side,
)

MAX_VARIANT: Final = 10_000

Relocation = tuple[Side, str, bool]
"""A side's file waiting to move aside from a path, and whether it is a rival version (then it
links ``contradicts`` to the file that keeps the path)."""
PendingCase = tuple[str, Key, Key | None]
"""A case's kind, the kept file and the other file, as keys until the paths are final."""


class MergeWork:
    """The state of one plan; a working object for :func:`~sync_merge.plan_merge` only."""

    def __init__(
        self, sides: MergeSides, stamps: Mapping[Key, Stamp], occupied: frozenset[str]
    ) -> None:
        self.sides = sides
        self.occupied = occupied
        self.ledger = MergeLedger(sides, stamps)
        self.relocations: list[Relocation] = []
        self.cases: list[PendingCase] = []

    def moved_copy(self, side: Side, content_hash: str, away_from: str) -> Key | None:
        """Where ``side`` put the old content it moved away from ``away_from`` (a copy it
        added), if anywhere: an archive path first, then the first path."""
        found = [
            path
            for path in (self.sides.ours if side == OURS else self.sides.theirs)
            if path != away_from
            and not special(path)
            and arrived(self.sides, side, path, content_hash)
        ]
        found.sort(key=lambda p: (not is_archived_path(p), p))
        return (side, found[0]) if found else None

    def fold_copy(self, key: Key, keeper: Key, kind: str) -> None:
        """Fold the copy ``key`` into ``keeper``: it leaves the merge (placed or about to be)."""
        pending = [r for r in self.relocations if (r[0], r[1]) == key]
        if pending:
            self.relocations = [r for r in self.relocations if (r[0], r[1]) != key]
            self.ledger.moved.add(key)
        else:
            self.ledger.drop(key)
            self.reclaim(key[1])
        self.ledger.fold(key, keeper, None)
        self.cases.append((kind, keeper, key))

    def reclaim(self, path: str) -> None:
        """A file left ``path``: the other side's file that was to move aside from it stays."""
        waiting = [r for r in self.relocations if r[1] == path]
        if not waiting or path in self.ledger.final:
            return
        side = waiting[0][0]
        self.relocations.remove(waiting[0])
        self.ledger.take(side, path)
        self.cases = [c for c in self.cases if c[2] != (side, path)]

    def relocate(self) -> None:
        """Move every waiting file to a free ``-<n>`` path; a rival links to the kept one."""
        for side, path, rival in sorted(self.relocations, key=lambda r: r[1]):
            self.ledger.take(side, path, at=self.free_variant(path))
            if rival:
                link = AddLink(rel=CONTRADICTS, target=path)
                self.ledger.add((side, path), other_side(side), link)

    def free_variant(self, path: str) -> str:
        """The first ``-<n>`` path beside ``path`` neither the merge nor the tree holds.

        Raises:
            Conflict: None below ``MAX_VARIANT``.
        """
        for n in range(2, MAX_VARIANT + 1):
            candidate = variant(path, n)
            if candidate not in self.ledger.final and candidate not in self.occupied:
                return candidate
        raise Conflict(f"no free path beside {path} for the other side's file")

    def case(self, kind: str, kept: Key, other: Key | None) -> Case:
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
