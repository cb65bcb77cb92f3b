"""The contextual lexical documents in SQL: the twin of ``domain.lexical_context``.

``file_context`` holds the document of each indexed memory that has some context, under that
memory's rowid in ``files`` (migration 0013), and the path of the neighbour it quotes;
``context_fts`` indexes it (external content, kept in step by triggers, like ``files_fts`` over
``files``; a rebuild drops those triggers with its truncate, and the refresh that follows
recreates them and indexes the documents in one pass: :func:`context_index_back_writes`).
Triggers on ``files`` record every path whose
row changed in ``context_dirty`` (migration 0004), in the same transaction as the change. A
refresh redoes the documents those changes can reach — the changed memories, every memory of
their sessions, memories that quoted one of them as neighbour, memories linking to one of
them — writes those that differ, and empties ``context_dirty``, all in one transaction. The
contract suite pins the result to :func:`memhtml.domain.lexical_context.context_documents`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from memhtml.adapters.sqlite.schema import CONTEXT_FTS_TRIGGERS, CONTEXT_INDEX_NAME
from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain import lexical_context
from memhtml.domain.lexical_context import (
    CONTEXT_PARTS,
    NEIGHBOUR_TYPE,
    PART_SEPARATOR,
    WORD_SEPARATOR,
)

CONTEXT_TABLE: Final = "file_context"
DIRTY_TABLE: Final = "context_dirty"
HAS_DIRTY_SQL: Final = f"SELECT EXISTS (SELECT 1 FROM {DIRTY_TABLE})"
CLEAR_DIRTY_SQL: Final = f"DELETE FROM {DIRTY_TABLE}"
CONTEXT_INDEX_OFF_SQL: Final = (
    "SELECT count(*) < "
    f"{len(CONTEXT_FTS_TRIGGERS)} FROM main.sqlite_master WHERE type = 'trigger' AND name IN "
    f"({', '.join(text_literal(name) for name in CONTEXT_FTS_TRIGGERS)})"
)
"""Whether a rebuild dropped the context index's triggers (one row, 0 or 1)."""


def context_index_off_writes() -> tuple[str, ...]:
    """A rebuild's truncate, for the context index: no trigger run per document deleted now or
    written by the refresh after it (``DELETE FROM file_context`` follows these)."""
    return (
        *(f"DROP TRIGGER IF EXISTS main.{name}" for name in CONTEXT_FTS_TRIGGERS),
        f"INSERT INTO main.{CONTEXT_INDEX_NAME}({CONTEXT_INDEX_NAME}) VALUES ('delete-all')",
    )


def context_index_back_writes() -> tuple[str, ...]:
    """The triggers recreated and every document indexed in one pass; run in the refresh's
    transaction, after its writes. Until then the watermark stays NULL (the rebuild records it
    later), so a rebuild that dies first is followed by another, never by an update."""
    return (
        *(f"DROP TRIGGER IF EXISTS main.{name}" for name in CONTEXT_FTS_TRIGGERS),
        *CONTEXT_FTS_TRIGGERS.values(),
        f"INSERT INTO main.{CONTEXT_INDEX_NAME}({CONTEXT_INDEX_NAME}) VALUES ('rebuild')",
    )


_PIECES: Final = {
    "meta": (
        "(SELECT group_concat(t.tag, {word} ORDER BY t.tag) FROM file_tags t "
        "WHERE t.path = f.path)",
        "(SELECT group_concat(n.name, {word} ORDER BY n.name) FROM (SELECT DISTINCT "
        "e.entity_name AS name FROM file_entities e WHERE e.path = f.path) n)",
    ),
    "links": (
        "(SELECT group_concat(d.title, {part} ORDER BY d.path) FROM files d WHERE d.path IN "
        "(SELECT x.dst_path FROM edges x WHERE x.src_path = f.path AND +x.derived = 0) "
        "AND d.path <> f.path AND d.title <> '')",
    ),
    "prev": ("f.prev_text",),
}

