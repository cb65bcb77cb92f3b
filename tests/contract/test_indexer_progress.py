"""The indexer's progress hook: each phase announces the files or chunks it will do, and
reports exactly that many, over dulwich and the in-memory git fake."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memhtml.app.indexing.parse_pool import BATCHES_PER_WORKER, ParseSettings
from memhtml.ports.progress import PHASE_EMBEDDING, PHASE_INDEXING, PHASE_PARSING
from tests.contract.test_git_port import IMPLEMENTATIONS
from tests.contract.test_indexer_rebuild import (
    A,
    B,
    C,
    FlakyEmbedder,
    Store,
    memory_bytes,
    open_store,
)
from tests.fakes.progress import FakeProgress

BROKEN = b"<!doctype html><html><head><title>x</title></head><body></body></html>"
LONG_BODY = tuple(f"Paragraph {n} says something about ledger lock number {n}." for n in range(40))


@pytest.fixture(params=IMPLEMENTATIONS)
def store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Store]:
    """An empty repository of each implementation and a fresh index."""
    yield from open_store(request.param, tmp_path, monkeypatch)


def _chunks(store: Store, paths: tuple[str, ...] | None = None) -> int:
    if paths is None:
        return int(store.all("SELECT count(*) FROM chunks")[0][0] or 0)
    marks = ", ".join("?" for _ in paths)
    rows = store.all(f"SELECT count(*) FROM chunks WHERE path IN ({marks})", paths)
    return int(rows[0][0] or 0)


def _three_files_and_a_broken_one(store: Store) -> None:
    store.commit(
        {
            A: memory_bytes("Alpha holds.", body=LONG_BODY),
            B: memory_bytes("Beta holds."),
            C: memory_bytes("Gamma holds.", body=("More about gamma.",)),
            "areas/inbox/broken.html": BROKEN,
            "README.md": b"not a memory\n",
        }
    )


def test_rebuild_reports_files_indexed_and_chunks_embedded(store: Store) -> None:
    """Indexing counts every memory file HEAD offers (the broken one too, skipped), embedding
    every chunk; each phase is finished at its total."""
    _three_files_and_a_broken_one(store)
    progress = FakeProgress()
    report = store.indexer().rebuild(embed=True, progress=progress)
    chunks = _chunks(store)
    assert chunks > 3  # the long body really is several chunks
    assert [
        (PHASE_INDEXING, 4, 4),
        (PHASE_EMBEDDING, chunks, chunks),
    ] == progress.summary()
    assert (3, chunks) == (report.files_indexed, report.embeddings_written)


def test_rebuild_without_embedding_has_no_embedding_phase(store: Store) -> None:
    """A lexical rebuild announces indexing only."""
    _three_files_and_a_broken_one(store)
    progress = FakeProgress()
    store.indexer().rebuild(embed=False, progress=progress)
    assert [(PHASE_INDEXING, 4, 4)] == progress.summary()


def test_an_empty_tree_announces_nothing(store: Store) -> None:
    """No files, no phases: a bar for nothing would be noise."""
    progress = FakeProgress()
    store.indexer().rebuild(embed=True, progress=progress)
    assert [] == progress.calls


def test_a_rebuild_on_the_pool_reports_per_batch_and_still_sums_to_the_total(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Indexing on two parse processes advances once per batch as each batch is written."""
    count, workers, batch = 9, 2, 2
    files = {f"resources/topic/n{n}.html": memory_bytes(f"Note {n} holds.") for n in range(count)}
    store.commit(files)
    monkeypatch.setattr("memhtml.app.indexing.rebuild.PROJECTION_BATCH", batch)
    progress = FakeProgress()
    indexer = store.indexer(parse=ParseSettings(workers=workers, pool_min_files=2))
    assert count == indexer.rebuild(embed=False, progress=progress).files_indexed
    calls = progress.calls[: progress.calls.index(("finish", "", 0))]
    assert [(PHASE_INDEXING, count, count)] == progress.summary()
    assert [2, 2, 2, 2, 1] == [units for kind, _, units in calls if kind == "advance"]


