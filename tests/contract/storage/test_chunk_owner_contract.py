"""Which file owns a chunk that several files share, over every backend (migration 0011).

The vector and snippet arms read a shared chunk through its owner's path, so the owner is the
best file holding the body whatever the order the files were projected or removed in: a live
memory before an archived copy, then the lowest path (``domain.paths.chunk_owner_order``).
``RankStore.chunk_vectors`` shows the owner: only the owner's path answers with the vector.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.domain.paths import chunk_owner_order
from memhtml.ports.storage import Storage
from tests.contract.storage.corpora import EMBEDDER, populate
from tests.contract.storage.harness import BACKENDS, Memory, open_backend, write

# Tasks may share a body while live (the dedup skips them), archived copies always may.
SHARERS = (
    "projects/ws/tasks/b.html",
    "archive/2026/projects/ws/tasks/a.html",
    "areas/tasks/c.html",
    "archive/2025/areas/tasks/c.html",
)


def sharer(path: str) -> Memory:
    return Memory(path=path, claim="Ship the export fix.", title="Export fix", memory_type="task")


def owners(storage: Storage, paths: list[str] | None = None) -> set[str]:
    asked = list(SHARERS) if paths is None else paths
    return set(storage.ranks.chunk_vectors(asked, EMBEDDER.watermark))


def test_the_rule_puts_live_memories_first_then_the_lowest_path() -> None:
    assert [
        "areas/tasks/c.html",
        "projects/ws/tasks/b.html",
        "archive/2025/areas/tasks/c.html",
        "archive/2026/projects/ws/tasks/a.html",
    ] == sorted(SHARERS, key=chunk_owner_order)


@settings(max_examples=25, deadline=None)
@given(
    backend=st.sampled_from(BACKENDS),
    order=st.permutations(SHARERS),
    removed=st.lists(st.sampled_from(SHARERS), unique=True, max_size=3),
    archived=st.booleans(),
)
def test_the_best_remaining_holder_owns_the_shared_chunk(
    backend: str, order: list[str], removed: list[str], archived: bool
) -> None:
    """Projected one by one in any order, then some removed, then the owner perhaps moved
    into the archive: the best file left owns it."""
    with open_backend(backend) as storage:
        populate(storage, [sharer(order[0])])
        for path in order[1:]:
            write(storage, [sharer(path)])
        assert {min(SHARERS, key=chunk_owner_order)} == owners(storage)
        storage.index.remove_rows(removed)
        left = [p for p in SHARERS if p not in removed]
        owner = min(left, key=chunk_owner_order)
        assert {owner} == owners(storage)
        if archived and not owner.startswith("archive/"):
            moved = f"archive/2027/{owner}"
            storage.index.move_rows([(owner, moved)], with_state=False)
            left = [moved if p == owner else p for p in left]
            assert {min(left, key=chunk_owner_order)} == owners(storage, [*left])
