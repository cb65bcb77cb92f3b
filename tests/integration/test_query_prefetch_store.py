"""A warm store starts each query's vector ahead, and its searches answer as a fresh one's do."""

from __future__ import annotations

from pathlib import Path

import memhtml
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.domain.write_requests import WriteRequest, checked
from memhtml.ports.retrieval import SearchRequest
from tests.integration.test_cli_commands_store import data, invoke

FACTS = (
    ("Ledger lock", "The nightly ledger lock holds for about 40 minutes."),
    ("Deploy window", "Deploys run at nine in the morning, never on Fridays."),
    ("Billing owner", "Sasha owns the billing service and its on-call rota."),
)


def test_searches_of_a_warm_store_answer_as_a_fresh_one_does(tmp_path: Path) -> None:
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    with memhtml.open(root, environ={}, embedder=HashingEmbedder(dim=64)) as store:
        for title, claim in FACTS:
            store.write(checked(WriteRequest(title=title, memory_type="semantic", claim=claim)))
        queries = ("ledger lock", "who owns billing", "who owns billing", "deploy friday")
        warm = [store.search(SearchRequest(query=query)) for query in queries]
        prefetch = store.services.query_embedder
        assert prefetch is not None
        assert prefetch.warm
    for query, answer in zip(queries, warm, strict=True):
        with memhtml.open(root, environ={}, embedder=HashingEmbedder(dim=64)) as fresh:
            cold = fresh.search(SearchRequest(query=query))
        assert "vector" in answer.arms
        assert [(h.path, h.ranks) for h in cold.hits] == [(h.path, h.ranks) for h in answer.hits]
