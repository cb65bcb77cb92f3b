"""What the steps after fusion read about its candidates: their rows, their best snippet and
their entity references (``CandidateStore``, docs/ranking.md §5)."""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.scope_sql import superseded_by_sql, text_literal
from memhtml.domain.scope import ENTITY_SEPARATOR


def snippet_sql(*, with_vector: bool) -> str:
    """Each listed path's best chunk: nearest ``?1`` in space ``?2``, else the lowest ordinal.

    ``?3`` is a JSON array of paths. A chunk without a vector (NULL distance) loses to any
    scored chunk and the ordinal breaks the remaining ties, so the pick is deterministic.
    """
    # sqlite-vec refuses a NULL blob, and the LEFT JOIN yields one for a chunk without a vector.
    distance = (
        "CASE WHEN e.vec IS NULL THEN NULL ELSE vec_distance_cosine(e.vec, ?1) END"
        if with_vector
        else "NULL"
    )
    return (
        "SELECT path, text FROM (SELECT c.path AS path, c.text AS text, ROW_NUMBER() OVER "
        "(PARTITION BY c.path ORDER BY dist IS NULL, dist, c.ordinal) AS pick FROM ("
        f"SELECT c.path, c.text, c.ordinal, {distance} AS dist FROM chunks c "
        "LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.model = ?2 "
        "WHERE c.path IN (SELECT value FROM json_each(?3))) c) WHERE pick = 1"
    )


CANDIDATE_SQL: Final = (
    "SELECT f.path, f.title, f.gist, f.memory_type, f.confidence, f.updated_at, "
    f"f.disclosure_text, e.vec, CASE WHEN f.archived = 1 THEN {superseded_by_sql('f')} END, "
    "f.importance, f.pinned, (SELECT json_group_array(tag) FROM "
    "(SELECT t.tag AS tag FROM file_tags t WHERE t.path = f.path ORDER BY t.tag)) "
    "FROM files f LEFT JOIN chunks c ON c.path = f.path AND c.ordinal = 0 "
    "LEFT JOIN embeddings e ON e.chunk_id = c.chunk_id AND e.model = ?2 "
    "WHERE f.path IN (SELECT value FROM json_each(?1))"
)
"""What polarity, MMR and the hits read about candidates (``?1`` a JSON array of paths).

The vector is the ordinal-0 chunk's: the chunk that opens with the claim, whose polarity the
step reads. A mean over every chunk would blur the claim into its details.
"""

ENTITY_SQL: Final = (
    f"SELECT path, entity_type || {text_literal(ENTITY_SEPARATOR)} || entity_name "
    "FROM file_entities "
    "WHERE path IN (SELECT value FROM json_each(?1))"
)
"""Every ``type:name`` reference of the listed paths (``?1`` a JSON array)."""
