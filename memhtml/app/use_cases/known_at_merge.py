"""Folding the past versions of a ``--known-at`` view into a search or recall result
(docs/ranking.md §12)."""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.app.use_cases.known_at import KnownAtView
from memhtml.domain.disclosure import (
    MEMORY_BODY_BUDGET,
    DisclosureCandidate,
    DisclosureFold,
    fold_disclosure,
)
from memhtml.domain.fts_query import fts_terms
from memhtml.domain.fusion import RANK_ARMS, ArmKind
from memhtml.domain.past_versions import PAST_ARM, interleave, rank_past
from memhtml.domain.projection import FileProjection
from memhtml.domain.scope import SearchScope
from memhtml.domain.snippets import truncate_snippet
from memhtml.ports.retrieval import RankingOptions, SearchHit, SearchResult

PRIOR_ARMS: Final = frozenset(arm.name for arm in RANK_ARMS if arm.kind is ArmKind.PRIOR)


def ranked_past(
    view: KnownAtView,
    query: str,
    scope: SearchScope,
    options: RankingOptions,
    tokenizer: str,
) -> tuple[FileProjection, ...]:
    """The view's past versions matching ``query`` inside ``scope``, best first: every term when
    some version holds them all, else any (as the fts arm chooses)."""
    terms = fts_terms(query, drop_stopwords=options.fts_stopwords)
    by_path = {p.path: p.projection for p in view.past}
    ranked = rank_past(view.past, terms, scope, tokenizer=tokenizer, every=True)
    if not ranked and len(terms) > 1:
        ranked = rank_past(view.past, terms, scope, tokenizer=tokenizer, every=False)
    return tuple(by_path[path] for path in ranked)


def search_with_past(
    result: SearchResult,
    past: tuple[FileProjection, ...],
    *,
    rrf_k: float,
    limit: int,
) -> tuple[SearchResult, tuple[str, ...]]:
    """``result``'s hits interleaved with the past versions' (each ranked ``past``), scores
    renumbered ``1 / position``; and the paths of the past hits kept."""
    if not past:
        return result, ()
    past_hits = [_hit(p, rank) for rank, p in enumerate(past, start=1)]
    merged = interleave(result.hits, past_hits, k=rrf_k, limit=limit, evidence=_has_evidence)
    hits = tuple(attrs.evolve(hit, score=1.0 / i) for i, hit in enumerate(merged, start=1))
    kept = tuple(h.path for h in hits if h.ranks and h.ranks[0][0] == PAST_ARM)
    return (
        attrs.evolve(
            result,
            hits=hits,
            arms=(*result.arms, PAST_ARM) if kept else result.arms,
            degraded=result.degraded or bool(kept),
            scope_empty=result.scope_empty and not hits,
        ),
        kept,
    )


def fold_with_past(
    fold: DisclosureFold, past: tuple[FileProjection, ...], budget_chars: int | None
) -> tuple[DisclosureFold, tuple[str, ...]]:
    """The recall fold with the past versions folded after it into what budget remains."""
    if not past:
        return fold, ()
    budget = MEMORY_BODY_BUDGET if budget_chars is None else budget_chars
    extra = fold_disclosure(
        [
            DisclosureCandidate(
                path=p.path,
                title=p.row.title,
                gist=p.row.gist,
                memory_type=p.row.memory_type,
                disclosure_text=p.row.disclosure_text,
                entities=frozenset(e.ref for e in p.entities),
            )
            for p in past
        ],
        max(budget - fold.spent_chars, 0),
    )
    merged = DisclosureFold(
        disclosed=(*fold.disclosed, *extra.disclosed),
        index_lines=(*fold.index_lines, *extra.index_lines),
        spent_chars=fold.spent_chars + extra.spent_chars,
        truncated=fold.truncated or extra.truncated,
    )
    return merged, tuple(p.path for p in past)


def _has_evidence(hit: SearchHit) -> bool:
    """Whether a query arm ranked the hit (a prior alone is no evidence)."""
    return any(name not in PRIOR_ARMS for name, _ in hit.ranks)


def _hit(projection: FileProjection, rank: int) -> SearchHit:
    row = projection.row
    chunk = projection.chunks[0].text if projection.chunks else ""
    return SearchHit(
        path=row.path,
        title=row.title,
        gist=row.gist,
        memory_type=row.memory_type,
        score=0.0,
        confidence=row.confidence,
        updated_at=row.updated_at,
        snippet=truncate_snippet(chunk),
        entities=tuple(sorted(e.ref for e in projection.entities)),
        superseded_by=None,
        ranks=((PAST_ARM, rank),),
    )
