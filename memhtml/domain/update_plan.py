"""Deciding what an incremental update does, from git's answers alone. Pure.

Committed changes (watermark → HEAD) apply first and the working tree after them, so a path
ends at its working-tree content. Paths outside the indexed tree never appear in a plan.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, Protocol

import attrs

from memhtml.domain.paths import is_indexable_path


class DiffEntry(Protocol):
    """One committed change between two commits, as git's name-status reports it."""

    @property
    def status(self) -> str:
        """``A``, ``M``, ``D`` or ``R``."""
        ...

    @property
    def path(self) -> str:
        """The path after the change."""
        ...

    @property
    def from_path(self) -> str | None:
        """The source of a rename, else ``None``."""
        ...


class StatusEntry(Protocol):
    """One uncommitted change of the working tree against HEAD."""

    @property
    def path(self) -> str:
        """The changed path."""
        ...

    @property
    def from_path(self) -> str | None:
        """The source of a rename, else ``None``."""
        ...

    @property
    def deleted(self) -> bool:
        """Whether the path is gone from the working tree."""
        ...


Source = Literal["head", "work"]
FROM_HEAD: Final[Source] = "head"
FROM_WORK: Final[Source] = "work"


@attrs.frozen(kw_only=True)
class UpdatePlan:
    """What one update does, in the order it does it.

    Attributes:
        renames: ``(source, target)`` row moves in order; each runs only if the source row
            exists, so a chain ``a→b``, ``b→c`` carries one row to ``c``.
        removals: Paths whose rows go (the file is gone from the final tree).
        from_head: Paths to project from their blob at HEAD, sorted.
        from_work: Paths to project from their working-tree bytes, sorted.
        rename_targets: Targets of ``renames``; always projected, because the path-derived
            columns (``archived``, ``para``…) change even when the bytes do not.
        dirty_after: Every indexed path the working tree touches now; the next update
            revisits them even if git has forgotten them (a reverted edit).
        added, modified, removed, renamed: Committed changes among indexed paths.
        dirty: Paths whose final bytes come from the working tree.
    """

    renames: tuple[tuple[str, str], ...] = ()
    removals: tuple[str, ...] = ()
    from_head: tuple[str, ...] = ()
    from_work: tuple[str, ...] = ()
    rename_targets: frozenset[str] = frozenset()
    dirty_after: frozenset[str] = frozenset()
    added: int = 0
    modified: int = 0
    removed: int = 0
    renamed: int = 0
    dirty: int = 0

    @property
    def empty(self) -> bool:
        """True when the plan changes nothing and remembers no dirty path."""
        return not (
            self.renames or self.removals or self.from_head or self.from_work or self.dirty_after
        )


def plan_update(
    committed: Iterable[DiffEntry],
    working: Iterable[StatusEntry],
    previously_dirty: Iterable[str] = (),
) -> UpdatePlan:
    """The plan for committed changes, then the working tree, then paths dirty last time.

    Args:
        committed: Name-status rows from the watermark to HEAD.
        working: The working tree's uncommitted changes.
        previously_dirty: Paths the last update indexed from the working tree. Those git no
            longer reports, and no commit touched, are read again from HEAD (which the clean
            working tree now equals); a path HEAD lacks is then removed.

    Returns:
        The plan. A rename is kept only when its source is gone from the final tree (a
        source that still exists keeps its own row, and the target is projected anew) and its
        target, or a later move's target, survives.
    """
    final: dict[str, Source | None] = {}
    moves: list[tuple[str, str]] = []
    counts = {"A": 0, "M": 0, "D": 0, "R": 0}
    for entry in committed:
        _apply_committed(entry, final, moves, counts)
    changes = tuple(working)
    dirty_now: set[str] = set()
    # Rename sources first: a path both left by a rename and reported on its own (re-created
    # after a `git mv`) must end at its own working-tree entry.
    for change in changes:
        if change.from_path is not None and is_indexable_path(change.from_path):
            final[change.from_path] = None
            dirty_now.add(change.from_path)
            if is_indexable_path(change.path):
                moves.append((change.from_path, change.path))
    for change in changes:
        if is_indexable_path(change.path):
            final[change.path] = None if change.deleted else FROM_WORK
            dirty_now.add(change.path)
    # Dirty last time, clean now: the working tree equals HEAD there (a reverted edit, or a
    # commit of what was dirty). A path the commits already decided keeps that decision, so a
    # committed rename of a once-dirty file still moves its row.
    for path in previously_dirty:
        if is_indexable_path(path) and path not in dirty_now and path not in final:
            final[path] = FROM_HEAD
    renames = _useful_renames(moves, final)
    from_head = tuple(sorted(path for path, source in final.items() if source == FROM_HEAD))
    from_work = tuple(sorted(path for path, source in final.items() if source == FROM_WORK))
    return UpdatePlan(
        renames=renames,
        removals=tuple(sorted(path for path, source in final.items() if source is None)),
        from_head=from_head,
        from_work=from_work,
        rename_targets=frozenset(t for _, t in renames if final.get(t) is not None),
        dirty_after=frozenset(dirty_now),
        added=counts["A"],
        modified=counts["M"],
        removed=counts["D"],
        renamed=counts["R"],
        dirty=len(from_work),
    )


def _useful_renames(
    moves: list[tuple[str, str]], final: dict[str, Source | None]
) -> tuple[tuple[str, str], ...]:
    """Moves whose source is gone and whose target survives, directly or via a later move."""
    kept: list[tuple[str, str]] = []
    carried_on: set[str] = set()
    for source, target in reversed(moves):
        if final.get(source) is None and (final.get(target) is not None or target in carried_on):
            kept.append((source, target))
            carried_on.add(source)
    return tuple(reversed(kept))


def _apply_committed(
    entry: DiffEntry,
    final: dict[str, Source | None],
    moves: list[tuple[str, str]],
    counts: dict[str, int],
) -> None:
    target_indexed = is_indexable_path(entry.path)
    if entry.status == "R" and entry.from_path is not None:
        source_indexed = is_indexable_path(entry.from_path)
        if source_indexed:
            final[entry.from_path] = None
        if target_indexed:
            final[entry.path] = FROM_HEAD
        if source_indexed and target_indexed:
            moves.append((entry.from_path, entry.path))
            counts["R"] += 1
        elif source_indexed:
            counts["D"] += 1  # moved out of the PARA buckets: gone from the index
        elif target_indexed:
            counts["A"] += 1
        return
    if not target_indexed:
        return
    final[entry.path] = None if entry.status == "D" else FROM_HEAD
    counts[entry.status] += 1
