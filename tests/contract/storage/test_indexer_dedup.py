"""Files sharing one content, through the indexing lifecycle over each storage backend.

The dedup rule (the smallest path holds the content, after any history; a skipped duplicate
comes back when the holder goes) is carried out by application code against the ``IndexStore``
port, so both backends must end every history where a rebuild ends it, and where each other
ends it. Asserted through the ports only.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.bootstrap import indexer_over
from memhtml.app.indexing import StoreIndexer
from memhtml.ports.index_store import RowCounts
from memhtml.ports.storage import Storage
from tests.contract.storage.harness import BACKENDS, open_backend
from tests.contract.test_indexer_equivalence import CLOCK, PATHS, History, operations, path_choice
from tests.contract.test_indexer_rebuild import DIM, EMBEDDER, WATERMARK

Outcome = tuple[dict[str, str], dict[str, str], RowCounts]

# Every history starts from two active files sharing one content (in either path order), and
# copies weigh more than in the general property.
ACTIVE = [path for path in PATHS if path.startswith(("areas/", "projects/", "resources/"))]
pairs = st.permutations(ACTIVE).map(
    lambda order: [("commit", order[0], True), ("copy", order[0], order[1])]
)
copies = st.tuples(st.just("copy"), path_choice, path_choice)
histories = st.tuples(pairs, st.lists(st.one_of(operations, copies), max_size=12)).map(
    lambda parts: parts[0] + parts[1]
)


class BackendHistory(History):
    """The history with an index on one storage backend kept by updates."""

    def __init__(self, storage: Storage) -> None:
        super().__init__()
        self.storage = storage
        self.saw_duplicates = False

    def indexer(self, storage: Storage) -> StoreIndexer:
        """An indexer over the repository, writing into ``storage``."""
        return indexer_over(
            storage,
            git=self.git,
            parser=parse_memory,
            clock=CLOCK,
            embed_watermark=WATERMARK,
            embed_dim=DIM,
            embedder=EMBEDDER,
        )

    def update(self) -> None:
        """See ``History.update``."""
        self.indexer(self.storage).update(embed=True)
        self.saw_duplicates |= bool(self.storage.index.skipped_duplicates())


def outcome(storage: Storage) -> Outcome:
    """Which path is indexed from which blob, the duplicates remembered, and the row counts."""
    index = storage.index
    return dict(index.stored_blobs(PATHS)), dict(index.skipped_duplicates()), index.row_counts()


def run(kind: str, ops: list[tuple[Any, ...]]) -> tuple[Outcome, Outcome]:
    """``(updated, rebuilt)``: the index kept by updates through ``ops``, and a fresh one
    rebuilt and updated once at the end, both on ``kind``. Tells hypothesis whether an update
    on the way skipped a duplicate."""
    with open_backend(kind) as storage, open_backend(kind) as fresh:
        history = BackendHistory(storage)
        history.update()
        for op in ops:
            history.apply(op)
        history.update()
        event(f"{kind}: " + ("an update skipped a duplicate" if history.saw_duplicates else "none"))
        history.indexer(fresh).rebuild(embed=True)
        history.indexer(fresh).update(embed=True)
        return outcome(storage), outcome(fresh)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories)
@example([("commit", PATHS[1], True), ("stage_move", PATHS[1], PATHS[0]), ("revert", PATHS[1])])
# A path staged away and restored on disk is untracked: a second `git mv` of it is refused.
@example(
    [
        ("commit", PATHS[0], True),
        ("stage_move", PATHS[0], PATHS[1]),
        ("revert", PATHS[0]),
        ("stage_move", PATHS[0], PATHS[2]),
    ]
)
@example(
    [
        ("commit", PATHS[1], True),
        ("update",),
        ("copy", PATHS[1], PATHS[0]),
        ("update",),
        ("delete", PATHS[0]),
    ]
)
@example(
    [("commit", PATHS[0], True), ("copy", PATHS[0], PATHS[2]), ("update",), ("remove", PATHS[0])]
)
def test_every_backend_ends_a_history_where_a_rebuild_does(ops: list[tuple[Any, ...]]) -> None:
    """Updated and rebuilt indexes agree on each backend, and the backends agree."""
    runs = {kind: run(kind, ops) for kind in BACKENDS}
    sqlite_rebuilt = runs["sqlite"][1]
    assert dict.fromkeys(BACKENDS, (sqlite_rebuilt, sqlite_rebuilt)) == runs


def test_the_smaller_copy_holds_the_content_on_every_backend() -> None:
    """A copy committed at a smaller path takes the content over; the larger is remembered,
    and indexed again once the smaller copy goes."""
    smaller, larger = PATHS[0], PATHS[2]
    for kind in BACKENDS:
        with open_backend(kind) as storage:
            history = BackendHistory(storage)
            history.apply(("commit", larger, True))
            history.update()
            history.apply(("copy", larger, smaller))
            history.update()
            holder = (
                sorted(storage.index.stored_blobs(PATHS)),
                sorted(storage.index.skipped_duplicates()),
            )
            history.apply(("delete", smaller))
            history.update()
            back = (
                sorted(storage.index.stored_blobs(PATHS)),
                sorted(storage.index.skipped_duplicates()),
            )
        assert (([smaller], [larger]), ([larger], [])) == (holder, back), kind
