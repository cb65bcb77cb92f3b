"""The ``index_state`` watermark (docs/index-schema.md §3.7): reading it as a value, and the writes
that move it.

Three states, not two: no row (never indexed: ``update`` rebuilds), a row with a NULL
``head_sha`` (a rebuild in flight or dead: ``update`` refuses), a row with a commit.

The working-tree paths indexed past the commit are kept beside it in ``index_settings``
(``DIRTY_PATHS_SETTING``, a JSON list). Git forgets a dirty edit the moment it is reverted,
so without this list the index would keep serving the reverted text as long as HEAD stayed put.

The files skipped because a smaller path holds their content are kept there too
(``DUPLICATES_SETTING``, a JSON object: path to the content hash it repeats), so an update reads
one again when the row holding its hash goes or changes, as a rebuild would index it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Final

from memhtml.adapters.sqlite.connection import Database, Row, Write
from memhtml.adapters.sqlite.schema import INDEX_STATE_ID, INDEX_STATE_TABLE, SETTINGS_TABLE
from memhtml.ports.errors import StorageFailure
from memhtml.ports.indexer import EMPTY_TREE_SHA, IndexState

READ_OPERATION: Final = "read index state"
DIRTY_PATHS_SETTING: Final = "dirty_paths"
DUPLICATES_SETTING: Final = "skipped_duplicates"
DUPLICATES_OPERATION: Final = "read skipped duplicates"
_SELECT: Final = (
    f"SELECT head_sha, embed_model, embed_dim, rebuilt_at, updated_at, "
    f"(SELECT value FROM {SETTINGS_TABLE} WHERE name = '{DIRTY_PATHS_SETTING}') "
    f"FROM {INDEX_STATE_TABLE} WHERE id = {INDEX_STATE_ID}"
)


def read_index_state(db: Database) -> IndexState | None:
    """The watermark row and its dirty paths in one query, or ``None`` when there is no row.

    Raises:
        StorageFailure: On a driver error, or a row this schema cannot produce (a wrong type,
            a non-positive dimension, an unreadable dirty list): a storage problem from every
            caller's point of view.
    """
    row = db.get(_SELECT, operation=READ_OPERATION)
    return None if row is None else _decode(row)


def _decode(row: Row) -> IndexState:
    head_sha, model, dim, rebuilt_at, updated_at, dirty = row
    # SQLite does not enforce column types: INTEGER affinity stores '12.5' as a real, and a
    # bool is an int to Python, so each check is exact.
    if not (head_sha is None or (isinstance(head_sha, str) and head_sha)):
        raise StorageFailure(READ_OPERATION)
    if not (isinstance(model, str) and model and type(dim) is int and dim > 0):
        raise StorageFailure(READ_OPERATION)
    if not (isinstance(rebuilt_at, str) and isinstance(updated_at, str)):
        raise StorageFailure(READ_OPERATION)
    return IndexState(
        head_sha=head_sha,
        embed_model=model,
        embed_dim=dim,
        rebuilt_at=rebuilt_at,
        updated_at=updated_at,
        dirty_paths=_decode_dirty(dirty),
    )


def _decode_dirty(value: object) -> frozenset[str]:
    if value is None:
        return frozenset()
    try:
        paths = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        paths = None
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise StorageFailure(READ_OPERATION)
    return frozenset(paths)


def read_duplicates(db: Database) -> dict[str, str]:
    """The skipped duplicates remembered, path to content hash; empty when none ever were.

    Raises:
        StorageFailure: On a driver error, or a value this code does not write.
    """
    row = db.get(
        f"SELECT value FROM {SETTINGS_TABLE} WHERE name = ?",
        (DUPLICATES_SETTING,),
        operation=DUPLICATES_OPERATION,
    )
    if row is None:
        return {}
    try:
        value = json.loads(row[0]) if isinstance(row[0], str) else None
    except ValueError:
        value = None
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise StorageFailure(DUPLICATES_OPERATION)
    return value


def begin_rebuild_writes(*, embed_model: str, embed_dim: int, now: str) -> tuple[Write, ...]:
    """Clear the watermark (inserting the row if needed) and record the configured space.

    Recording the space here, before any vector is written, is what makes a rebuild with a new
    model a migration of the whole space rather than a mix of two.
    """
    return (
        (
            f"INSERT INTO {INDEX_STATE_TABLE} "
            "(id, head_sha, embed_model, embed_dim, rebuilt_at, updated_at) "
            "VALUES (?, NULL, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET head_sha = NULL, "
            "embed_model = excluded.embed_model, embed_dim = excluded.embed_dim, "
            "rebuilt_at = excluded.rebuilt_at, updated_at = excluded.updated_at",
            (INDEX_STATE_ID, embed_model, embed_dim, now, now),
        ),
    )


def record_head_writes(
    *, head_sha: str | None, dirty_paths: Iterable[str], duplicates: Mapping[str, str], now: str
) -> tuple[Write, ...]:
    """Move the watermark to ``head_sha`` (``None``: an unborn HEAD) with its dirty paths and
    its skipped duplicates (replacing those remembered before)."""
    return (
        (
            f"UPDATE {INDEX_STATE_TABLE} SET head_sha = ?, updated_at = ? "
            f"WHERE id = {INDEX_STATE_ID}",
            (EMPTY_TREE_SHA if head_sha is None else head_sha, now),
        ),
        dirty_paths_write(dirty_paths),
        (
            f"INSERT INTO {SETTINGS_TABLE} (name, value) VALUES (?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
            (DUPLICATES_SETTING, _encode(duplicates)),
        ),
    )


def remember_duplicates_write(duplicates: Mapping[str, str]) -> Write:
    """Add to the remembered duplicates in one statement (``json_patch`` merges the objects),
    so two passes adding at once both land."""
    return (
        f"INSERT INTO {SETTINGS_TABLE} (name, value) VALUES (?, ?) "
        "ON CONFLICT(name) DO UPDATE SET value = json_patch(value, excluded.value)",
        (DUPLICATES_SETTING, _encode(duplicates)),
    )


def _encode(duplicates: Mapping[str, str]) -> str:
    return json.dumps(dict(duplicates), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def dirty_paths_write(paths: Iterable[str]) -> Write:
    """Store the dirty paths, sorted so an unchanged set writes the same bytes."""
    value = json.dumps(sorted(set(paths)), ensure_ascii=False, separators=(",", ":"))
    return (
        f"INSERT INTO {SETTINGS_TABLE} (name, value) VALUES (?, ?) "
        "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
        (DIRTY_PATHS_SETTING, value),
    )
