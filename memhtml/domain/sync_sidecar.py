"""Merging two sides' access sidecars (docs/sync.md §4).

The rule is ``state import``'s (docs/decisions.md §16, ``reinforce.merge_access``): counts and
timestamps by max, the outcome from the side reinforced later. Two sidecars are merged by
importing the later side's rows over the earlier side's, so on a tie of reinforcement stamps
the later side's outcome wins; with any other rows the result does not depend on the order.

A row is keyed by path, so when the merge moved a side's memory (set it aside to a free path,
or folded it into another copy), that side's row is re-keyed to where the memory went before
the rows merge (:func:`follow_moves`): the row follows the memory, and the file that now holds
the old path does not inherit it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from memhtml.domain.reinforce import AccessRow, merge_access
from memhtml.domain.sidecar import parse_sidecar, render_sidecar


@attrs.frozen(kw_only=True)
class MergedSidecar:
    """The merged sidecar text and what it took.

    Attributes:
        text: The rendered sidecar, one row per path, sorted (byte-stable).
        rows: Rows in it.
        skipped: Torn or malformed lines of either side, left out.
    """

    text: str
    rows: int
    skipped: int


def merge_sidecars(
    earlier: str,
    later: str,
    *,
    earlier_moves: Mapping[str, str] | None = None,
    later_moves: Mapping[str, str] | None = None,
) -> MergedSidecar:
    """Both sides' access rows, merged path by path; every row of either side is kept, each
    side's re-keyed by its moves (``source → target``) first."""
    first, second = parse_sidecar(earlier), parse_sidecar(later)
    rows = (
        *follow_moves(first.rows, earlier_moves or {}),
        *follow_moves(second.rows, later_moves or {}),
    )
    merged: dict[str, AccessRow] = {}
    for row in rows:
        merged[row.path] = merge_access(merged.get(row.path), row)
    return MergedSidecar(
        text=render_sidecar(merged.values()),
        rows=len(merged),
        skipped=first.skipped + second.skipped,
    )


def follow_moves(rows: Iterable[AccessRow], moves: Mapping[str, str]) -> tuple[AccessRow, ...]:
    """Each row at the path its memory moved to (unmoved rows as they are), in order."""
    return tuple(
        attrs.evolve(row, path=moves[row.path]) if row.path in moves else row for row in rows
    )


def move_access_rows(
    table: Mapping[str, AccessRow], moves: Iterable[tuple[str, str]]
) -> dict[str, AccessRow]:
    """The access table after each ``(source, target)`` move in order: the source row leaves
    and merges into the target's (``merge_access``, the moved row as the imported one); a
    move whose source has no row changes nothing. The twin of ``StatePlane.move_access``."""
    result = dict(table)
    for source, target in moves:
        row = result.pop(source, None)
        if row is None or source == target:
            if row is not None:
                result[source] = row
            continue
        result[target] = merge_access(result.get(target), attrs.evolve(row, path=target))
    return result
