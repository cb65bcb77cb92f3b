"""``RetrievalPipeline``: the :class:`memhtml.ports.retrieval.Retrieval` service.

search = plan → fused ranks (storage) → candidate rows → authority → polarity → MMR → snippets
and entities; recall = plan → fused ranks → rows → authority → polarity → the disclosure fold.
Both share the plan, authority and the polarity step, so a ranking change cannot reach one and
miss the other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.app.retrieval.authority_step import authority_step
from memhtml.app.retrieval.diversity import diversify
from memhtml.app.retrieval.fusion_run import FusionPlanner, FusionRun
from memhtml.app.retrieval.polarity_pool import polarity_pool
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.disclosure import DisclosureCandidate, fold_recall_pack
from memhtml.domain.errors import NotFound
from memhtml.domain.fusion import DEFAULT_SEARCH_LIMIT, MMR_POOL_FACTOR
from memhtml.domain.reinforce import ReinforceResult, Signal
from memhtml.domain.scope import SearchScope
from memhtml.domain.snippets import truncate_snippet
from memhtml.ports.access_store import AccessStore
from memhtml.ports.archive_lookup import ArchivedLookup, ArchiveLookup
from memhtml.ports.candidate_store import CandidateStore
from memhtml.ports.clock import Clock
from memhtml.ports.pair_similarity import PairwiseSimilarity
from memhtml.ports.retrieval import (
    RecallRequest,
    RecallResult,
    SearchHit,
    SearchRequest,
    SearchResult,
)

RECALL_CANDIDATES: Final = DEFAULT_SEARCH_LIMIT * MMR_POOL_FACTOR
"""Recall folds the top 30 post-polarity candidates (docs/cli-contract.md §3.3)."""


@attrs.frozen(kw_only=True)
class RetrievalPipeline:
    """Search, recall and reinforcement over narrow storage ports.

    Attributes:
        planner: Plans each query's arms and asks the rank store for the fused ranks.
        candidates: Rows, snippets and entities of fused paths.
        archive: The scope questions an empty result asks.
        access: The state plane's reinforcement.
        clock: Reinforcement stamps.
        similarity: One cosine table per pool for polarity and MMR; ``None`` compares in pure
            Python.
    """

    planner: FusionPlanner
    candidates: CandidateStore
    archive: ArchiveLookup
    access: AccessStore
    clock: Clock
    similarity: PairwiseSimilarity | None = None

    def search(self, request: SearchRequest) -> SearchResult:
        """Fusion over three times ``limit`` candidates, polarity, MMR, then the hits."""
        run = self.planner.run(
            request.query, request.scope, request.options, request.limit * MMR_POOL_FACTOR
        )
        rows = self.candidates.candidate_rows([f.path for f in run.fused], run.model)
        ranked = authority_step(run.fused, rows, request.options)
        pool = polarity_pool(ranked.fused, rows, request.query, similarity=self.similarity)
        picked = diversify(pool, ranked.fused, request.options, request.limit)
        paths = [p.path for p in picked]
        snippets = self._snippets(paths, run)
        entities = self.candidates.entity_refs(paths) if paths else {}
        fused = {f.path: f for f in run.fused}
        hits = tuple(
            SearchHit(
                path=p.path,
                title=rows[p.path].title,
                gist=p.gist,
                memory_type=rows[p.path].memory_type,
                score=p.score,
                confidence=rows[p.path].confidence,
                updated_at=rows[p.path].updated_at,
                snippet=truncate_snippet(snippets.get(p.path, "")),
                entities=tuple(sorted(entities.get(p.path, ()))),
                superseded_by=rows[p.path].superseded_by,
                ranks=fused[p.path].ranks,
                via=fused[p.path].via,
                authority=ranked.adjustments.get(p.path),
            )
            for p in picked
        )
        scope_empty = not hits and self.archive.scope_is_empty(request.scope)
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
        run = self.planner.run(request.query, request.scope, request.options, RECALL_CANDIDATES)
        rows = self.candidates.candidate_rows([f.path for f in run.fused], run.model)
        ranked = authority_step(run.fused, rows, request.options).fused
        scored = polarity_pool(ranked, rows, request.query, similarity=self.similarity).scored
        paths = [s.path for s in scored]
        entities = self.candidates.entity_refs(paths) if paths else {}
        pack = fold_recall_pack(
            [
                DisclosureCandidate(
                    path=s.path,
                    title=rows[s.path].title,
                    gist=s.gist,
                    memory_type=rows[s.path].memory_type,
                    disclosure_text=rows[s.path].disclosure_text,
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
        missing = self.access.missing_paths(paths)
        if missing:
            raise NotFound(f"no memory at: {', '.join(missing)}")
        return self.access.reinforce(paths, signal, utc_stamp(self.clock.now()))

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """The same scope with the archived flag flipped: a count and the first paths."""
        return self.archive.archived_in_scope(scope, limit)

    def _snippets(self, paths: Sequence[str], run: FusionRun) -> dict[str, str]:
        if not paths:
            return {}
        return dict(self.candidates.snippets(paths, run.query_vector, run.model))
