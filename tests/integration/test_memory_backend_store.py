"""The whole store over the in-memory backend: one line of configuration, no SQLite.

init → write → index → search → recall → reinforce → state export run through the same facade
and use cases as the SQLite store; only the storage bundle differs.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.bootstrap import Services, Settings
from memhtml.app.bootstrap.config import EmbedSettings
from memhtml.app.store import Store
from memhtml.domain.sidecar import parse_sidecar
from memhtml.domain.write_requests import WriteRequest

START = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)


def test_a_store_over_memory_storage_runs_every_step(tmp_path: Path) -> None:
    """Writes commit to git, the index lives in memory, and every read answers from it."""
    settings = Settings(root=tmp_path, embed=EmbedSettings(), storage="memory")
    clock = FixedClock(START)
    with Store(Services(settings, clock=clock, embedder=HashingEmbedder())) as store:
        initialized = store.initialize(databases_created=True)
        written = store.write(
            WriteRequest(
                title="Invoice export runs at 03:30 UTC",
                memory_type="procedural",
                claim="The invoice export job starts at 03:30 UTC every night.",
                tags=("billing",),
            )
        )
        store.write(
            WriteRequest(
                title="Ledger pool size",
                memory_type="semantic",
                claim="The ledger connection pool holds 50 connections.",
            )
        )
        indexed = store.index_update()
        found = store.search("when does the invoice export start")
        recalled = store.recall("invoice export")
        clock.advance(1_000)
        reinforced = store.reinforce([written.path], "positive")
        exported = store.state_export()
        status = store.index_status()
    assert initialized.head_sha is not None
    assert indexed.unchanged
    assert written.path == found.hits[0].path
    assert ("fts", "context", "vector", "recency", "salience", "graph") == found.arms
    assert written.path in {entry.path for entry in recalled.memories.disclosed}
    assert ((written.path,), "positive") == (reinforced.bumped, reinforced.signal)
    rows = parse_sidecar((tmp_path / exported.path).read_text()).rows
    assert (True, [written.path]) == (exported.written, [r.path for r in rows])
    assert (2, 2, 1.0) == (status.files, status.chunks, status.vector_coverage)
    assert not (tmp_path / ".memhtml" / "index.db").exists()
