"""The session arm's expected order, computed from the pure rule for rows loaded into an index.

Shared by the fused-statement twin test and the session arm's own contract test: the session
documents come from ``domain.session_documents`` (and are checked equal to the stored ones),
each document's bm25 and each memory's own bm25 from separate queries under the any-term form,
and ``session_ranking`` orders them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from memhtml.adapters.sqlite.connection import Database
from memhtml.domain.lexical_context import ContextFacts
from memhtml.domain.session_documents import (
    SessionKey,
    session_documents,
    session_key,
    session_ranking,
)
from tests.fakes.retrieval_rows import EdgeRow, MemoryRow

_OWN_BM25_SQL = (
    "SELECT f.path, bm25(files_fts) FROM files_fts "
    "JOIN files f ON f.rowid = files_fts.rowid WHERE files_fts MATCH ?"
)
_SESSION_BM25_SQL = (
    "SELECT d.session_id, d.archived, bm25(session_fts) FROM session_fts "
    "JOIN session_documents d ON d.rowid = session_fts.rowid WHERE session_fts MATCH ?"
)


def context_facts(
    rows: Sequence[MemoryRow], edges: Sequence[EdgeRow], text_of: Callable[[MemoryRow], str]
) -> list[ContextFacts]:
    """What the context and session twins read about each row, its own text from ``text_of``."""
    return [
        ContextFacts(
            path=row.path,
            memory_type=row.memory_type,
            session_id=row.session_id,
            archived=row.archived,
            order_at=row.event_at if row.event_at is not None else row.created_at,
            title=row.title or row.path,
            fts_text=text_of(row),
            tags=tuple(row.tags),
            entity_names=tuple(name for _, name in row.entities),
            link_targets=tuple(e.dst_path for e in edges if e.src_path == row.path),
        )
        for row in rows
    ]


def session_order(
    db: Database,
    rows: Sequence[MemoryRow],
    admitted: Sequence[MemoryRow],
    any_match: str,
    arm_limit: int,
) -> list[str]:
    """The session arm's list for ``rows`` loaded into ``db``, ``admitted`` being those the
    scope lets in."""
    texts = {str(p): str(t) for p, t in db.all("SELECT path, fts_text FROM files", ())}
    facts = context_facts(rows, [], lambda row: texts[row.path])
    documents = session_documents(facts)
    stored = db.all("SELECT session_id, archived, text FROM session_documents", ())
    assert documents == {
        SessionKey(session_id=str(sid), archived=bool(arch)): str(text)
        for sid, arch, text in stored
    }
    session_scores = {
        SessionKey(session_id=str(sid), archived=bool(arch)): float(str(score))
        for sid, arch, score in db.all(_SESSION_BM25_SQL, (any_match,))
    }
    inside = {row.path for row in admitted}
    own = {
        str(path): float(str(score))
        for path, score in db.all(_OWN_BM25_SQL, (any_match,))
        if path in inside
    }
    keys = {fact.path: key for fact in facts if (key := session_key(fact)) is not None}
    return session_ranking(
        session_scores=session_scores,
        own_scores={path: score for path, score in own.items() if path in keys},
        sessions={path: keys[path] for path in own if path in keys},
        limit=arm_limit,
    )
