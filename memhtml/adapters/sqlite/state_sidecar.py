"""``state.access`` out to its sidecar text and back in with a merge (docs/index-schema.md §4,
docs/decisions.md §16).

The state plane cannot be rebuilt from git, so its durable copy is the committed
``.memhtml/state/access.jsonl``. Rendering and parsing are the domain's
(:mod:`memhtml.domain.sidecar`); this module reads the table in path order and merges imported
rows in SQL, the twin of :func:`memhtml.domain.reinforce.merge_access`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, SqlValue, Write
from memhtml.adapters.sqlite.schema import WRITE_BATCH_SIZE
from memhtml.domain.reinforce import AccessRow
from memhtml.domain.sidecar import parse_sidecar, render_sidecar
from memhtml.faults import fault_point
from memhtml.ports.errors import StorageFailure
from memhtml.ports.state_plane import StateImport


def _larger_stamp(column: str) -> str:
    # Multi-argument max() is NULL when either side is, where the merge wants the other side.
    return (
        f"CASE WHEN a.{column} IS NULL THEN excluded.{column} "
        f"WHEN excluded.{column} IS NULL THEN a.{column} "
        f"ELSE max(a.{column}, excluded.{column}) END"
    )


MERGE_SQL: Final = (
    "INSERT INTO state.access AS a (path, access_count, reinforcement_count, outcome_score, "
    "last_accessed_at, last_reinforced_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
    "ON CONFLICT (path) DO UPDATE SET "
    "access_count = max(a.access_count, excluded.access_count), "
    "reinforcement_count = max(a.reinforcement_count, excluded.reinforcement_count), "
    # Every SET expression reads the old row, so this compares the stamps before the merge.
    "outcome_score = CASE WHEN a.last_reinforced_at IS NOT NULL AND "
    "(excluded.last_reinforced_at IS NULL OR a.last_reinforced_at > excluded.last_reinforced_at) "
    "THEN a.outcome_score ELSE excluded.outcome_score END, "
    f"last_accessed_at = {_larger_stamp('last_accessed_at')}, "
    f"last_reinforced_at = {_larger_stamp('last_reinforced_at')}, "
    "updated_at = max(a.updated_at, excluded.updated_at)"
)
"""One imported row over the plane: counts and stamps by max, the outcome from the later side.

Never the max of two outcomes: a negative outcome must survive a round trip. Text compares in
SQLite's binary order, which for UTF-8 is Python's ``str`` order, so the stamps compare as the
twin compares them.
"""


ROW_SELECT: Final = (
    "SELECT path, access_count, reinforcement_count, outcome_score, last_accessed_at, "
    "last_reinforced_at, updated_at FROM state.access"
)


def access_rows(db: Database) -> tuple[AccessRow, ...]:
    """Every ``state.access`` row, ordered by path in SQL so two exports are byte-equal.

    Raises:
        StorageFailure: The plane is missing or unreadable.
    """
    rows = db.all(f"{ROW_SELECT} ORDER BY path", operation="read access rows")
    return tuple(_access_row(row) for row in rows)


def _access_row(row: Sequence[SqlValue], *, path: str | None = None) -> AccessRow:
    """A selected row as an ``AccessRow`` (at ``path`` when given)."""
    at, count, reinforced, outcome, accessed, reinforced_at, updated = row
    return AccessRow(
        path=str(at) if path is None else path,
        access_count=_count(count),
        reinforcement_count=_count(reinforced),
        outcome_score=_score(outcome),
        last_accessed_at=None if accessed is None else str(accessed),
        last_reinforced_at=None if reinforced_at is None else str(reinforced_at),
        updated_at=str(updated),
    )


# The table's CHECKs make any other type a corrupt plane, reported like any storage failure.
def _count(value: SqlValue) -> int:
    if isinstance(value, int):
        return value
    raise StorageFailure("read access rows")


def _score(value: SqlValue) -> float:
    if isinstance(value, int | float):
        return float(value)
    raise StorageFailure("read access rows")


def _merge_params(row: AccessRow) -> tuple[SqlValue, ...]:
    return (
        row.path,
        row.access_count,
        row.reinforcement_count,
        row.outcome_score,
        row.last_accessed_at,
        row.last_reinforced_at,
        row.updated_at,
    )


def merge_access_rows(db: Database, rows: Sequence[AccessRow]) -> None:
    """Merge ``rows`` into the plane in order, :data:`WRITE_BATCH_SIZE` per transaction.

    A path listed twice merges twice, which is the same as merging the two rows first.

    Raises:
        StorageFailure: A batch fails; earlier batches stay.
    """
    writes: list[Write] = [(MERGE_SQL, _merge_params(row)) for row in rows]
    for start in range(0, len(writes), WRITE_BATCH_SIZE):
        db.write_all(writes[start : start + WRITE_BATCH_SIZE], operation="import access rows")
        fault_point("state.batch")


class SqliteStatePlane:
    """The :class:`memhtml.ports.state_plane.StatePlane` over an attached ``state.access``."""

    def __init__(self, db: Database) -> None:
        """Serve the state plane of ``db``."""
        self._db = db

    def export_access(self) -> str:
        """The sidecar text of the whole table; ``""`` for an empty one.

        Raises:
            StorageFailure: No state plane is attached, or it cannot be read.
        """
        self._require_state("export access rows")
        return render_sidecar(access_rows(self._db))

    def import_access(self, sidecar: str) -> StateImport:
        """Merge a sidecar's rows into the plane; torn lines are skipped and counted.

        Raises:
            StorageFailure: No state plane is attached, or a write fails.
        """
        self._require_state("import access rows")
        parsed = parse_sidecar(sidecar)
        merge_access_rows(self._db, parsed.rows)
        return StateImport(merged=len(parsed.rows), skipped=parsed.skipped)

    def move_access(self, moves: Sequence[tuple[str, str]]) -> int:
        """See ``StatePlane.move_access``: per move, the source row is read, deleted and
        merged into the target by ``MERGE_SQL`` (the twin of ``merge_access``) in one
        transaction.

        Raises:
            StorageFailure: No state plane is attached, or a write fails.
        """
        self._require_state("move access rows")
        count = 0
        for source, target in moves:
            if source == target:
                continue
            row = self._db.get(
                f"{ROW_SELECT} WHERE path = ?", (source,), operation="read an access row"
            )
            if row is None:
                continue
            moved = _access_row(row, path=target)
            self._db.write_all(
                [
                    ("DELETE FROM state.access WHERE path = ?", (source,)),
                    (MERGE_SQL, _merge_params(moved)),
                ],
                operation="move access rows",
            )
            count += 1
        return count

    def _require_state(self, operation: str) -> None:
        if not self._db.has_state:
            raise StorageFailure(operation)
