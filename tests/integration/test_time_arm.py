"""The time arm end to end: a query naming a month lifts that month's memory over a file index."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Final

import pytest

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.retrieval import RetrievalPipeline
from memhtml.ports.retrieval import RankingOptions, SearchRequest
from tests.fakes.retrieval_rows import ChunkRow, MemoryRow, embedded, load_rows
from tests.support import sqlite_retrieval

EMBEDDER: Final = HashingEmbedder(dim=64)
TODAY: Final = dt.datetime(2026, 10, 1, tzinfo=dt.UTC)
WITHOUT_TIME: Final = RankingOptions(
    arms=("fts", "context", "vector", "recency", "salience", "graph")
)  # an arm whose input is missing (the vector, in lexical mode) just does not fire
# One release a month, worded alike; May's sorts last by path and is not the newest, so only
# its date can put it first.
RELEASES: Final = (
    ("areas/a-march.html", "2026-03-10T09:00:00Z"),
    ("areas/b-july.html", "2026-07-08T09:00:00Z"),
    ("areas/c-august.html", "2026-08-12T09:00:00Z"),
    ("areas/z-may.html", "2026-05-20T09:00:00Z"),
)


@pytest.fixture(params=["hybrid", "lexical"])
def retrieval(tmp_path: Path, request: pytest.FixtureRequest) -> RetrievalPipeline:
    """Four monthly release notes in a file-backed index with vectors, searched with a query
    embedder (hybrid) and without one (lexical: the time arm ranks by the words)."""
    db = Database.open(tmp_path / "index.db", state_path=tmp_path / "state.db")
    rows = []
    for path, event_at in RELEASES:
        text = "we shipped the release of the billing exporter"
        row = MemoryRow(
            path=path,
            title="Release",
            gist=text,
            body_text=text,
            fts_text=text,
            disclosure_text=f"{text}.",
            memory_type="episodic",
            event_at=event_at,
            updated_at=event_at,
            chunks=(ChunkRow(text=text),),
        )
        rows.append(embedded(row, EMBEDDER.embed_query))
    load_rows(db, rows, model=EMBEDDER.watermark)
    if request.param == "lexical":
        return sqlite_retrieval(db, clock=FixedClock(TODAY), embed_model=EMBEDDER.watermark)
    return sqlite_retrieval(db, clock=FixedClock(TODAY), embedder=EMBEDDER)


def _search(retrieval: RetrievalPipeline, query: str, options: RankingOptions) -> list[str]:
    result = retrieval.search(SearchRequest(query=query, options=options))
    return [hit.path for hit in result.hits]


@pytest.mark.parametrize(
    "query",
    [
        "which release did we ship in May 2026",
        "which release did we ship in May",
        "the release we shipped on 2026-05-18",
        "the release we shipped on May 24, 2026",
    ],
)
def test_a_query_naming_a_month_puts_that_months_memory_first(
    retrieval: RetrievalPipeline, query: str
) -> None:
    """With the defaults May's release is hit 1; without the time arm it is not."""
    assert "areas/z-may.html" == _search(retrieval, query, RankingOptions())[0]
    assert "areas/z-may.html" != _search(retrieval, query, WITHOUT_TIME)[0]


def test_the_arm_fires_only_when_the_query_names_a_date(retrieval: RetrievalPipeline) -> None:
    """A dated query runs the time arm; the same words without the date do not."""
    dated = retrieval.search(SearchRequest(query="the release we shipped in May 2026"))
    plain = retrieval.search(SearchRequest(query="the release we shipped"))
    assert ("time" in dated.arms, "time" in plain.arms) == (True, False)


def test_the_word_ranked_time_arm_joins_only_beside_the_vector(
    retrieval: RetrievalPipeline,
) -> None:
    """In hybrid mode a dated query ranks its windows twice, by meaning (time) and by the words
    (time_words); in lexical mode the time arm ranks by the words and runs alone."""
    dated = retrieval.search(SearchRequest(query="the release we shipped in May 2026"))
    assert "time" in dated.arms
    assert ("time_words" in dated.arms) == ("vector" in dated.arms)


def test_a_month_outside_every_memory_ranks_nothing_new(retrieval: RetrievalPipeline) -> None:
    """Naming a month no memory falls in gives the same hits as the query without it."""
    with_month = _search(retrieval, "the release we shipped in December 2025", RankingOptions())
    without_time = _search(retrieval, "the release we shipped in December 2025", WITHOUT_TIME)
    assert without_time == with_month
