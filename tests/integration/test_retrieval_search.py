"""The retrieval pipeline's ``search`` end to end over a file-backed index and state plane."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import pytest

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.domain.errors import InvalidInput
from memhtml.domain.scope import SearchScope
from memhtml.domain.snippets import SNIPPET_MAX_CHARS
from memhtml.domain.text import utf16_len
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.retrieval import (
    ArchivedMatch,
    RankingOptions,
    SearchHit,
    SearchRequest,
)
from tests.fakes.retrieval_rows import ChunkRow, EdgeRow, MemoryRow, embedded, load_rows
from tests.support import sqlite_retrieval

EMBEDDER: Final = HashingEmbedder(dim=64)
CLOCK: Final = FixedClock(dt.datetime(2026, 10, 1, tzinfo=dt.UTC))


class FailingEmbedder:
    """A query embedder in the configured space whose provider is down."""

    watermark = EMBEDDER.watermark

    def embed_query(self, text: str) -> Vector:
        """Always fails the way a real provider outage does."""
        raise ModelUnavailable("provider down")


@pytest.fixture
def db(tmp_path: Path) -> Database:
    """A file-backed index with its state plane, as the CLI opens them."""
    return Database.open(tmp_path / "index.db", state_path=tmp_path / "state.db")


def _load(db: Database, rows: list[MemoryRow], edges: Sequence[EdgeRow] = ()) -> None:
    load_rows(db, rows, edges=edges, model=EMBEDDER.watermark)


def _memory(path: str, text: str, **kwargs: object) -> MemoryRow:
    row = MemoryRow(
        path=path,
        title=text.title(),
        gist=text,
        body_text=text,
        chunks=(ChunkRow(text=text),),
        **kwargs,  # type: ignore[arg-type]
    )
    return embedded(row, EMBEDDER.embed_query)


def _search(db: Database, query: str, **kwargs: object) -> tuple[SearchHit, ...]:
    retrieval = sqlite_retrieval(db, clock=CLOCK, embedder=EMBEDDER)
    return retrieval.search(SearchRequest(query=query, **kwargs)).hits  # type: ignore[arg-type]


def test_a_hit_carries_every_field_the_cli_prints(db: Database) -> None:
    """Title, gist, type, score 1 for the top hit, entities sorted, ranks per arm."""
    _load(
        db,
        [
            _memory(
                "resources/billing/invoice.html",
                "the invoice export job starts at 03:30 utc",
                entities=frozenset({("service", "invoice-exporter"), ("person", "sasha")}),
                confidence=0.8,
                updated_at="2026-09-14T07:02:11Z",
            )
        ],
    )
    hit = _search(db, "when does the invoice export start")[0]
    expected = SearchHit(
        path="resources/billing/invoice.html",
        title="The Invoice Export Job Starts At 03:30 Utc",
        gist="the invoice export job starts at 03:30 utc",
        memory_type="semantic",
        score=1.0,
        confidence=0.8,
        updated_at="2026-09-14T07:02:11Z",
        snippet="the invoice export job starts at 03:30 utc",
        entities=("person:sasha", "service:invoice-exporter"),
        superseded_by=None,
        ranks=(("fts", 1), ("context", 1), ("vector", 1), ("recency", 1), ("salience", 1)),
    )
    assert expected == hit


def test_the_snippet_is_the_chunk_nearest_the_query(db: Database) -> None:
    """With a query vector the best chunk wins; degraded, chunk 0 does; both fit 700 units."""
    long_tail = "cache warming " + "😀" * 400
    row = MemoryRow(
        path="areas/cache.html",
        body_text="intro",
        fts_text="cache warming",
        chunks=(ChunkRow(text="an unrelated opening"), ChunkRow(text=long_tail)),
    )
    _load(db, [embedded(row, EMBEDDER.embed_query)])
    snippet = _search(db, "cache warming")[0].snippet
    assert snippet.startswith("cache warming")
    assert snippet.endswith("…")
    assert SNIPPET_MAX_CHARS >= utf16_len(snippet)
    lexical = sqlite_retrieval(db, clock=CLOCK)
    result = lexical.search(SearchRequest(query="cache warming"))
    assert "an unrelated opening" == result.hits[0].snippet


def test_low_coverage_drops_the_vector_arm_at_the_configured_floor(db: Database) -> None:
    """Coverage under the floor degrades the search; a lower floor lets the arm run."""
    rows = [_memory(f"areas/{i}.html", f"note number {i}") for i in range(3)]
    rows.append(MemoryRow(path="areas/bare.html", chunks=(ChunkRow(text="no vector"),)))
    _load(db, rows)
    default = sqlite_retrieval(db, clock=CLOCK, embedder=EMBEDDER)
    result = default.search(SearchRequest(query="note"))
    assert (0.75, True, ("fts", "context", "recency", "salience", "graph")) == (
        result.vector_coverage,
        result.degraded,
        result.arms,
    )
    lenient = sqlite_retrieval(db, clock=CLOCK, embedder=EMBEDDER, coverage_floor=0.75)
    assert (False, ("fts", "context", "vector", "recency", "salience", "graph")) == (
        lenient.search(SearchRequest(query="note")).degraded,
        lenient.search(SearchRequest(query="note")).arms,
    )


def test_an_embedder_failure_degrades_instead_of_failing(db: Database) -> None:
    """The provider being down narrows the fold; the lexical hit still comes back."""
    _load(db, [_memory("areas/a.html", "drain the vip queue")])
    retrieval = sqlite_retrieval(db, clock=CLOCK, embedder=FailingEmbedder())
    result = retrieval.search(SearchRequest(query="drain"))
    assert (True, ["areas/a.html"]) == (result.degraded, [h.path for h in result.hits])


def test_a_punctuation_query_drops_the_lexical_arm(db: Database) -> None:
    """Nothing indexable survives, so fts leaves the fold instead of erroring."""
    _load(db, [_memory("areas/a.html", "drain the vip queue")])
    retrieval = sqlite_retrieval(db, clock=CLOCK)
    result = retrieval.search(SearchRequest(query="!!! -- ???"))
    assert (("recency", "salience"), ["areas/a.html"]) == (
        result.arms,
        [h.path for h in result.hits],
    )


def test_the_all_terms_form_runs_when_a_file_holds_every_term(db: Database) -> None:
    """Only the file holding both words gets an fts rank; without one, any word suffices."""
    _load(
        db,
        [
            _memory("areas/both.html", "drain the vip queue"),
            _memory("areas/one.html", "drain the pool"),
            _memory("areas/other.html", "vip lounge"),
        ],
    )
    both = {h.path: dict(h.ranks).get("fts") for h in _search(db, "drain vip")}
    assert {"areas/both.html": 1, "areas/one.html": None, "areas/other.html": None} == both
    either = {h.path: dict(h.ranks).get("fts") for h in _search(db, "pool lounge")}
    assert {"areas/one.html", "areas/other.html"} == {p for p, r in either.items() if r}


def test_polarity_puts_the_twin_that_agrees_with_the_query_first(db: Database) -> None:
    """Near-identical claims, one negated: each phrasing of the query gets its own twin first."""
    vector = EMBEDDER.embed_query("merges intervals")
    rows = [
        MemoryRow(
            path="areas/a.html",
            gist="x merges 5 intervals",
            fts_text="x merges intervals",
            chunks=(ChunkRow(text="a", vector=vector),),
        ),
        MemoryRow(
            path="areas/b.html",
            gist="x does not merge 5 intervals",
            fts_text="x merges intervals",
            chunks=(ChunkRow(text="b", vector=vector),),
        ),
    ]
    _load(db, rows)
    lexical = RankingOptions(arms=("fts",))
    assert ["areas/a.html", "areas/b.html"] == [
        h.path for h in _search(db, "does x merge intervals", options=lexical)
    ]
    assert ["areas/b.html", "areas/a.html"] == [
        h.path for h in _search(db, "does x not merge intervals", options=lexical)
    ]


def test_hits_come_in_mmr_order(db: Database) -> None:
    """With MMR on (λ = 0.5, over the rank), a near-copy of the top hit yields its place to a
    different memory."""
    same, other = EMBEDDER.embed_query("alpha"), EMBEDDER.embed_query("omega zulu")
    rows = [
        MemoryRow(path="areas/a.html", fts_text="k k k", chunks=(ChunkRow(text="a", vector=same),)),
        MemoryRow(path="areas/b.html", fts_text="k k", chunks=(ChunkRow(text="b", vector=same),)),
        MemoryRow(path="areas/c.html", fts_text="k", chunks=(ChunkRow(text="c", vector=other),)),
    ]
    _load(db, rows)
    mmr = RankingOptions(arms=("fts",), mmr_lambda=0.5, mmr_relevance="rank")
    hits = _search(db, "k", options=mmr)
    assert ["areas/a.html", "areas/c.html", "areas/b.html"] == [h.path for h in hits]


def test_gated_priors_cannot_bring_in_an_unrelated_memory(db: Database) -> None:
    """With the gate on, recency and salience only reorder what a query arm found."""
    _load(
        db,
        [
            _memory("areas/match.html", "drain the vip queue", updated_at="2025-01-01"),
            _memory("areas/recent.html", "lunch menu", updated_at="2026-09-30"),
        ],
    )
    retrieval = sqlite_retrieval(db, clock=CLOCK)
    ungated = retrieval.search(SearchRequest(query="drain"))
    gated = retrieval.search(SearchRequest(query="drain", options=RankingOptions(gate_priors=True)))
    assert ["areas/recent.html", "areas/match.html"] == sorted(h.path for h in ungated.hits)[::-1]
    assert ["areas/match.html"] == [h.path for h in gated.hits]


def test_no_firing_arm_is_an_empty_result(db: Database) -> None:
    """Selecting only the vector arm without an embedder leaves nothing to fold."""
    _load(db, [_memory("areas/a.html", "drain")])
    result = sqlite_retrieval(db, clock=CLOCK).search(
        SearchRequest(query="drain", options=RankingOptions(arms=("vector",)))
    )
    assert ((), (), True) == (result.hits, result.arms, result.degraded)


def test_an_unknown_arm_is_refused() -> None:
    """A typo in --arms is an error, never a silently narrower search."""
    with pytest.raises(InvalidInput):
        RankingOptions(arms=("fts", "vectro"))


def test_an_empty_scope_points_at_the_archived_memories_it_still_names(db: Database) -> None:
    """scopeEmpty, the archived count, and each archived path with its replacement."""
    _load(
        db,
        [
            _memory(
                "archive/2026/projects/ops/old.html",
                "old runbook",
                workspace="ops",
                origin_path="projects/ops/old.html",
            ),
            _memory("archive/2026/projects/ops/older.html", "older runbook", workspace="ops"),
            _memory("areas/new.html", "new runbook"),
        ],
        edges=[
            EdgeRow(src_path="areas/new.html", rel="supersedes", dst_path="projects/ops/old.html")
        ],
    )
    result = sqlite_retrieval(db, clock=CLOCK).search(
        SearchRequest(query="runbook", scope=SearchScope(workspace="ops"), limit=1)
    )
    expected = (
        (),
        True,
        2,
        (ArchivedMatch(path="archive/2026/projects/ops/old.html", superseded_by="areas/new.html"),),
    )
    assert expected == (result.hits, result.scope_empty, result.archived_matches, result.archived)


def test_an_archived_hit_names_what_superseded_it(db: Database) -> None:
    """Reached through include_archived, the loser's hit carries the winner's path."""
    _load(
        db,
        [_memory("archive/2026/areas/old.html", "old runbook"), _memory("areas/new.html", "new")],
        edges=[
            EdgeRow(
                src_path="areas/new.html", rel="supersedes", dst_path="archive/2026/areas/old.html"
            )
        ],
    )
    hits = _search(db, "runbook", scope=SearchScope(include_archived=True))
    assert {"archive/2026/areas/old.html": "areas/new.html", "areas/new.html": None} == {
        h.path: h.superseded_by for h in hits
    }


@pytest.mark.parametrize(
    "scope",
    [SearchScope(), SearchScope(include_archived=True), SearchScope(as_of="2026-01-01")],
)
def test_scope_empty_needs_a_narrowing_scope_and_no_as_of_pointer(
    db: Database, scope: SearchScope
) -> None:
    """An empty corpus is not an empty scope; under as_of the archived pointer stays zero."""
    result = sqlite_retrieval(db, clock=CLOCK).search(SearchRequest(query="x", scope=scope))
    expected = (scope.as_of is not None, 0, ())
    assert expected == (result.scope_empty, result.archived_matches, result.archived)


def test_the_entity_scope_is_echoed(db: Database) -> None:
    """entityScope repeats the reference so an empty result is attributable."""
    result = sqlite_retrieval(db, clock=CLOCK).search(
        SearchRequest(query="x", scope=SearchScope(entity=" person:Sasha "))
    )
    assert ("person:Sasha", True) == (result.entity_scope, result.scope_empty)


def test_stopword_removal_keeps_function_words_out_of_the_lexical_arm(db: Database) -> None:
    """With the switch on, a memory matching only "the" gets no fts rank; off, it does."""
    _load(db, [_memory("areas/cache.html", "cache warms"), _memory("areas/the.html", "the lounge")])
    ranked = {
        switch: {
            h.path: dict(h.ranks).get("fts")
            for h in _search(db, "how the cache", options=RankingOptions(fts_stopwords=switch))
        }
        for switch in (False, True)
    }
    assert {"areas/cache.html": 1, "areas/the.html": 2} == ranked[False]
    assert {"areas/cache.html": 1, "areas/the.html": None} == ranked[True]
