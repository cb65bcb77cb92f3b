"""Instants in SQL: the twin of :mod:`memhtml.domain.instants`.

``julianday()`` returns a double of whole milliseconds; multiplied by the day's milliseconds and
rounded it gives those milliseconds back exactly, so instant arithmetic in SQL matches the
domain's to the bit.
"""

from __future__ import annotations

from typing import Final

MS_PER_DAY: Final = 86_400_000
MS_PER_HOUR: Final = 3_600_000
UNIX_EPOCH_JD_MS: Final = 210_866_760_000_000


def stamp_ms_sql(expr: str) -> str:
    """SQL for the Unix milliseconds of a stamp, NULL when ``julianday()`` cannot read it.

    The twin of :func:`memhtml.domain.instants.instant_ms`: an exact integer-valued double, so a
    difference of two is exact and one division rounds the same way Python's ``/`` does.
    Migration 0010 indexes this very expression over ``files.updated_at``; SQLite uses an
    expression index only for the same expression, so changing it here needs a new migration.
    """
    return f"(round(julianday({expr}) * {MS_PER_DAY}.0) - {UNIX_EPOCH_JD_MS})"
