"""The contextual lexical documents in SQL: the twin of ``domain.lexical_context``.

``file_context`` holds one document per indexed memory; ``context_fts`` indexes it (external
content, kept in step by triggers, like ``files_fts`` over ``files``). The refresh recomputes
every document in one statement and writes only those that changed, so a pass that changed
nothing rewrites nothing; a memory whose row goes takes its document along (foreign key).
The contract suite pins the documents to :func:`memhtml.domain.lexical_context.context_documents`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final

from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain.lexical_context import (
    CONTEXT_PARTS,
    DEFAULT_CONTEXT_PARTS,
    NEIGHBOUR_TYPE,
    PART_SEPARATOR,
    WORD_SEPARATOR,
)

CONTEXT_TABLE: Final = "file_context"

_PIECES: Final = {
    "meta": (
        "(SELECT group_concat(t.tag, {word} ORDER BY t.tag) FROM file_tags t "
        "WHERE t.path = f.path)",
        "(SELECT group_concat(n.name, {word} ORDER BY n.name) FROM (SELECT DISTINCT "
        "e.entity_name AS name FROM file_entities e WHERE e.path = f.path) n)",
    ),
    "links": (
        "(SELECT group_concat(d.title, {part} ORDER BY d.path) FROM files d WHERE d.path IN "
        "(SELECT x.dst_path FROM edges x WHERE x.src_path = f.path AND x.derived = 0) "
        "AND d.path <> f.path AND d.title <> '')",
    ),
    "prev": ("f.prev_text",),
}


def refresh_context_sql(parts: Collection[str] | None = None) -> str:
    """One statement that makes ``file_context`` hold every memory's current document, with
    ``parts`` (default :data:`DEFAULT_CONTEXT_PARTS`, read at call time).

    A document is written only when it is new or differs from the stored one, so the triggers
    re-index exactly the changed documents.

    Raises:
        ValueError: ``parts`` names a part that does not exist (a caller bug).
    """
    parts = DEFAULT_CONTEXT_PARTS if parts is None else parts
    unknown = set(parts) - set(CONTEXT_PARTS)
    if unknown:
        raise ValueError(f"unknown context parts: {sorted(unknown)}")
    word, part = text_literal(WORD_SEPARATOR), text_literal(PART_SEPARATOR)
    pieces = ["f.fts_text"]
    for name in CONTEXT_PARTS:
        if name in parts:
            pieces += [piece.format(word=word, part=part) for piece in _PIECES[name]]
    document = ", ".join(f"nullif({piece}, '')" for piece in pieces)
    # The previous episodic memory of the same session and archived flag: LAG over that
    # partition, ordered as the twin orders (event time, else creation time, then path).
    previous = (
        f"CASE WHEN memory_type = {text_literal(NEIGHBOUR_TYPE)} AND session_id IS NOT NULL "
        "THEN lag(fts_text) OVER (PARTITION BY memory_type = "
        f"{text_literal(NEIGHBOUR_TYPE)}, session_id IS NULL, session_id, archived "
        "ORDER BY coalesce(event_at, created_at), path) END"
    )
    return (
        f"INSERT INTO {CONTEXT_TABLE}(path, text) "
        f"SELECT f.path, coalesce(concat_ws({part}, {document}), '') FROM ("
        f"SELECT path, title, fts_text, {previous} AS prev_text FROM files) f WHERE true "
        "ON CONFLICT(path) DO UPDATE SET text = excluded.text "
        f"WHERE {CONTEXT_TABLE}.text IS NOT excluded.text"
    )
