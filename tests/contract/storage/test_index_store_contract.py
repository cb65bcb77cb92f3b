"""The index store and vector store ports: the same assertions over every backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memhtml.domain.vectors import pack_f32
from memhtml.ports.index_store import RowCounts
from memhtml.ports.indexer import EMPTY_TREE_SHA
from memhtml.ports.storage import Storage
from memhtml.ports.vector_store import StoredVector
from tests.contract.storage.harness import BACKENDS, DIM, MODEL, NOW, Memory, open_backend, write

A, B, C = "areas/inbox/a.html", "projects/ws/b.html", "resources/topic/c.html"
OTHER_MODEL = "other-space@16"


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One empty store per backend."""
    with open_backend(request.param) as opened:
        yield opened


def vector(seed: int) -> bytes:
    """A distinct non-zero stored vector."""
    return pack_f32([float((seed + i) % 5 + 1) for i in range(DIM)])


def embed_all(storage: Storage, model: str = MODEL) -> tuple[str, ...]:
    """Give every pending chunk a vector in ``model``; return their ids."""
    pending = storage.vectors.pending_chunks(model)
    storage.vectors.put_vectors(
        [StoredVector(chunk_id=c.chunk_id, blob=vector(i)) for i, c in enumerate(pending)],
        model=model,
        dim=DIM,
        created_at=NOW,
    )
    return tuple(c.chunk_id for c in pending)


def test_a_fresh_store_has_no_watermark_and_no_rows(storage: Storage) -> None:
    """Never indexed: no state, nothing counted."""
    assert (None, RowCounts(files=0, chunks=0, edges=0)) == (
        storage.index.index_state(),
        storage.index.row_counts(),
    )


def test_projections_land_and_report_their_blobs_and_counts(storage: Storage) -> None:
    """Each projected file is held with its blob, its chunks and its edges."""
    written = write(
        storage,
        [
            Memory(path=A, claim="Alpha holds.", links=(("supports", B),)),
            Memory(path=B, claim="Beta."),
        ],
    )
    blobs = {p.path: p.row.blob_sha for p in written}
    assert blobs == dict(storage.index.stored_blobs([A, B, C]))
    assert RowCounts(files=2, chunks=2, edges=1) == storage.index.row_counts()


def test_the_watermark_records_head_and_dirty_paths(storage: Storage) -> None:
    """A rebuild clears the head; recording moves it; an unborn HEAD reads as the empty tree."""
    storage.index.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
    begun = storage.index.index_state()
    storage.index.record_head(head_sha="c" * 40, dirty_paths=[B, A], duplicates={}, now=NOW)
    moved = storage.index.index_state()
    storage.index.record_head(head_sha=None, dirty_paths=(), duplicates={}, now=NOW)
    unborn = storage.index.index_state()
    assert begun is not None
    assert moved is not None
    assert unborn is not None
    assert (None, MODEL, DIM) == (begun.head_sha, begun.embed_model, begun.embed_dim)
    assert ("c" * 40, frozenset({A, B})) == (moved.head_sha, moved.dirty_paths)
    assert (EMPTY_TREE_SHA, frozenset()) == (unborn.head_sha, unborn.dirty_paths)


def test_skipped_duplicates_are_remembered_added_to_and_replaced(storage: Storage) -> None:
    """Nothing before the first record; additions merge without moving the watermark; the
    next record replaces the whole set."""
    first, second = "sha256:" + "1" * 64, "sha256:" + "2" * 64
    storage.index.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
    initially = dict(storage.index.skipped_duplicates())
    storage.index.record_head(head_sha="c" * 40, dirty_paths=(), duplicates={B: first}, now=NOW)
    recorded = dict(storage.index.skipped_duplicates())
    storage.index.remember_duplicates({C: second, B: second})
    merged = dict(storage.index.skipped_duplicates())
    state = storage.index.index_state()
    storage.index.record_head(head_sha="d" * 40, dirty_paths=(), duplicates={A: first}, now=NOW)
    replaced = dict(storage.index.skipped_duplicates())
    assert state is not None
    assert ({}, {B: first}, {B: second, C: second}, "c" * 40, {A: first}) == (
        initially,
        recorded,
        merged,
        state.head_sha,
        replaced,
    )


def test_remembering_before_any_record_keeps_what_it_adds(storage: Storage) -> None:
    """A displaced row is remembered even when no duplicate was recorded before."""
    content_hash = "sha256:" + "3" * 64
    storage.index.remember_duplicates({A: content_hash})
    storage.index.remember_duplicates({})
    assert {A: content_hash} == dict(storage.index.skipped_duplicates())


def test_a_rebuild_keeps_the_vectors_whose_chunks_come_back(storage: Storage) -> None:
    """Vectors of the space are set aside and restored for chunk ids that return, only."""
    write(storage, [Memory(path=A, claim="Alpha."), Memory(path=B, claim="Beta.")])
    embed_all(storage)
    storage.index.begin_rebuild(embed_model=MODEL, embed_dim=DIM, now=NOW)
    emptied = storage.index.row_counts()
    write(storage, [Memory(path=A, claim="Alpha."), Memory(path=C, claim="Gamma.")])
    preserved = storage.index.finish_rebuild(embed_model=MODEL)
    coverage = storage.vectors.vector_coverage(MODEL)
    assert RowCounts(files=0, chunks=0, edges=0) == emptied
    assert (1, 2, 1) == (preserved, coverage.chunks, coverage.embeddings)


