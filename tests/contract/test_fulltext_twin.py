"""The pure full-text twin against FTS5 itself: the same tokens, the same matches, bm25 to
the bit, with ``unicode61`` and with ``porter``."""

from __future__ import annotations

import pytest
import sqlean
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.domain.fts_query import LexicalQuery, fts_terms
from memhtml.domain.fulltext import FullTextIndex, FullTextRow, fts_tokens, query_phrases

TOKENIZE = {"unicode61": "unicode61", "porter": "porter unicode61"}
# Words that stem in every Porter step, plus short ones the stemmer passes through.
WORDS = (
    "running", "runs", "ran", "caresses", "ponies", "relational", "conditional", "hopping",
    "falling", "generalizations", "oscillators", "electrical", "adjustable", "agreed", "sky",
    "as", "is", "the", "invoice", "export", "ledger", "Éclair", "naïve", "x2", "v1.2",
)  # fmt: skip
texts = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from([" ", ", ", ". ", "-", "'s "])),
    min_size=1,
    max_size=25,
).map("".join)
query_texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


@pytest.fixture(scope="module", params=sorted(TOKENIZE))
def tokenizer(request: pytest.FixtureRequest) -> str:
    """Each tokenizer the index can be built with."""
    return str(request.param)


def _table(tokenizer: str) -> sqlean.Connection:
    connection = sqlean.connect(":memory:")
    connection.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZE[tokenizer]}')")
    return connection


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=texts)
@example(text="Running runs ran; caresses ponies relational x2 v1.2 Éclair naïve")
@example(text=f"{'ab' * 30}bing {'ab' * 31}ing éing ées")  # 64 bytes stem, 65 pass through
def test_the_tokens_are_the_ones_fts5_indexes(tokenizer: str, text: str) -> None:
    """Our tokens, counted, equal FTS5's vocabulary of the same text."""
    connection = _table(tokenizer)
    connection.execute("INSERT INTO t(body) VALUES (?)", (text,))
    connection.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    theirs = dict(connection.execute("SELECT term, cnt FROM v").fetchall())
    ours: dict[str, int] = {}
    for token in fts_tokens(text, tokenizer):
        ours[token] = ours.get(token, 0) + 1
    assert theirs == ours


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(texts, min_size=1, max_size=8),
    query=query_texts,
    every=st.booleans(),
    phrase=st.booleans(),
)
def test_matches_and_bm25_are_fts5s_to_the_bit(
    tokenizer: str, rows: list[str], query: str, every: bool, phrase: bool
) -> None:
    """The same rows match, and every score is the very double FTS5's bm25 returns."""
    terms = fts_terms(f'"{query}"' if phrase else query)
    lexical = LexicalQuery(terms=terms, every=every)
    connection = _table(tokenizer)
    connection.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)", enumerate(rows, 1))
    theirs = dict(
        connection.execute(
            "SELECT rowid, bm25(t) FROM t WHERE t MATCH ?", (lexical.match_text,)
        ).fetchall()
    )
    index = FullTextIndex(
        FullTextRow(key=str(i), tokens=tuple(fts_tokens(text, tokenizer)))
        for i, text in enumerate(rows, 1)
    )
    ours = index.bm25(query_phrases(terms, tokenizer), every=every)
    assert {str(k): v for k, v in theirs.items()} == dict(ours)
