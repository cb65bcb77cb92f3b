"""Every query text hypothesis can generate is a valid search: zero FTS5 errors over 10,000."""

from __future__ import annotations

import datetime as dt
from typing import Final

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.domain.fts_query import fts_query_forms
from memhtml.ports.retrieval import RankingOptions, SearchRequest
from tests.fakes.retrieval_rows import MemoryRow, load_rows, open_index
from tests.strategies import fts_query_text
from tests.support import sqlite_retrieval

TEXTS: Final = (
    "Drain the VIP queue before the cache warms",
    "déployé sur हिन्दी İstanbul ΣΑΣ x2 and 2026",
    "how it is: the NOT operator AND the NEAR one",
    "person:sasha said don't deploy on tuesday",
)


def _index(tokenizer: str) -> Database:
    db = open_index(state=False, tokenizer=tokenizer)
    load_rows(db, [MemoryRow(path=f"areas/m{i}.html", body_text=t) for i, t in enumerate(TEXTS)])
    return db


CLOCK: Final = FixedClock(dt.datetime(2026, 10, 1, tzinfo=dt.UTC))
# Built once: the corpus is read-only here, and 10,000 fresh indexes would take minutes.
RETRIEVALS: Final = {
    name: sqlite_retrieval(_index(name), clock=CLOCK) for name in ("unicode61", "porter")
}
LEXICAL: Final = RankingOptions(arms=("fts",))


QUERIES_PER_EXAMPLE: Final = 50
"""Queries drawn per example; 200 examples make the 10,000. Drawing one query per example
spends most of the run in hypothesis's per-example bookkeeping, not in SQLite."""
SHARDS: Final = 4
"""The 10,000 run as four tests of 2,500 (two per tokenizer, each its own hypothesis seed), so
a parallel run spreads them over its workers; one test of 10,000 was the suite's longest."""


def _check(queries: list[str], tokenizer: str) -> None:
    retrieval = RETRIEVALS[tokenizer]
    expected = [("fts",) if fts_query_forms(query).any else () for query in queries]
    actual = [
        retrieval.search(SearchRequest(query=query, options=LEXICAL)).arms for query in queries
    ]
    assert expected == actual


@pytest.mark.parametrize(
    ("tokenizer", "shard"), [(name, n) for name in sorted(RETRIEVALS) for n in range(2)]
)
def test_generated_queries_never_fail_the_lexical_arm(tokenizer: str, shard: int) -> None:
    """The probe and the MATCH both run; the arm fires exactly when a term survives."""

    @settings(
        max_examples=10_000 // QUERIES_PER_EXAMPLE // SHARDS,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        queries=st.lists(
            fts_query_text, min_size=QUERIES_PER_EXAMPLE, max_size=QUERIES_PER_EXAMPLE
        ),
    )
    @example(queries=["-x", "!!! ???", "'s AND NOT \"drain the", 'person:sasha "drain the vip"'])
    @example(queries=["-x", "!!! ???", "'s AND NOT \"drain the", "NEAR(x y)", "x*"])
    def shard_of_queries(queries: list[str]) -> None:
        _check(queries, tokenizer)

    shard_of_queries()


def test_a_quoted_phrase_demands_its_words_in_order() -> None:
    """A balanced quote is one phrase: the words in order match, the reversed order does not."""
    retrieval = RETRIEVALS["unicode61"]
    hits = retrieval.search(SearchRequest(query='"drain the vip"', options=LEXICAL)).hits
    assert ["areas/m0.html"] == [hit.path for hit in hits]
    reversed_hits = retrieval.search(SearchRequest(query='"vip the drain"', options=LEXICAL))
    assert () == reversed_hits.hits