# The unary `+` on `derived` keeps the planner on edges_src/edges_dst: without statistics it
# picks edges_derived for `derived = 0` and reads every authored edge (8 ms of a one-file
# update at 10k files, against 0.2 ms).
# What a change can reach: the changed paths, their sessions' members, the memories that
# quoted one of them as neighbour, and the memories whose authored links point at one.
_TOUCHED: Final = (
    f"seeds(path) AS (SELECT path FROM {DIRTY_TABLE}), "
    "touched(path) AS ("
    "SELECT path FROM seeds "
    f"UNION SELECT c.path FROM {CONTEXT_TABLE} c WHERE c.prev_path IN (SELECT path FROM seeds) "
    "UNION SELECT e.src_path FROM edges e "
    "WHERE e.dst_path IN (SELECT path FROM seeds) AND +e.derived = 0 "
    "UNION SELECT m.path FROM files m WHERE m.session_id IN (SELECT s.session_id FROM files s "
    "WHERE s.path IN (SELECT path FROM seeds) AND s.session_id IS NOT NULL)), "
    # Every member of a touched memory's session, so the neighbour window sees whole sessions.
    "pool AS (SELECT * FROM files WHERE path IN (SELECT path FROM touched) "
    "OR session_id IN (SELECT t.session_id FROM files t "
    "WHERE t.path IN (SELECT path FROM touched) AND t.session_id IS NOT NULL))"
)


_SCRATCH: Final = "temp.context_new"


def refresh_context_writes(parts: Collection[str] | None = None) -> tuple[str, ...]:
    """The statements of one refresh, in one transaction: compute the reachable documents
    into a scratch table, drop the stored documents of memories left without context, write
    the ones that changed, forget the dirty paths. ``parts`` defaults to
    ``DEFAULT_CONTEXT_PARTS``, read at call time.

    Raises:
        ValueError: ``parts`` names a part that does not exist (a caller bug).
    """
    parts = lexical_context.DEFAULT_CONTEXT_PARTS if parts is None else parts
    unknown = set(parts) - set(CONTEXT_PARTS)
    if unknown:
        raise ValueError(f"unknown context parts: {sorted(unknown)}")
    word, part = text_literal(WORD_SEPARATOR), text_literal(PART_SEPARATOR)
    pieces: list[str] = []
    for name in CONTEXT_PARTS:
        if name in parts:
            pieces += [piece.format(word=word, part=part) for piece in _PIECES[name]]
    extra = (
        "coalesce(concat_ws({part}, {items}), '')".format(
            part=part, items=", ".join(f"nullif({piece}, '')" for piece in pieces)
        )
        if pieces
        else "''"
    )
    # The previous episodic memory of the same session and archived flag: LAG over that
    # partition, ordered as the twin orders (event time, else creation time, then path).
    episodic = text_literal(NEIGHBOUR_TYPE)
    window = (
        f"OVER (PARTITION BY memory_type = {episodic}, session_id IS NULL, session_id, "
        "archived ORDER BY coalesce(event_at, created_at), path)"
    )
    neighbour = f"CASE WHEN memory_type = {episodic} AND session_id IS NOT NULL THEN lag"
    prev_path = f"{neighbour}(path) {window} END" if "prev" in parts else "NULL"
    compute = (
        f"WITH {_TOUCHED} "
        f"INSERT INTO {_SCRATCH}(path, own, extra, prev_path) "
        f"SELECT f.path, f.fts_text, {extra}, f.prev_path FROM ("
        f"SELECT path, title, fts_text, {neighbour}(fts_text) {window} END AS prev_text, "
        f"{prev_path} AS prev_path FROM pool) f "
        "WHERE f.path IN (SELECT path FROM touched)"
    )
    # A document takes its memory's rowid (migration 0013): the context arm joins by it.
    upsert = (
        f"INSERT INTO {CONTEXT_TABLE}(rowid, path, text, prev_path) "
        "SELECT (SELECT m.rowid FROM files m WHERE m.path = s.path), s.path, "
        f"concat_ws({part}, nullif(s.own, ''), s.extra), s.prev_path FROM {_SCRATCH} s "
        "WHERE s.extra <> '' "
        "ON CONFLICT(path) DO UPDATE SET text = excluded.text, prev_path = excluded.prev_path "
        f"WHERE {CONTEXT_TABLE}.text IS NOT excluded.text "
        f"OR {CONTEXT_TABLE}.prev_path IS NOT excluded.prev_path"
    )
    return (
        f"CREATE TABLE IF NOT EXISTS {_SCRATCH} "
        "(path TEXT PRIMARY KEY, own TEXT, extra TEXT, prev_path TEXT)",
        f"DELETE FROM {_SCRATCH}",
        compute,
        f"DELETE FROM {CONTEXT_TABLE} WHERE path IN (SELECT path FROM {_SCRATCH} WHERE extra = '')",
        upsert,
        CLEAR_DIRTY_SQL,
    )
