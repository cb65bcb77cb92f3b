"""The session documents and the ``session`` arm in SQL: the twins of ``domain.session_documents``.

``session_documents`` holds one document per session of episodic memories (session id and
archived flag), ``session_fts`` indexes it (external content, kept in step by triggers, like
``context_fts``). Triggers on ``files`` record the sessions a row entered or left in
``session_dirty`` (migration 0009), in the same transaction as the change; the context refresh
(``context_sql.py``) runs :data:`REFRESH_SESSION_WRITES` in its own transaction, so a document
is redone exactly when one of its members changed.
"""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.scope_sql import text_literal
from memhtml.domain.fts_query import ALL_JOINER, ANY_JOINER
from memhtml.domain.lexical_context import NEIGHBOUR_TYPE, PART_SEPARATOR
from memhtml.domain.session_documents import SESSION_DEPTH

SESSION_TABLE: Final = "session_documents"
SESSION_INDEX_NAME: Final = "session_fts"
SESSION_DIRTY_TABLE: Final = "session_dirty"
HAS_SESSION_DIRTY_SQL: Final = f"SELECT EXISTS (SELECT 1 FROM {SESSION_DIRTY_TABLE})"

_DIRTY: Final = (
    f"(session_id, archived) IN (SELECT session_id, archived FROM {SESSION_DIRTY_TABLE})"
)

REFRESH_SESSION_WRITES: Final[tuple[str, ...]] = (
    f"DELETE FROM {SESSION_TABLE} WHERE {_DIRTY}",
    # The twin's order: event time, else creation time, then path; one line per member.
    f"INSERT INTO {SESSION_TABLE}(session_id, archived, text) "
    f"SELECT session_id, archived, group_concat(fts_text, {text_literal(PART_SEPARATOR)} "
    "ORDER BY coalesce(event_at, created_at), path) FROM files "
    f"WHERE memory_type = {text_literal(NEIGHBOUR_TYPE)} AND session_id IS NOT NULL "
    f"AND {_DIRTY} GROUP BY session_id, archived",
    f"DELETE FROM {SESSION_DIRTY_TABLE}",
)
"""Redo the documents of every dirty session (drop those left without members), then forget
the dirty sessions; one transaction."""


def session_arm_sql(
    scope: str, *, query_param: int, limit_param: int, shared_matches: str | None = None
) -> str:
    """The ``session`` arm's ``(path, rank)`` statement; its twin is
    ``domain.session_documents.session_ranking``.

    ``scope`` is the scope filter written against alias ``f``. Both full-text tables are
    matched under the any-term form (``replace`` turns the all-terms joiner back, as the time
    arm does). Three steps, each materialized so that every full-text MATCH runs once: the
    matching sessions with their bm25, the in-scope episodic memories whose own text matches
    with theirs, then the best ``SESSION_DEPTH`` sessions holding one of those memories. Written
    as one join instead, the planner re-ran a MATCH per row of the other side: 8× the time at
    10,000 memories (BENCHMARKS.md).

    ``shared_matches`` names a CTE of the statement that holds every in-scope own-text match
    of the MATCH parameter with its bm25 (``retrieval_sql``'s, when the fts arm binds the
    any-term form): the own-text step reads it instead of matching again.
    """
    match = f"replace(?{query_param}, {text_literal(ALL_JOINER)}, {text_literal(ANY_JOINER)})"
    if shared_matches is not None:
        # The MATCH parameter is the any-term form already and the CTE holds its in-scope
        # matches: the same rows the own-text step would compute.
        match = f"?{query_param}"
    sessions = (
        f"SELECT d.session_id AS sid, d.archived AS arch, bm25({SESSION_INDEX_NAME}) AS sscore "
        f"FROM {SESSION_INDEX_NAME} JOIN {SESSION_TABLE} d ON d.rowid = {SESSION_INDEX_NAME}.rowid "
        f"WHERE {SESSION_INDEX_NAME} MATCH {match}"
    )
    if shared_matches is not None:
        own = (
            f"SELECT path, sid, arch, score FROM {shared_matches} "
            f"WHERE mtype = {text_literal(NEIGHBOUR_TYPE)} AND sid IS NOT NULL"
        )
    else:
        own = (
            "SELECT f.path AS path, f.session_id AS sid, f.archived AS arch, "
            "bm25(files_fts) AS score FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
            f"WHERE files_fts MATCH {match} AND f.memory_type = {text_literal(NEIGHBOUR_TYPE)} "
            f"AND f.session_id IS NOT NULL {scope}"
        )
    # The twin's session order (score, then key), counted over sessions holding a candidate.
    best = (
        "SELECT sid, arch, ROW_NUMBER() OVER (ORDER BY sscore, sid, arch) AS srank FROM s "
        "WHERE EXISTS (SELECT 1 FROM o WHERE o.sid = s.sid AND o.arch = s.arch) "
        f"ORDER BY sscore, sid, arch LIMIT {SESSION_DEPTH}"
    )
    return (
        "SELECT path, ROW_NUMBER() OVER (ORDER BY srank, score, path) FROM ("
        f"WITH s AS MATERIALIZED ({sessions}), o AS MATERIALIZED ({own}), "
        f"r AS MATERIALIZED ({best}) "
        "SELECT o.path AS path, o.score AS score, r.srank AS srank "
        "FROM r JOIN o ON o.sid = r.sid AND o.arch = r.arch "
        f"ORDER BY r.srank, o.score, o.path LIMIT ?{limit_param})"
    )
