"""The indexer's vector plane: persisted slices, coverage, the space guard and no-embed refusal."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.app.indexing.indexer import BECAUSE_FLAG, BECAUSE_NO_EMBEDDER
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import EmbedModelMismatch, RebuildNoEmbedRefused
from memhtml.ports.indexer import BackfillReport, VectorCoverage
from tests.contract.test_indexer_rebuild import (
    DIM,
    WATERMARK,
    FlakyEmbedder,
    Store,
    memory_bytes,
    store,
)

__all__ = ["store"]  # the fixture, shared with the rebuild suite

OTHER = HashingEmbedder(DIM * 2)


def seven_files(store: Store) -> None:
    """Seven one-chunk memories, committed and rebuilt without vectors."""
    store.commit({f"areas/inbox/m{i}.html": memory_bytes(f"Memory {i} holds.") for i in range(7)})
    store.indexer().rebuild(embed=False)


def test_coverage_of_an_empty_index_is_one(store: Store) -> None:
    """No chunks means full coverage of the configured space."""
    expected = VectorCoverage(model=WATERMARK, chunks=0, embeddings=0, coverage=1.0)
    assert expected == store.indexer().vector_coverage()


def test_embed_missing_fills_every_chunk(store: Store) -> None:
    """A full pass embeds each chunk without a vector, and coverage reaches 1."""
    seven_files(store)
    indexer = store.indexer()
    written = indexer.embed_missing()
    assert (7, 1.0, 0) == (written, indexer.vector_coverage().coverage, indexer.embed_missing())


def test_failure_on_the_third_slice_keeps_the_first_two(store: Store) -> None:
    """Slices of 2: the model fails on call 3, so 4 vectors landed and 3 are reported missing."""
    seven_files(store)
    flaky = FlakyEmbedder(fail_on=[3])
    report = store.indexer(embedder=flaky, embed_persist_slice=2).backfill()
    expected = BackfillReport(
        head_sha=store.repo.git.head(),
        chunks=7,
        embeddings=4,
        embeddings_written=4,
        embeddings_remaining=3,
        model_failure="chosen to fail",
    )
    assert (expected, [2, 2, 2]) == (report, flaky.calls)


def test_a_later_pass_finishes_what_a_failed_one_left(store: Store) -> None:
    """After a failed pass, the next one embeds only the remainder."""
    seven_files(store)
    store.indexer(embedder=FlakyEmbedder(fail_on=[2]), embed_persist_slice=3).embed_missing()
    rest = FlakyEmbedder()
    written = store.indexer(embedder=rest, embed_persist_slice=3).embed_missing()
    assert (4, [3, 1]) == (written, rest.calls)


def test_candidate_ids_narrow_the_pass(store: Store) -> None:
    """With candidate ids only those chunks are embedded; an empty list calls no model."""
    seven_files(store)
    ids = [str(r[0]) for r in store.all("SELECT chunk_id FROM chunks ORDER BY chunk_id")]
    flaky = FlakyEmbedder()
    indexer = store.indexer(embedder=flaky)
    counts = (indexer.embed_missing(ids[:2]), indexer.embed_missing([]), indexer.embed_missing(ids))
    assert ((2, 0, 5), [2, 5]) == (counts, flaky.calls)


def test_lexical_only_store_writes_no_vector_and_reports_the_gap(store: Store) -> None:
    """Without an embedder nothing is embedded; backfill names the whole gap."""
    seven_files(store)
    indexer = store.indexer(embedder=None)
    report = indexer.backfill()
    assert (False, 0, 7, None) == (
        indexer.embedder_bound,
        indexer.embed_missing(),
        report.embeddings_remaining,
        report.model_failure,
    )


def test_dry_run_counts_and_writes_nothing(store: Store) -> None:
    """backfill(dry_run=True) reports the gap and calls no model."""
    seven_files(store)
    flaky = FlakyEmbedder()
    report = store.indexer(embedder=flaky).backfill(dry_run=True)
    assert ((7, 0, 0, 7), []) == (
        (report.chunks, report.embeddings, report.embeddings_written, report.embeddings_remaining),
        flaky.calls,
    )


class WrongShape:
    """An embedder that answers with vectors one component short."""

    watermark = WATERMARK
    dim = DIM

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """Vectors of the wrong length."""
        return tuple((0.5,) * (DIM - 1) for _ in texts)


def test_wrong_shaped_vectors_stop_the_pass_like_a_model_failure(store: Store) -> None:
    """Vectors of the wrong length are never stored; the pass reports a model failure."""
    seven_files(store)
    report = store.indexer(embedder=WrongShape()).backfill()
    assert (0, 7, True) == (
        report.embeddings_written,
        report.embeddings_remaining,
        report.model_failure is not None,
    )


def test_another_space_refuses_every_write_but_an_embedding_rebuild(store: Store) -> None:
    """A store built in one space refuses update, embed, backfill and a no-vector rebuild."""
    seven_files(store)
    other = store.indexer(embed_watermark=OTHER.watermark, embed_dim=OTHER.dim, embedder=OTHER)
    lexical = store.indexer(embed_watermark=OTHER.watermark, embed_dim=OTHER.dim, embedder=None)
    refusals = []
    for attempt in (
        lambda: other.update(embed=True),
        other.embed_missing,
        other.backfill,
        lambda: other.rebuild(embed=False, force=True),
        lambda: lexical.rebuild(embed=True, force=True),
    ):
        with pytest.raises(EmbedModelMismatch) as refused:
            attempt()
        refusals.append((refused.value.stored, refused.value.configured))
    assert [(WATERMARK, OTHER.watermark)] * 5 == refusals


def test_embedding_rebuild_migrates_the_whole_space(store: Store) -> None:
    """rebuild(embed=True) with the new embedder records the new space and re-embeds it all."""
    seven_files(store)
    store.indexer().embed_missing()
    other = store.indexer(embed_watermark=OTHER.watermark, embed_dim=OTHER.dim, embedder=OTHER)
    report = other.rebuild(embed=True)
    state = other.index_state()
    assert state is not None
    models = store.all("SELECT DISTINCT model FROM embeddings")
    assert ((0, 7), (OTHER.watermark, OTHER.dim), [(OTHER.watermark,)]) == (
        (report.embeddings_preserved, report.embeddings_written),
        (state.embed_model, state.embed_dim),
        models,
    )


def test_rebuild_without_vectors_over_vectors_is_refused(store: Store) -> None:
    """A rebuild that cannot embed, over a store with vectors, is refused with the count and why."""
    seven_files(store)
    store.indexer().embed_missing()
    refusals = []
    for indexer, embed in ((store.indexer(), False), (store.indexer(embedder=None), True)):
        with pytest.raises(RebuildNoEmbedRefused) as refused:
            indexer.rebuild(embed=embed)
        refusals.append((refused.value.embeddings, refused.value.model, refused.value.because))
    expected = [(7, WATERMARK, BECAUSE_FLAG), (7, WATERMARK, BECAUSE_NO_EMBEDDER)]
    assert expected == refusals


def test_forced_lexical_rebuild_keeps_the_vectors(store: Store) -> None:
    """force=True rebuilds without embedding and still carries every vector across."""
    seven_files(store)
    store.indexer().embed_missing()
    report = store.indexer().rebuild(embed=False, force=True)
    assert (7, 0, 1.0) == (
        report.embeddings_preserved,
        report.embeddings_written,
        store.indexer().vector_coverage().coverage,
    )


def test_an_embedder_of_another_space_is_refused_at_construction(store: Store) -> None:
    """Binding an embedder whose space differs from the configured watermark is a wiring bug."""
    with pytest.raises(ValueError, match="vector space"):
        store.indexer(embedder=OTHER)


def test_rebuild_survives_a_model_failure(store: Store) -> None:
    """A model that fails during rebuild leaves a current, partly embedded index and says why."""
    store.commit({f"areas/inbox/m{i}.html": memory_bytes(f"Memory {i} holds.") for i in range(5)})
    indexer = store.indexer(embedder=FlakyEmbedder(fail_on=[2]), embed_persist_slice=2)
    report = indexer.rebuild(embed=True)
    state = indexer.index_state()
    assert state is not None
    assert ((2, "chosen to fail"), store.repo.git.head(), 0.4) == (
        (report.embeddings_written, report.model_failure),
        state.head_sha,
        indexer.vector_coverage().coverage,
    )
