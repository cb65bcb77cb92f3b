"""The :class:`memhtml.ports.index_census.IndexCensus` port over ``index.db``."""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.ports.errors import StorageFailure
from memhtml.ports.index_census import IndexCounts

_OPERATION: Final = "count index rows"

COUNTS_SQL: Final = (
    "SELECT (SELECT count(*) FROM files), "
    "(SELECT count(*) FROM files WHERE archived = 0), "
    "(SELECT count(*) FROM edges), "
    "(SELECT count(*) FROM edges WHERE derived = 1), "
    "(SELECT count(DISTINCT tag) FROM file_tags), "
    "(SELECT count(*) FROM (SELECT DISTINCT entity_type, entity_name FROM file_entities))"
)
"""Every count in one statement: six separate reads could straddle a concurrent write."""


class SqliteIndexCensus:
    """Counts the rows of one index."""

    def __init__(self, db: Database) -> None:
        """Count the rows of ``db``."""
        self._db = db

    def counts(self) -> IndexCounts:
        """The counts of the memory tables, read in one statement.

        Raises:
            StorageFailure: The index cannot be read.
        """
        row = self._db.get(COUNTS_SQL, operation=_OPERATION)
        if row is None:
            raise StorageFailure(_OPERATION)
        files, active, edges, derived, tags, entities = (_count(value) for value in row)
        return IndexCounts(
            files=files,
            active_files=active,
            edges=edges,
            derived_edges=derived,
            tags=tags,
            entities=entities,
        )


def _count(value: SqlValue) -> int:
    if isinstance(value, int):
        return value
    raise StorageFailure(_OPERATION)
