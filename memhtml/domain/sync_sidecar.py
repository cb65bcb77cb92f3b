"""Merging two sides' access sidecars (docs/sync.md §4).

The rule is ``state import``'s (docs/decisions.md §16, ``reinforce.merge_access``): counts and
timestamps by max, the outcome from the side reinforced later. Two sidecars are merged by
importing the later side's rows over the earlier side's, so on a tie of reinforcement stamps
the later side's outcome wins; with any other rows the result does not depend on the order.
"""

from __future__ import annotations

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


def merge_sidecars(earlier: str, later: str) -> MergedSidecar:
    """Both sides' access rows, merged path by path; every path of either side is kept."""
    first, second = parse_sidecar(earlier), parse_sidecar(later)
    merged: dict[str, AccessRow] = {}
    for row in (*first.rows, *second.rows):
        merged[row.path] = merge_access(merged.get(row.path), row)
    return MergedSidecar(
        text=render_sidecar(merged.values()),
        rows=len(merged),
        skipped=first.skipped + second.skipped,
    )
