"""Freshness before reads (docs/decisions.md §20): update first, never fail a read on a stale
index."""

from __future__ import annotations

import logging

import pytest

from memhtml.app.use_cases.freshness import ensure_fresh
from memhtml.ports.errors import EmbedModelMismatch, IndexStale, StorageFailure
from tests.fakes.write_plane import fake_store


def test_a_successful_update_reports_a_fresh_index() -> None:
    """One update runs and the read is told the index is fresh."""
    store = fake_store()
    freshness = ensure_fresh(store.index, embed=False)
    assert (True, 1) == (freshness.index_fresh, store.index.updates)
    assert freshness.index_update_ms >= 0


@pytest.mark.parametrize(
    "error", [IndexStale("rebuild died"), EmbedModelMismatch("other@3", "fake-model@3")]
)
def test_a_refused_update_answers_stale_and_warns(
    error: Exception, caplog: pytest.LogCaptureFixture
) -> None:
    """IndexStale or EmbedModelMismatch turn into index_fresh False and one stderr warning."""
    store = fake_store()
    store.index.update_failures[1] = error
    with caplog.at_level(logging.WARNING, logger="memhtml"):
        freshness = ensure_fresh(store.index, embed=False)
    assert freshness.index_fresh is False
    assert ["memhtml"] == [record.name for record in caplog.records]


def test_a_storage_failure_is_not_swallowed() -> None:
    """An index that cannot be read at all fails the read: there is nothing to answer from."""
    store = fake_store()
    store.index.update_failures[1] = StorageFailure("read index")
    with pytest.raises(StorageFailure):
        ensure_fresh(store.index, embed=False)
