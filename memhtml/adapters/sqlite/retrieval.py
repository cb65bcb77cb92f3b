"""``SqliteRetrieval``: search and recall over the fused statement, then the pure steps.

Both entry points run the same fusion (:mod:`memhtml.adapters.sqlite.retrieval_sql`) and the
same polarity step, so a ranking change cannot reach one and miss the other; search adds MMR
and snippets, recall folds a disclosure pack. A missing input (no query terms, no usable query
vector, no state plane) drops its arm and never fails the query (seed 000 §4).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.adapters.sqlite.candidate_pool import polarity_pool, read_candidates, text_or_none
from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.adapters.sqlite.reinforce_sql import reinforce_paths, unknown_paths
from memhtml.adapters.sqlite.retrieval_sql import (
    ENTITY_SQL,
    FusionPlan,
    bound_params,
    fts_probe_sql,
    run_fusion,
    snippet_sql,
)
from memhtml.adapters.sqlite.scope_sql import (
    AssembledScope,
    archived_in_scope,
    assemble_scope,
    scope_is_empty,
)
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.disclosure import DisclosureCandidate, fold_recall_pack
from memhtml.domain.errors import NotFound
from memhtml.domain.fts_query import fts_query_forms
from memhtml.domain.fusion import (
    DEFAULT_SEARCH_LIMIT,
    MMR_POOL_FACTOR,
    ArmNeed,
    Fused,
    active_arms,
)
from memhtml.domain.mmr import mmr_select
from memhtml.domain.reinforce import ReinforceResult, Signal
from memhtml.domain.scope import SearchScope
from memhtml.domain.snippets import VECTOR_COVERAGE_FLOOR, truncate_snippet, vector_coverage
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import QueryEmbedder, Vector
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.retrieval import (
    ArchivedLookup,
    RankingOptions,
    RecallRequest,
    RecallResult,
    SearchHit,
    SearchRequest,
    SearchResult,
)

RECALL_CANDIDATES: Final = DEFAULT_SEARCH_LIMIT * MMR_POOL_FACTOR
"""Recall folds the top 30 post-polarity candidates (CLI.md §3.3)."""

_log = logging.getLogger(__name__)

# One statement: the chunk count, the vectors in the space, and the space itself, which falls
# back to the stored watermark when none is configured.
_COVERAGE_SQL: Final = (
    "SELECT (SELECT count(*) FROM chunks), "
    "(SELECT count(*) FROM embeddings WHERE model = space.model), space.model FROM "
    "(SELECT coalesce(?1, (SELECT embed_model FROM index_state WHERE id = 1)) AS model) space"
)


@attrs.frozen(kw_only=True)
class _Fusion:
    """One fusion run: its candidates and the facts a result reports about it."""

    fused: tuple[Fused, ...]
    arms: tuple[str, ...]
    degraded: bool
    coverage: float
    model: str | None
    query_vector: Vector | None


class SqliteRetrieval:
    """The :class:`memhtml.ports.retrieval.Retrieval` port over one SQLite index.

    Args:
        db: The index; salience runs when the state plane is attached.
        clock: Where salience's ``now`` and reinforcement stamps come from (DECISIONS 3).
        embedder: Embeds queries for the vector arm; None runs lexical and priors only.
        embed_model: The configured vector space; defaults to the embedder's, then to the
            stored watermark. A query vector from another space never meets these vectors.
        coverage_floor: Below this share of embedded chunks the vector arm is dropped.
    """

    def __init__(
        self,
        db: Database,
        *,
        clock: Clock,
        embedder: QueryEmbedder | None = None,
        embed_model: str | None = None,
        coverage_floor: float = VECTOR_COVERAGE_FLOOR,
    ) -> None:
        """Bind the retrieval to its index, clock and optional query embedder."""
        self._db = db
        self._clock = clock
        self._embedder = embedder
        self._embed_model = embed_model or (embedder.watermark if embedder else None)
        self._floor = coverage_floor

    def search(self, request: SearchRequest) -> SearchResult:
        """Fusion over three times ``limit`` candidates, polarity, MMR, then the hits."""
        run = self._fuse(
            request.query, request.scope, request.options, request.limit * MMR_POOL_FACTOR
        )
        candidates = read_candidates(self._db, run.fused, run.model)
        pool = polarity_pool(run.fused, candidates, request.query)
        picked = mmr_select(pool.scored, limit=request.limit, similarity=pool.mmr_similarity)
        paths = [p.path for p in picked]
        snippets = self._snippets(paths, run)
        entities = self._entities(paths)
        ranks = {f.path: f.ranks for f in run.fused}
        hits = tuple(
            SearchHit(
                path=p.path,
                title=candidates[p.path].title,
                gist=p.gist,
                memory_type=candidates[p.path].memory_type,
                score=p.score,
                confidence=candidates[p.path].confidence,
                updated_at=candidates[p.path].updated_at,
                snippet=truncate_snippet(snippets.get(p.path, "")),
                entities=tuple(sorted(entities.get(p.path, ()))),
                superseded_by=candidates[p.path].superseded_by,
                ranks=ranks[p.path],
            )
            for p in picked
        )
        scope_empty = not hits and scope_is_empty(self._db, request.scope)
        lookup = ArchivedLookup(count=0, matches=())
        if scope_empty and request.scope.as_of is None:
            lookup = self.archived_in_scope(request.scope, request.limit)
        return SearchResult(
            hits=hits,
            vector_coverage=run.coverage,
            arms=run.arms,
            degraded=run.degraded,
            entity_scope=request.scope.entity,
            scope_empty=scope_empty,
            archived_matches=lookup.count,
            archived=lookup.matches,
        )

    def recall(self, request: RecallRequest) -> RecallResult:
        """The top 30 post-polarity candidates folded into a pack; arcs under their own budget."""
        run = self._fuse(request.query, request.scope, request.options, RECALL_CANDIDATES)
        candidates = read_candidates(self._db, run.fused, run.model)
        scored = polarity_pool(run.fused, candidates, request.query).scored
        entities = self._entities([s.path for s in scored])
        pack = fold_recall_pack(
            [
                DisclosureCandidate(
                    path=s.path,
                    title=candidates[s.path].title,
                    gist=s.gist,
                    memory_type=candidates[s.path].memory_type,
                    disclosure_text=candidates[s.path].disclosure_text,
                    entities=frozenset(entities.get(s.path, ())),
                )
                for s in scored
            ],
            request.budget_chars,
        )
        return RecallResult(
            arcs=pack.arcs,
            memories=pack.memories,
            spent_chars=pack.spent_chars,
            truncated=pack.truncated,
            degraded=run.degraded,
            vector_coverage=run.coverage,
            arms=run.arms,
        )

    def reinforce(self, paths: Sequence[str], signal: Signal) -> ReinforceResult:
        """Bump each known path past its cooldown; an unknown path refuses the whole call."""
        missing = unknown_paths(self._db, paths)
        if missing:
            raise NotFound(f"no memory at: {', '.join(missing)}")
        return reinforce_paths(self._db, paths, signal, utc_stamp(self._clock.now()))

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """The same scope with the archived flag flipped: a count and the first paths."""
        return archived_in_scope(self._db, scope, limit)

    def _fuse(self, query: str, scope: SearchScope, options: RankingOptions, limit: int) -> _Fusion:
        chunks, embedded, model = self._coverage()
        coverage = vector_coverage(embedded, chunks)
        forms = fts_query_forms(query, drop_stopwords=options.fts_stopwords)
        wants_vector = options.arms is None or "vector" in options.arms
        vector = (
            self._query_vector(query, model) if wants_vector and coverage >= self._floor else None
        )
        available = {ArmNeed.QUERY_TERMS} if forms.any else set()
        if vector is not None:
            available.add(ArmNeed.QUERY_VECTOR)
        if self._db.has_state:
            available.add(ArmNeed.STATE)
        arms = active_arms(available, selection=options.arms)
        assembled = assemble_scope(scope)
        match = None
        if any(arm.name == "fts" for arm in arms):
            match = forms.any
            if forms.all != forms.any and self._holds_every_term(forms.all, assembled):
                match = forms.all
        plan = FusionPlan(
            arms=arms,
            weights=options.weights,
            rrf_k=options.rrf_k,
            gate_priors=options.gate_priors,
            embed_model=model or "",
            now=utc_stamp(self._clock.now()),
        )
        fused = run_fusion(
            self._db,
            plan,
            assembled,
            match=match,
            vector=None if vector is None else pack_f32(vector),
            limit=limit,
        )
        names = tuple(arm.name for arm in arms)
        return _Fusion(
            fused=fused,
            arms=names,
            degraded=wants_vector and "vector" not in names,
            coverage=coverage,
            model=model,
            query_vector=vector,
        )

    def _coverage(self) -> tuple[int, int, str | None]:
        row = self._db.get(_COVERAGE_SQL, (self._embed_model,), operation="read vector coverage")
        if row is None:  # pragma: no cover - a scalar SELECT always yields a row
            return 0, 0, self._embed_model
        return _int(row[0]), _int(row[1]), text_or_none(row[2])

    def _query_vector(self, query: str, model: str | None) -> Vector | None:
        embedder = self._embedder
        if embedder is None or model is None or embedder.watermark != model:
            return None
        try:
            vector = embedder.embed_query(query)
            pack_f32(vector)  # a non-finite component would make every distance NaN
        except (ModelUnavailable, ValueError) as error:
            # Retrieval keeps answering while the embedding provider is down; `degraded` says so.
            _log.warning("query embedding failed, the vector arm is dropped: %s", error)
            return None
        return vector

    def _holds_every_term(self, all_form: str, scope: AssembledScope) -> bool:
        row = self._db.get(
            fts_probe_sql(scope),
            bound_params((all_form,), scope, used=1),
            operation="probe full-text terms",
        )
        return row is not None and bool(row[0])

    def _snippets(self, paths: Sequence[str], run: _Fusion) -> dict[str, str]:
        if not paths:
            return {}
        vector = run.query_vector
        params: tuple[SqlValue, ...] = (
            None if vector is None else pack_f32(vector),
            run.model,
            json.dumps(list(paths)),
        )
        rows = self._db.all(
            snippet_sql(with_vector=vector is not None), params, operation="read snippets"
        )
        return {str(path): str(text) for path, text in rows}

    def _entities(self, paths: Sequence[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        if not paths:
            return found
        rows = self._db.all(ENTITY_SQL, (json.dumps(list(paths)),), operation="read entities")
        for path, reference in rows:
            found.setdefault(str(path), []).append(str(reference))
        return found


def _int(value: SqlValue) -> int:
    return value if isinstance(value, int) else 0
