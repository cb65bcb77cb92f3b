"""The feedback step (``app/retrieval/feedback_step.py``): when a second fusion runs, and with
which vector."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
import pytest

from memhtml.app.retrieval.feedback_step import fused_with_feedback, word_pass
from memhtml.domain.feedback import document_direction, rocchio
from memhtml.domain.fts_query import LexicalQuery
from memhtml.domain.fusion import RRF_K, Fused
from memhtml.domain.scope import SearchScope
from memhtml.domain.vectors import pack_f32
from memhtml.ports.rank_store import FusionQuery
from memhtml.ports.retrieval import RankingOptions

MODEL = "fake@3"
FIRST = (
    Fused(path="a.html", score=0.3, ranks=(("vector", 1),)),
    Fused(path="b.html", score=0.2, ranks=(("vector", 2),)),
    Fused(path="c.html", score=0.1, ranks=(("fts", 1),)),
)
SECOND = (Fused(path="d.html", score=0.4, ranks=(("vector", 1),)),)
CHUNKS = {
    "a.html": ((0.0, 1.0, 0.0), (0.0, 0.0, 2.0)),
    "b.html": ((0.0, 3.0, 0.0),),
    "c.html": ((1.0, 1.0, 1.0),),
}


@attrs.define
class FakeRankStore:
    """Answers the first fusion with ``first`` and any later one with ``SECOND``; records asks."""

    first: tuple[Fused, ...] = FIRST
    fusions: list[FusionQuery] = attrs.Factory(list)
    asked: list[tuple[tuple[str, ...], str]] = attrs.Factory(list)

    def fused_ranks(self, query: FusionQuery) -> tuple[Fused, ...]:
        """The canned ranks."""
        self.fusions.append(query)
        return self.first if len(self.fusions) == 1 else SECOND

    def chunk_vectors(self, paths: Sequence[str], model: str) -> Mapping[str, tuple[bytes, ...]]:
        """The canned chunks of the listed paths."""
        self.asked.append((tuple(paths), model))
        return {p: tuple(pack_f32(c) for c in CHUNKS[p]) for p in paths if p in CHUNKS}


def plan(vector: tuple[float, ...] | None = (1.0, 0.2, 0.1)) -> FusionQuery:
    """A plan with a query vector in ``MODEL``."""
    return FusionQuery(
        arms=(), scope=SearchScope(), vector=vector, embed_model=MODEL, now="2026-09-20", limit=30
    )


def test_depth_zero_fuses_once() -> None:
    """Depth 0 (feedback off): one fusion, no vectors read, even with word paths at hand."""
    ranks = FakeRankStore()
    options = RankingOptions(prf_depth=0)
    assert FIRST == fused_with_feedback(ranks, options, plan(), word_paths=("a.html",))  # type: ignore[arg-type]
    assert (1, []) == (len(ranks.fusions), ranks.asked)


def test_without_a_query_vector_it_fuses_once() -> None:
    """A lexical-only plan has nothing to move."""
    ranks = FakeRankStore()
    options = RankingOptions(prf_depth=2, prf_source="fused")
    assert FIRST == fused_with_feedback(ranks, options, plan(None))  # type: ignore[arg-type]
    assert (1, []) == (len(ranks.fusions), ranks.asked)


@pytest.mark.parametrize("pick", ["nearest", "mean"])
def test_the_second_fusion_runs_with_the_moved_vector(pick: str) -> None:
    """Top ``depth`` paths are read; the second plan differs from the first only in its vector."""
    ranks = FakeRankStore()
    options = RankingOptions(prf_depth=2, prf_weight=0.7, prf_pick=pick, prf_source="fused")
    query = plan()
    assert SECOND == fused_with_feedback(ranks, options, query)  # type: ignore[arg-type]
    assert query.vector is not None
    directions = [document_direction(query.vector, CHUNKS[p], pick) for p in ("a.html", "b.html")]
    expected = rocchio(query.vector, [d for d in directions if d is not None], 0.7)
    assert [(("a.html", "b.html"), MODEL)] == ranks.asked
    assert attrs.evolve(query, vector=expected) == ranks.fusions[1]


def test_top_memories_without_vectors_leave_one_fusion() -> None:
    """When none of the top memories has a vector in the space, nothing moves."""
    unembedded = (Fused(path="z.html", score=1.0, ranks=(("fts", 1),)),)
    ranks = FakeRankStore(first=unembedded)
    options = RankingOptions(prf_depth=3, prf_source="fused")
    assert unembedded == fused_with_feedback(ranks, options, plan())  # type: ignore[arg-type]
    assert (1, [(("z.html",), MODEL)]) == (len(ranks.fusions), ranks.asked)


def test_words_feedback_fuses_once_with_the_vector_moved_toward_the_given_paths() -> None:
    """The ``words`` source reads the paths the own-text arm ranked, not a first fusion: one
    fusion, whose plan differs from the query's in its vector alone."""
    ranks = FakeRankStore()
    options = RankingOptions(prf_depth=2, prf_weight=0.5)
    query = plan()
    assert FIRST == fused_with_feedback(
        ranks,  # type: ignore[arg-type]
        options,
        query,
        word_paths=("c.html", "b.html", "a.html"),
    )
    assert query.vector is not None
    directions = [
        document_direction(query.vector, CHUNKS[p], "nearest") for p in ("c.html", "b.html")
    ]
    expected = rocchio(query.vector, [d for d in directions if d is not None], 0.5)
    assert ([(("c.html", "b.html"), MODEL)], [attrs.evolve(query, vector=expected)]) == (
        ranks.asked,
        ranks.fusions,
    )


