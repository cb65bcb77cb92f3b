"""``MemoryRankStore``: each arm ranked by its pure twin, then fused by ``domain.rrf.fuse``.

The SQLite backend runs the same arms as one statement; the contract suite holds the two to
the same paths, order, ranks and scores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import attrs

from memhtml.adapters.memory.tables import MemoryTables, session_row_key
from memhtml.domain.entities import entity_ranking
from memhtml.domain.fts_query import LexicalQuery
from memhtml.domain.fulltext import query_phrases
from memhtml.domain.fusion import ArmKind, Fused
from memhtml.domain.graph import GraphEdge, GraphVia, graph_ranking, session_edges
from memhtml.domain.lexical_context import NEIGHBOUR_TYPE
from memhtml.domain.reinforce import salience_applies, salience_hours, salience_score
from memhtml.domain.rrf import fuse
from memhtml.domain.scope import SearchScope, scope_admits
from memhtml.domain.session_documents import SessionKey, session_ranking
from memhtml.domain.vectors import f32_cosine_distance, pack_f32
from memhtml.ports.rank_store import FusionQuery, VectorCensus

# A zero vector has no cosine; the vector arm reads it as distance 1 (the domain's convention).
_NO_COSINE = 1.0


def _any_term(lexical: LexicalQuery | None) -> LexicalQuery | None:
    """The query's terms under the any-term form, as the time arm's text ranking reads them."""
    return None if lexical is None else attrs.evolve(lexical, every=False)


class MemoryRankStore:
    """The :class:`memhtml.ports.rank_store.RankStore` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Rank the rows of ``tables``."""
        self._t = tables

    @property
    def has_state(self) -> bool:
        """See ``RankStore.has_state``."""
        return True

    def vector_census(self, model: str | None) -> VectorCensus:
        """See ``RankStore.vector_census``."""
        t = self._t
        space = model
        if space is None and t.index_state is not None:
            space = t.index_state.embed_model
        embedded = sum(1 for v in t.vectors.values() if v.model == space)
        return VectorCensus(chunks=len(t.chunks), embedded=embedded, model=space)

    def holds_every_term(self, lexical: LexicalQuery, scope: SearchScope) -> bool:
        """See ``RankStore.holds_every_term``."""
        phrases = query_phrases(lexical.terms, self._t.tokenizer)
        hits = self._t.fulltext().matches(phrases, every=True)
        return any(self._admits(scope, path) for path in hits)

    def fused_ranks(self, query: FusionQuery) -> tuple[Fused, ...]:
        """See ``RankStore.fused_ranks``."""
        names = [arm.name for arm in query.arms]
        if {"fts", "context", "session"} & set(names) and query.lexical is None:
            raise ValueError("the full-text arms need a lexical query")
        if "vector" in names and query.vector is None:
            raise ValueError("the vector arm needs a query vector")
        if "entity" in names and not query.entities:
            raise ValueError("the entity arm needs the query's entities")
        if "time" in names and (
            not query.windows or (query.vector is None and query.lexical is None)
        ):
            raise ValueError("the time arm needs the query's windows and a vector or terms")
        if "time_words" in names and (not query.windows or query.lexical is None):
            raise ValueError("the time_words arm needs the query's windows and terms")
        rankers: dict[str, Callable[[FusionQuery, list[str]], list[str]]] = {
            "fts": self._fts,
            "context": self._context,
            "vector": self._vector,
            "recency": self._recency,
            "salience": self._salience,
            "entity": self._entity,
            "session": self._session,
            "time": self._time,
            "time_words": self._time_words,
        }
        admitted = sorted(path for path in self._t.files if self._admits(query.scope, path))
        rankings: dict[str, list[str]] = {}
        vias: dict[str, GraphVia] = {}
        for arm in query.arms:
            if arm.kind is ArmKind.QUERY and not arm.seeded:
                rankings[arm.name] = rankers[arm.name](query, admitted)[: query.arm_limit]
        for arm in query.arms:
            if arm.seeded:
                ranked, vias = self._graph(list(rankings.values()), admitted)
                rankings[arm.name] = ranked[: query.arm_limit]
        found = {path for ranked in rankings.values() for path in ranked}
        gated = query.gate_priors and bool(rankings)
        for arm in query.arms:
            if arm.kind is ArmKind.PRIOR:
                ranked = rankers[arm.name](query, admitted)
                if gated:
                    ranked = [path for path in ranked if path in found]
                rankings[arm.name] = ranked[: query.arm_limit]
        ordered = {arm.name: rankings[arm.name] for arm in query.arms}
        return fuse(
            ordered,
            weights=dict(query.weights),
            k=query.rrf_k,
            limit=query.limit,
            evidence_first=query.evidence_first,
            vias=vias,
            prior_bound=query.prior_bound,
        )

    def entity_keys_named(self, surfaces: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """See ``RankStore.entity_keys_named``."""
        wanted = set(surfaces)
        found: dict[str, set[str]] = {}
        for terms in self._t.entity_terms.values():
            for term in terms:
                if term.surface in wanted:
                    found.setdefault(term.surface, set()).add(term.key)
        return {surface: frozenset(keys) for surface, keys in found.items()}

    def chunk_vectors(self, paths: Sequence[str], model: str) -> Mapping[str, tuple[bytes, ...]]:
        """See ``RankStore.chunk_vectors``."""
        wanted = set(paths)
        t = self._t
        found: dict[str, list[tuple[int, bytes]]] = {}
        for chunk_id, chunk in t.chunks.items():
            vector = t.vectors.get(chunk_id)
            if chunk.path in wanted and vector is not None and vector.model == model:
                found.setdefault(chunk.path, []).append((chunk.ordinal, vector.blob))
        return {path: tuple(blob for _, blob in sorted(pairs)) for path, pairs in found.items()}

    def _admits(self, scope: SearchScope, path: str) -> bool:
        return scope_admits(scope, self._t.scope_facts(path))

    def _fts(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        lexical = query.lexical
        if lexical is None:  # pragma: no cover - checked in fused_ranks
            return []
        phrases = query_phrases(lexical.terms, self._t.tokenizer)
        scores = self._t.fulltext().bm25(phrases, every=lexical.every)
        inside = set(admitted)
        return sorted((p for p in scores if p in inside), key=lambda p: (scores[p], p))

    def _context(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        lexical = query.lexical
        if lexical is None:  # pragma: no cover - checked in fused_ranks
            return []
        phrases = query_phrases(lexical.terms, self._t.tokenizer)
        scores = self._t.context_fulltext().bm25(phrases, every=lexical.every)
        inside = set(admitted)
        return sorted((p for p in scores if p in inside), key=lambda p: (scores[p], p))

    def _session(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        lexical = _any_term(query.lexical)
        if lexical is None:  # pragma: no cover - checked in fused_ranks
            return []
        t = self._t
        phrases = query_phrases(lexical.terms, t.tokenizer)
        by_row = {session_row_key(key): key for key in t.sessions}
        session_scores = {
            by_row[row]: score
            for row, score in t.session_fulltext().bm25(phrases, every=False).items()
        }
        own = t.fulltext().bm25(phrases, every=False)
        inside = set(admitted)
        sessions: dict[str, SessionKey] = {}
        for path in own:
            row = t.files[path]
            if path in inside and row.memory_type == NEIGHBOUR_TYPE and row.session_id is not None:
                sessions[path] = SessionKey(session_id=row.session_id, archived=row.archived)
        return session_ranking(
            session_scores=session_scores,
            own_scores={path: own[path] for path in sessions},
            sessions=sessions,
            limit=query.arm_limit,
        )

    def _vector(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        nearest = self._nearest(query, admitted)
        bound = query.vector_max_distance
        kept = [p for p in nearest if bound is None or nearest[p] <= bound]
        return sorted(kept, key=lambda p: (nearest[p], p))

    def _time(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        if query.vector is None:
            return self._time_words(query, admitted)
        nearest = self._nearest(query, self._inside_windows(query, admitted))
        return sorted(nearest, key=lambda p: (nearest[p], p))

    def _time_words(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        within = self._inside_windows(query, admitted)
        return self._fts(attrs.evolve(query, lexical=_any_term(query.lexical)), within)

    def _inside_windows(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        files = self._t.files

        def inside(path: str) -> bool:
            row = files[path]
            stamp = row.event_at if row.event_at is not None else row.created_at
            return any(window.holds(stamp) for window in query.windows)

        return [path for path in admitted if inside(path)]

    def _nearest(self, query: FusionQuery, admitted: Sequence[str]) -> dict[str, float]:
        """Each admitted path with a vector in the query's space: its nearest chunk's distance."""
        if query.vector is None:  # pragma: no cover - checked in fused_ranks
            return {}
        t = self._t
        probe = pack_f32(query.vector)
        nearest: dict[str, float] = {}
        inside = set(admitted)
        for chunk_id, chunk in t.chunks.items():
            vector = t.vectors.get(chunk_id)
            if chunk.path not in inside or vector is None or vector.model != query.embed_model:
                continue
            distance = f32_cosine_distance(vector.blob, probe)
            distance = _NO_COSINE if distance is None else distance
            if chunk.path not in nearest or distance < nearest[chunk.path]:
                nearest[chunk.path] = distance
        return nearest

    def _recency(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        files = self._t.files

        def at(path: str) -> str:
            row = files[path]
            return row.event_at if row.event_at is not None else row.updated_at

        by_path = sorted(admitted)
        return sorted(by_path, key=at, reverse=True)

    def _entity(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        terms = self._t.entity_terms
        held = {path: {term.key for term in terms.get(path, ())} for path in admitted}
        return entity_ranking(
            held, query.entities, scope_size=len(admitted), arm_limit=query.arm_limit
        )

    def _graph(
        self, seeds: Sequence[Sequence[str]], admitted: Sequence[str]
    ) -> tuple[list[str], dict[str, GraphVia]]:
        edges = [
            GraphEdge(src=src, rel=rel, dst=dst, edge_class=record.edge_class)
            for (src, rel, dst), record in self._t.edges.items()
        ]
        edges.extend(session_edges(self._t.context_prev))
        return graph_ranking(seeds, edges, frozenset(admitted))

    def _salience(self, query: FusionQuery, admitted: Sequence[str]) -> list[str]:
        t = self._t
        scores: dict[str, float] = {}
        for path in admitted:
            row = t.files[path]
            if not salience_applies(path, row.memory_type):
                continue
            access = t.access.get(path)
            hours = salience_hours(
                query.now, None if access is None else access.last_accessed_at, row.updated_at
            )
            scores[path] = salience_score(
                hours,
                0 if access is None else access.access_count,
                0.0 if access is None else access.outcome_score,
            )
        return sorted(scores, key=lambda p: (-scores[p], p))
