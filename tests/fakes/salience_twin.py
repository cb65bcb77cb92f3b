"""The salience arm's expected order, from the pure rule (``domain.reinforce``).

Shared by the fused-statement twin test and the salience arm's own contract test.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhtml.domain.reinforce import AccessRow, salience_applies, salience_hours, salience_score
from tests.fakes.retrieval_rows import MemoryRow


def salience_order(rows: Sequence[MemoryRow], access: Sequence[AccessRow], now: str) -> list[str]:
    """Every row the arm may rank, highest salience first, ties by path."""
    plane = {a.path: a for a in access}
    scores = {}
    for row in rows:
        if not salience_applies(row.path, row.memory_type):
            continue
        a = plane.get(row.path)
        hours = salience_hours(now, a.last_accessed_at if a else None, row.updated_at)
        scores[row.path] = salience_score(
            hours, a.access_count if a else 0, a.outcome_score if a else 0.0
        )
    return sorted(scores, key=lambda p: (-scores[p], p))