def test_words_feedback_without_paths_fuses_once_with_the_query_vector() -> None:
    """No word matched: nothing to move toward, the query's own plan runs, nothing is read."""
    ranks = FakeRankStore()
    query = plan()
    assert FIRST == fused_with_feedback(ranks, RankingOptions(prf_depth=3), query)  # type: ignore[arg-type]
    assert ([], [query]) == (ranks.asked, ranks.fusions)


def test_the_word_pass_ranks_the_own_text_arm_alone_in_the_query_scope() -> None:
    """Its plan: the fts arm alone, the query's scope and MATCH form, the arm's whole list,
    at the registry's weight and k (so its order is the arm's rank order whatever the query's
    weights are)."""
    ranks = FakeRankStore()
    lexical = LexicalQuery(terms=("alpha", "beta"))
    scope = SearchScope(workspace="ops")
    paths = word_pass(
        ranks,  # type: ignore[arg-type]
        RankingOptions(prf_depth=3, weights={"fts": 0.0}, rrf_k=0),
        lexical=lexical,
        scope=scope,
        now="2026-09-20",
        arm_limit=40,
    )
    assert ("a.html", "b.html", "c.html") == paths
    (asked,) = ranks.fusions
    assert (("fts",), scope, lexical, None, 40, 40, (), RRF_K) == (
        tuple(arm.name for arm in asked.arms),
        asked.scope,
        asked.lexical,
        asked.vector,
        asked.limit,
        asked.arm_limit,
        asked.weights,
        asked.rrf_k,
    )


@pytest.mark.parametrize(
    ("options", "lexical"),
    [
        (RankingOptions(prf_depth=0), LexicalQuery(terms=("alpha",))),
        (RankingOptions(prf_depth=3, prf_source="fused"), LexicalQuery(terms=("alpha",))),
        (RankingOptions(prf_depth=3, arms=("vector", "context")), LexicalQuery(terms=("alpha",))),
        (RankingOptions(prf_depth=3), None),
    ],
)
def test_no_word_pass_runs_when_feedback_is_off_reads_a_fusion_lacks_the_arm_or_terms(
    options: RankingOptions, lexical: LexicalQuery | None
) -> None:
    """Off, the ``fused`` source, an arm selection without fts, or a query of stopwords alone
    (no MATCH text to rank by): no statement, no paths."""
    ranks = FakeRankStore()
    assert None is word_pass(
        ranks,  # type: ignore[arg-type]
        options,
        lexical=lexical,
        scope=SearchScope(),
        now="2026-09-20",
        arm_limit=40,
    )
    assert [] == ranks.fusions
