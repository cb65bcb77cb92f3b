"""Ranking the versions a store knew at T that no indexed row holds any more (``--known-at``,
docs/ranking.md §12).

Under ``--known-at T`` every memory whose version at T is still indexed is ranked by every arm as
usual (the transaction-time mask). A memory changed, moved or deleted since T has no row for its
version of then; it is projected from git and ranked by full text alone, against the statistics
of those past versions (the ``past`` arm), then interleaved with the indexed hits by reciprocal
rank: the hit at position ``i`` of either list weighs ``1 / (k + i)``, the indexed list first on
a tie. An indexed hit that only a prior ranked (no query arm found it) follows every hit with
query evidence, past ones included, so recency alone never buries a version that matches the
query. The result says so in ``degraded``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

import attrs

from memhtml.domain.fulltext import FullTextIndex, FullTextRow, fts_tokens, query_phrases
from memhtml.domain.projection import FileProjection
from memhtml.domain.scope import ScopeFacts, SearchScope, scope_admits

PAST_ARM: Final = "past"
"""The name the ``ranks`` of a past version carry."""

T = TypeVar("T")


@attrs.frozen(kw_only=True)
class PastVersion:
    """A version of then, projected, with its full-text tokens under the index's tokenizer."""

    projection: FileProjection
    tokens: tuple[str, ...]

    @property
    def path(self) -> str:
        """The path it had then."""
        return self.projection.path


def past_version(projection: FileProjection, tokenizer: str) -> PastVersion:
    """``projection`` with its ``fts_text`` tokenized as the index tokenizes it."""
    return PastVersion(
        projection=projection, tokens=tuple(fts_tokens(projection.row.fts_text, tokenizer))
    )


def past_scope_facts(projection: FileProjection) -> ScopeFacts:
    """What the scope predicate reads of a past version (no span: it is of then by definition)."""
    row = projection.row
    return ScopeFacts(
        path=row.path,
        memory_type=row.memory_type,
        archived=row.archived,
        workspace=row.workspace,
        tags=frozenset(projection.tags),
        entities=frozenset((e.type, e.name) for e in projection.entities),
        facets=frozenset((f.name, f.value) for f in projection.facets),
        valid_from=row.valid_from,
        valid_until=row.valid_until,
        event_at=row.event_at,
        created_at=row.created_at,
    )


def rank_past(
    versions: Sequence[PastVersion],
    terms: Sequence[str],
    scope: SearchScope,
    *,
    tokenizer: str,
    every: bool = False,
) -> tuple[str, ...]:
    """The paths of the in-scope past versions matching ``terms``, best bm25 first (path on a
    tie); bm25 over every past version given, as FTS5 scores a table whatever the scope."""
    if not terms or not versions:
        return ()
    index = FullTextIndex(FullTextRow(key=v.path, tokens=v.tokens) for v in versions)
    scores = index.bm25(query_phrases(terms, tokenizer), every=every)
    unmasked = attrs.evolve(scope, known_seq=None)
    admitted = {
        v.path
        for v in versions
        if v.path in scores and scope_admits(unmasked, past_scope_facts(v.projection))
    }
    return tuple(sorted(admitted, key=lambda path: (scores[path], path)))


def interleave(
    indexed: Sequence[T],
    past: Sequence[T],
    *,
    k: float,
    limit: int,
    evidence: Callable[[T], bool] = lambda _: True,
) -> list[T]:
    """Both lists merged by reciprocal rank (``1 / (k + position)``, positions counted among the
    indexed hits with ``evidence``), the indexed one first on a tie, then the indexed hits
    without evidence in their order; cut at ``limit``."""
    found = [item for item in indexed if evidence(item)]
    rest = [item for item in indexed if not evidence(item)]
    keyed = [(1.0 / (k + i), 0, i, item) for i, item in enumerate(found, start=1)]
    keyed += [(1.0 / (k + i), 1, i, item) for i, item in enumerate(past, start=1)]
    keyed.sort(key=lambda entry: (-entry[0], entry[1], entry[2]))
    return [*(entry[3] for entry in keyed), *rest][:limit]