def test_moving_a_row_carries_its_chunks_vectors_and_edges(storage: Storage) -> None:
    """A rename keeps the vector (content-addressed) and re-homes the authored edge."""
    write(storage, [Memory(path=A, claim="Alpha.", links=(("supports", C),))])
    embed_all(storage)
    storage.index.move_rows([(A, B)], with_state=storage.has_state)
    assert ({B}, 1, 1) == (
        set(storage.index.stored_blobs([A, B])),
        storage.vectors.count_vectors(MODEL),
        storage.index.row_counts().edges,
    )


def test_moving_a_row_that_was_never_indexed_changes_nothing(storage: Storage) -> None:
    """The target's own row survives a move whose source does not exist."""
    write(storage, [Memory(path=B, claim="Beta.")])
    storage.index.move_rows([(A, B)], with_state=storage.has_state)
    assert {B} == set(storage.index.stored_blobs([A, B]))


def test_removing_a_row_drops_its_chunks_vectors_and_authored_edges(storage: Storage) -> None:
    """Removal cascades; an inbound edge from another file stays (targets may dangle)."""
    write(
        storage,
        [
            Memory(path=A, claim="Alpha.", links=(("supports", B),)),
            Memory(path=B, claim="Beta.", links=(("supports", A),)),
        ],
    )
    embed_all(storage)
    storage.index.remove_rows([A])
    assert (RowCounts(files=1, chunks=1, edges=1), 1) == (
        storage.index.row_counts(),
        storage.vectors.count_vectors(MODEL),
    )


def test_a_shared_chunk_changes_owner_instead_of_dying(storage: Storage) -> None:
    """Two files with one body share a chunk; removing one keeps the other's chunk and vector.

    The copy is archived: two active memories may not hold one content hash.
    """
    copy = "archive/2026/resources/topic/c.html"
    write(storage, [Memory(path=A, claim="Same body."), Memory(path=copy, claim="Same body.")])
    embed_all(storage)
    storage.index.remove_rows([A])
    assert (1, 1) == (storage.index.row_counts().chunks, storage.vectors.count_vectors(MODEL))


def test_active_hash_holders_ignore_archived_rows_and_tasks(storage: Storage) -> None:
    """Only active non-task rows hold a content hash."""
    archived = "archive/2026/areas/inbox/a.html"
    written = write(
        storage,
        [
            Memory(path=A, claim="Held."),
            Memory(path=archived, claim="Held."),
            Memory(path=B, claim="Held.", memory_type="task"),
        ],
    )
    content_hash = written[0].content_hash
    assert {content_hash: frozenset({A})} == dict(storage.index.active_hash_holders([content_hash]))


def test_two_files_that_swap_contents_settle_through_parking(storage: Storage) -> None:
    """Parking frees each stored hash, so swapped contents land in one step."""
    write(storage, [Memory(path=A, claim="First."), Memory(path=B, claim="Second.")])
    swapped = [Memory(path=A, claim="Second."), Memory(path=B, claim="First.")]
    storage.index.replace_parked((), [m.projection() for m in swapped])
    holders = storage.index.active_hash_holders([m.projection().content_hash for m in swapped])
    assert {frozenset({A}), frozenset({B})} == set(holders.values())
    assert {m.projection().content_hash for m in swapped} == set(holders)


def test_pending_chunks_are_those_without_a_vector_in_the_space(storage: Storage) -> None:
    """A vector of another space leaves its chunk pending; candidate ids narrow the look."""
    write(storage, [Memory(path=A, claim="Alpha."), Memory(path=B, claim="Beta.")])
    ids = embed_all(storage, OTHER_MODEL)
    pending = storage.vectors.pending_chunks(MODEL)
    narrowed = storage.vectors.pending_chunks(MODEL, [ids[0], "no-such-chunk"])
    assert (sorted(ids), [ids[0]]) == (
        [c.chunk_id for c in pending],
        [c.chunk_id for c in narrowed],
    )
    assert () == storage.vectors.pending_chunks(MODEL, [])


def test_storing_a_vector_replaces_another_space_in_place(storage: Storage) -> None:
    """The chunk id alone keys a vector: a full pass migrates the space."""
    write(storage, [Memory(path=A, claim="Alpha.")])
    embed_all(storage, OTHER_MODEL)
    embed_all(storage, MODEL)
    coverage = storage.vectors.vector_coverage(MODEL)
    assert (0, 1.0, 1) == (
        storage.vectors.count_vectors(OTHER_MODEL),
        coverage.coverage,
        coverage.embeddings,
    )


def test_coverage_of_an_empty_index_is_whole(storage: Storage) -> None:
    """No chunks: coverage 1.0, so an empty store is not degraded."""
    coverage = storage.vectors.vector_coverage(MODEL)
    assert (0, 0, 1.0) == (coverage.chunks, coverage.embeddings, coverage.coverage)


def test_retokenizing_changes_matching_and_keeps_rows_and_vectors(storage: Storage) -> None:
    """Rebuilt under porter, "running" finds "runs"; the rows and the vectors stay."""
    from memhtml.domain.fts_query import LexicalQuery
    from memhtml.domain.scope import SearchScope

    write(storage, [Memory(path=A, claim="The exporter runs nightly.")])
    embed_all(storage)
    query = LexicalQuery(terms=("running",))
    before = storage.ranks.holds_every_term(query, SearchScope())
    recorded = storage.index.fulltext_tokenizer()
    storage.index.retokenize("porter")
    after = storage.ranks.holds_every_term(query, SearchScope())
    assert (False, True) == (before, after)
    assert ("porter", 1, RowCounts(files=1, chunks=1, edges=0)) == (
        storage.index.fulltext_tokenizer(),
        storage.vectors.count_vectors(MODEL),
        storage.index.row_counts(),
    )
    assert recorded == "unicode61"