def test_an_update_on_the_pool_reports_its_parse_per_batch(store: Store) -> None:
    """An update that parses enough files to use the pool advances once per pool batch."""
    count, workers = 9, 2
    indexer = store.indexer(parse=ParseSettings(workers=workers, pool_min_files=2))
    indexer.rebuild(embed=False)
    store.commit(
        {f"resources/topic/n{n}.html": memory_bytes(f"Note {n} holds.") for n in range(count)}
    )
    progress = FakeProgress()
    indexer.update(embed=False, progress=progress)
    size = -(-count // (workers * BATCHES_PER_WORKER))
    batches = [min(size, count - start) for start in range(0, count, size)]
    calls = progress.calls[: progress.calls.index(("finish", "", 0))]
    assert [(PHASE_PARSING, count, count)] == progress.summary()
    assert batches == [units for kind, _, units in calls if kind == "advance"]


def test_update_reports_the_changed_files_and_their_new_chunks(store: Store) -> None:
    """An update parses only what changed and embeds only the chunks those files brought."""
    _three_files_and_a_broken_one(store)
    indexer = store.indexer()
    indexer.rebuild(embed=True)
    store.commit(
        {B: memory_bytes("Beta changed its mind."), "projects/ws/d.html": memory_bytes("Delta.")}
    )
    progress = FakeProgress()
    report = indexer.update(embed=True, progress=progress)
    new_chunks = _chunks(store, (B, "projects/ws/d.html"))
    assert [(PHASE_PARSING, 2, 2), (PHASE_EMBEDDING, new_chunks, new_chunks)] == progress.summary()
    assert new_chunks == report.embeddings_written


def test_an_update_with_nothing_to_do_announces_nothing(store: Store) -> None:
    """HEAD at the watermark and a clean tree: no phase at all."""
    _three_files_and_a_broken_one(store)
    indexer = store.indexer()
    indexer.rebuild(embed=True)
    progress = FakeProgress()
    assert indexer.update(embed=True, progress=progress).unchanged
    assert [] == progress.calls


def test_a_first_update_reports_as_the_rebuild_it_runs(store: Store) -> None:
    """With no watermark, update rebuilds, and says so through the same two phases."""
    _three_files_and_a_broken_one(store)
    progress = FakeProgress()
    store.indexer().update(embed=True, progress=progress)
    chunks = _chunks(store)
    assert [
        (PHASE_INDEXING, 4, 4),
        (PHASE_EMBEDDING, chunks, chunks),
    ] == progress.summary()


def test_backfill_advances_once_per_stored_slice(store: Store) -> None:
    """index embed's pass: total = pending chunks, one step per persisted slice."""
    _three_files_and_a_broken_one(store)
    indexer = store.indexer(embed_persist_slice=2)
    indexer.rebuild(embed=False)
    chunks = _chunks(store)
    progress = FakeProgress()
    indexer.backfill(progress=progress)
    steps = [units for kind, _, units in progress.calls if kind == "advance"]
    assert [(PHASE_EMBEDDING, chunks, chunks)] == progress.summary()
    assert [2] * (chunks // 2) + ([1] if chunks % 2 else []) == steps


def test_a_model_that_stops_finishes_the_phase_short(store: Store) -> None:
    """The second slice fails: the phase ends with only the landed slice counted."""
    _three_files_and_a_broken_one(store)
    indexer = store.indexer(embedder=FlakyEmbedder(fail_on=[2]), embed_persist_slice=2)
    indexer.rebuild(embed=False)
    progress = FakeProgress()
    report = indexer.backfill(progress=progress)
    assert [(PHASE_EMBEDDING, _chunks(store), 2)] == progress.summary()
    assert 2 == report.embeddings_written


def test_a_dry_run_announces_nothing(store: Store) -> None:
    """Counting what is missing embeds nothing, so there is no phase to show."""
    _three_files_and_a_broken_one(store)
    indexer = store.indexer()
    indexer.rebuild(embed=False)
    progress = FakeProgress()
    indexer.backfill(dry_run=True, progress=progress)
    assert [] == progress.calls
