"""A rebuild's secondary indexes: set aside while the rows go in, built once at the end.

Inserting 10,000 memories into tables that carry ~30 non-unique indexes updates each of them
per row; building an index once over the filled table sorts it in one pass. So the rebuild's
truncate copies the definitions of the memory tables' non-unique indexes into
:data:`SHELF_TABLE` and drops them, in one transaction, *after* its deletes (the delete
trigger of migration 0002 looks rows up by content hash and would scan without its index), and
``finish_rebuild`` builds every shelved index again and drops the shelf, in its transaction.

Unique indexes stay: the writes rely on them (a content hash held twice is refused, chunk keys
are unique). The definitions are the ones SQLite holds, read back from ``sqlite_master`` in
the transaction that drops them, so a migration that adds an index is covered without a list
kept here. A rebuild killed in between leaves the shelf in ``index.db`` with a NULL watermark:
the next command rebuilds, adds what is still standing to the shelf, and its finish builds
everything. A migration that drops a memory table's index must therefore say ``IF EXISTS``
(docs/index-schema.md §3.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.adapters.sqlite.schema import MEMORY_TABLES
from memhtml.adapters.sqlite.scope_sql import text_literal

SHELF_TABLE: Final = "main.rebuild_index_shelf"
_CREATE_PREFIX: Final = "CREATE INDEX "
_SHELVED: Final = (
    "type = 'index' AND sql IS NOT NULL AND sql GLOB 'CREATE INDEX *' "
    f"AND tbl_name IN ({', '.join(text_literal(table) for table in MEMORY_TABLES)})"
)
SHELVABLE_SQL: Final = f"SELECT name FROM main.sqlite_master WHERE {_SHELVED} ORDER BY name"
"""The names of the indexes a truncate sets aside: non-unique, on a table a rebuild empties.
(SQLite stores a definition's first words as ``CREATE INDEX`` or ``CREATE UNIQUE INDEX``,
spaces and ``IF NOT EXISTS`` removed, and ``sql`` is NULL for the indexes behind a constraint.)"""
_CREATE_SHELF: Final = (
    f"CREATE TABLE IF NOT EXISTS {SHELF_TABLE} (name TEXT PRIMARY KEY, sql TEXT NOT NULL)"
)


def shelve_writes(names: Sequence[str]) -> list[Write]:
    """The definitions of ``names`` (read by :data:`SHELVABLE_SQL` just before) kept, then the
    indexes dropped. A name another writer dropped in between is kept by none and dropped by
    ``IF EXISTS``; one added in between stays standing and is simply maintained."""
    return [
        (_CREATE_SHELF, ()),
        (
            f"INSERT INTO {SHELF_TABLE} (name, sql) SELECT name, sql FROM main.sqlite_master "
            f"WHERE {_SHELVED} ON CONFLICT(name) DO NOTHING",
            (),
        ),
        *((f"DROP INDEX IF EXISTS main.{_quoted(name)}", ()) for name in names),
    ]


def unshelve_writes(db: Database) -> list[Write]:
    """Every shelved index built again (unless a migration made it meanwhile) and the shelf
    dropped; nothing when no shelf exists. Runs inside ``finish_rebuild``'s transaction."""
    exists = db.get(
        "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?",
        (SHELF_TABLE.removeprefix("main."),),
        operation="read shelved indexes",
    )
    if exists is None:
        return []
    shelved = db.all(
        f"SELECT name, sql FROM {SHELF_TABLE} ORDER BY name", operation="read shelved indexes"
    )
    return [
        *((_if_missing(str(sql)), ()) for _, sql in shelved),
        (f"DROP TABLE {SHELF_TABLE}", ()),
    ]


def _if_missing(definition: str) -> str:
    # _SHELVED admits only definitions that start with exactly this prefix.
    return "CREATE INDEX IF NOT EXISTS " + definition.removeprefix(_CREATE_PREFIX)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
