"""Files with identical content share one chunk row; losing its owner must not lose the vector.

Two tasks may hold the same article (tasks are outside the active-content dedup), so their
content hash, and therefore their chunk ids, coincide. The row points at one owning path; when
that owner is deleted or edited away, the row moves to the other file instead of taking the
vector with it.
"""

from __future__ import annotations

from memhtml.adapters.sqlite.connection import Row
from tests.contract.test_indexer_rebuild import Store, memory_bytes, store

__all__ = ["store"]

T1, T2 = "projects/ws/t1.html", "projects/ws/t2.html"
SHARED = "Rotate the staging signing key."
CHUNKS = "SELECT c.path, count(e.chunk_id) FROM chunks c LEFT JOIN embeddings e USING (chunk_id) "
BY_PATH = "GROUP BY c.path ORDER BY c.path"


def twins(store: Store) -> list[Row]:
    """Commit two tasks with the same article, rebuild with vectors, return chunk owners."""
    store.commit(
        {
            T1: memory_bytes(SHARED, title="First copy", memory_type="task"),
            T2: memory_bytes(SHARED, title="Second copy", memory_type="task"),
        }
    )
    store.indexer().rebuild(embed=True)
    return store.all(CHUNKS + BY_PATH)


def owner(store: Store) -> str:
    """The one path the shared chunk row points at."""
    rows = store.all(CHUNKS + BY_PATH)
    assert 1 == len(rows), rows
    return str(rows[0][0])


def test_identical_articles_share_one_embedded_chunk(store: Store) -> None:
    """Both files are indexed; their one shared chunk carries one vector."""
    rows = twins(store)
    assert (2, 1, 1) == (len(store.paths()), len(rows), rows[0][1])


def test_deleting_the_owner_hands_the_chunk_to_the_twin(store: Store) -> None:
    """The chunk and its vector survive the owner's delete, now owned by the remaining file."""
    twins(store)
    first_owner = owner(store)
    survivor = T2 if first_owner == T1 else T1
    vectors = store.all("SELECT chunk_id, vec FROM embeddings")
    store.commit(deletes=[first_owner])
    report = store.indexer().update(embed=True)
    assert ((1, 0), [(survivor, 1)], vectors) == (
        (report.removed, report.embeddings_written),
        store.all(CHUNKS + BY_PATH),
        store.all("SELECT chunk_id, vec FROM embeddings"),
    )


def test_editing_the_owner_away_keeps_the_twins_chunk(store: Store) -> None:
    """The edited file gets its own new chunk; the old one moves to the unchanged twin."""
    twins(store)
    first_owner = owner(store)
    survivor = T2 if first_owner == T1 else T1
    store.commit({first_owner: memory_bytes("Retire the staging key.", memory_type="task")})
    store.indexer().update(embed=True)
    rows = {str(path): count for path, count in store.all(CHUNKS + BY_PATH)}
    assert {first_owner: 1, survivor: 1} == rows


def test_the_last_owners_delete_removes_the_chunk(store: Store) -> None:
    """With no file left holding the content, the chunk and its vector go."""
    twins(store)
    store.commit(deletes=[T1, T2])
    store.indexer().update(embed=True)
    assert ([], []) == (store.all(CHUNKS + BY_PATH), store.all("SELECT * FROM embeddings"))
