"""Fuzzed queries against a real store (issue 14): a result, or ERR_INVALID_FLAG past the limit.

Random text with every kind of code point (lone surrogates included), FTS5 syntax that would
break a naive MATCH, and huge repeated pastes go through ``search`` and ``recall`` on a real
git + SQLite store with an embedder. A query within the limit must answer with the vector arm
still running (a lone surrogate used to drop it); one past the limit must be refused with
``ERR_INVALID_FLAG`` naming the limit. Any other outcome, ``ERR_UNKNOWN`` above all, fails.
The seed is fixed, so a run is repeatable; the outcome is mapped by the table every edge uses.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import pytest
from hypothesis import HealthCheck, example, given, seed, settings
from hypothesis import strategies as st

import memhtml
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.app.cli.failures import describe_error
from memhtml.app.store import Store
from memhtml.domain.query_bounds import MAX_QUERY_CHARS
from memhtml.domain.write_requests import WriteRequest, checked
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.retrieval import RecallRequest, SearchRequest
from tests.integration.test_cli_commands_store import data, invoke
from tests.strategies import fts_query_text

FUZZ_SEED: Final = 20261201
CLAIMS: Final = (
    ("Ledger lock holds for 40 minutes", "The nightly ledger lock is held for 40 minutes."),
    ("Invoice export runs at 03:30", "The invoice export job starts at 03:30 UTC."),
    ("Déployé le cache", "Le cache est déployé avant la migration « NEAR » de minuit."),
    ("Pager rota", 'The on-call "pager rota" lives in the ops wiki: ops:pager.'),
)
# Every code point: hypothesis leaves out surrogates (category Cs) unless asked.
ANY_CHARACTER: Final = st.characters(codec=None, categories=None, exclude_categories=())
FTS_SYNTAX: Final = st.lists(
    st.sampled_from(
        ['"', "*", "^", ":", "-", "+", "(", ")", "{", "}", "NEAR(", "NEAR/3", "AND", "OR",
         "NOT", "title:", "{title body}:", "'", "\\", "\x00", "\ud800", "\udfff", "ledger",
         "lock", "déployé", "𝔘𝔫𝔦", "\u0301", " ", "\t", "\n"]
    ),
    max_size=40,
).map("".join)  # fmt: skip
HUGE: Final = st.builds(
    lambda piece, times: piece * times,
    st.sampled_from(["ledger ", "x", '"a b" ', "\ud83d", "word-", "AND OR "]),
    st.integers(min_value=500, max_value=12_000),
)
QUERIES: Final = st.one_of(st.text(ANY_CHARACTER, max_size=300), FTS_SYNTAX, fts_query_text, HUGE)


class Utf8OnlyEmbedder(HashingEmbedder):
    """The hashing embedder, refusing text UTF-8 cannot encode as the bundled model's
    tokenizer does (``ModelUnavailable``), so a lone surrogate reaching it drops the arm."""

    def embed_query(self, text: str) -> Vector:
        """The hashing vector of ``text``, after the tokenizer's encoding check."""
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ModelUnavailable("tokenize") from error
        return super().embed_query(text)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A small store with a vector for every chunk, opened once for every example."""
    root = tmp_path_factory.mktemp("fuzz") / "store"
    data(invoke(["init", "--repo", str(root)]))
    with memhtml.open(root, environ={}, embedder=Utf8OnlyEmbedder(dim=64)) as opened:
        for title, claim in CLAIMS:
            opened.write(checked(WriteRequest(title=title, memory_type="semantic", claim=claim)))
        yield opened


@seed(FUZZ_SEED)
@settings(
    max_examples=100,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(QUERIES)
@example("\ud800")
@example("x" * MAX_QUERY_CHARS)
@example("x" * (MAX_QUERY_CHARS + 1))
@example('NEAR(ledger lock, 2) AND "unbalanced')
def test_a_fuzzed_query_answers_or_is_refused_past_the_limit(store: Store, query: str) -> None:
    """Within the limit: search and recall answer, the vector arm ran. Past it: both are
    ERR_INVALID_FLAG naming the limit. Nothing else, ERR_UNKNOWN least of all."""
    for run in (
        lambda: store.search(SearchRequest(query=query, limit=5)),
        lambda: store.recall(RecallRequest(query=query, budget_chars=2000)),
    ):
        try:
            answer = run()
        except Exception as error:
            failure = describe_error(error)
            assert len(query) > MAX_QUERY_CHARS, (failure.code, failure.message)
            assert ("ERR_INVALID_FLAG", True) == (
                failure.code,
                f"the limit is {MAX_QUERY_CHARS:,}" in failure.message,
            )
            continue
        assert len(query) <= MAX_QUERY_CHARS
        assert (False, True) == (answer.degraded, "vector" in answer.arms)
