"""Query-blind salience seeding: the access rows the state plane starts from
(docs/evaluation.md §A.2).

Rows come from their own stream, so the salience arm carries signal that is unrelated to any
probe: it can push a target up or leave it alone, never single out a control (controls have
no history at all).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from memhtml.app.eval.discrimination.fixture import DAY_MS, instant_of
from memhtml.app.eval.discrimination.prng import SplitMix64
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.reinforce import AccessRow

ACCESS_SHARE: Final = 0.6
ACCESS_OFFSET: Final = 0.08
REINFORCE_SCALE: Final = 6
FIRST_ACCESS_DAY: Final = 240
ACCESS_DAYS: Final = 20
ACCESS_HOUR_MS: Final = 12 * 3_600_000


def half_up(value: float) -> int:
    """Round half up: unlike ``round``, the same in every language the numbers are compared in."""
    return math.floor(value + 0.5)


def access_row(path: str, u: float, day: int, epoch_ms: int) -> AccessRow:
    """The row for a draw ``u <= 0.6`` accessed on day ``day`` after the epoch."""
    count = max(1, half_up(1 / (ACCESS_OFFSET + u)))
    reinforced = min(count, math.floor(REINFORCE_SCALE * u))
    stamp = utc_stamp(instant_of(epoch_ms + day * DAY_MS + ACCESS_HOUR_MS))
    return AccessRow(
        path=path,
        access_count=count,
        reinforcement_count=reinforced,
        outcome_score=half_up(u * 100) / 100,
        last_accessed_at=stamp,
        last_reinforced_at=stamp if reinforced else None,
        updated_at=stamp,
    )


def access_rows(paths: Sequence[str], stream: SplitMix64, epoch_ms: int) -> tuple[AccessRow, ...]:
    """Walk ``paths`` in order: draw ``u``; at or under 0.6 the path gets a row."""
    rows: list[AccessRow] = []
    for path in paths:
        u = stream.next_float()
        if u <= ACCESS_SHARE:
            day = FIRST_ACCESS_DAY + stream.below(ACCESS_DAYS)
            rows.append(access_row(path, u, day, epoch_ms))
    return tuple(rows)
