"""The session document and the ``session`` arm's ranking rule: the pure twins of their SQL.

A conversation spreads what it is about over many turns: a question names the support group,
the turn that answers it says only "the one on Tuesday", and the turns around it name the
group. The session document is the full text of every episodic memory of one session, in event
order; the ``session`` arm ranks whole sessions by it (bm25, any query term) and hands fusion
the memories of the best sessions that hold a query term themselves, best session first
(docs/ranking.md §2.9). A store without session ids has no session documents, and the arm
ranks nothing there.

The SQLite index keeps the documents in ``session_documents`` (``adapters/sqlite/session_sql.py``)
and ranks them in FTS5; the in-memory backend computes both here, and the contract suite holds
the two to the same documents and the same order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from memhtml.domain.lexical_context import NEIGHBOUR_TYPE, PART_SEPARATOR, ContextFacts

SESSION_DEPTH: Final = 5
"""How many sessions the arm reads members from, best first (docs/ranking.md §10)."""


@attrs.frozen(kw_only=True, order=True)
class SessionKey:
    """One session as the index keys it: its id and the archived flag its members share.

    Archived and live memories of one session id are two sessions, as they are two neighbour
    windows for the context document (``domain.lexical_context``). Ordered by id, then flag:
    the tie-break between sessions of equal score.
    """

    session_id: str
    archived: bool


def session_key(fact: ContextFacts) -> SessionKey | None:
    """The session ``fact`` belongs to, or ``None`` for a memory outside every session (no
    session id, or not episodic)."""
    if fact.memory_type != NEIGHBOUR_TYPE or fact.session_id is None:
        return None
    return SessionKey(session_id=fact.session_id, archived=fact.archived)


def session_documents(facts: Iterable[ContextFacts]) -> dict[SessionKey, str]:
    """Every session's document: its members' own full text in event order (event time, else
    creation time, then path), one line each. Independent of the order of ``facts``."""
    members: dict[SessionKey, list[ContextFacts]] = {}
    for fact in facts:
        key = session_key(fact)
        if key is not None:
            members.setdefault(key, []).append(fact)
    return {
        key: PART_SEPARATOR.join(
            fact.fts_text for fact in sorted(group, key=lambda f: (f.order_at, f.path))
        )
        for key, group in members.items()
    }


def session_ranking(
    *,
    session_scores: Mapping[SessionKey, float],
    own_scores: Mapping[str, float],
    sessions: Mapping[str, SessionKey],
    limit: int,
    depth: int = SESSION_DEPTH,
) -> list[str]:
    """The ``session`` arm's order: the candidates of the best sessions, best session first.

    Args:
        session_scores: bm25 of every session document matching any query term (lower is
            better, FTS5's sign).
        own_scores: bm25 of every in-scope memory whose own text matches any query term.
        sessions: The session of each memory that has one (``session_key``).
        limit: How many paths the arm hands fusion at most.
        depth: How many sessions, best first, among those holding a candidate.

    A candidate is a memory with a score in ``own_scores`` whose session has one in
    ``session_scores``. Sessions are ranked by score, then key; the arm lists every candidate
    of the best session (by own score, then path), then the second session's, and so on: the
    turns of the conversation that matches the question best, the one naming a query word
    most strongly first. (Interleaving sessions instead, rank inside plus rank of the session,
    measured worse on LoCoMo: docs/ranking.md §10.)
    """
    grouped: dict[SessionKey, list[tuple[float, str]]] = {}
    for path, score in own_scores.items():
        key = sessions.get(path)
        if key is not None and key in session_scores:
            grouped.setdefault(key, []).append((score, path))
    ranked = sorted(grouped, key=lambda key: (session_scores[key], key))[:depth]
    return [path for key in ranked for _, path in sorted(grouped[key])][:limit]
