"""Incremental updates agree with a rebuild: the property that makes ``update`` trustworthy.

Hypothesis drives a repository through commits, moves, deletions, hand edits, staged renames,
reverts and committed copies (two files holding one content), updating the index after chosen
steps; at the end the updated index must hold exactly the rows a fresh rebuild (plus one update
for the uncommitted tree) holds.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.indexing import StoreIndexer
from memhtml.ports.errors import GitFailure
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite
from tests.contract.test_indexer_rebuild import fixture_indexer, memory_bytes
from tests.fakes.git import FakeGit
from tests.support import migrated_in_memory

PATHS = (
    "areas/inbox/a.html",
    "areas/inbox/b.html",
    "projects/ws/c.html",
    "archive/2026/areas/inbox/a.html",
    "notes/x.html",
)
BROKEN = b"<!doctype html><title>no article</title>"
CLOCK = FixedClock(dt.datetime(2026, 9, 14, tzinfo=dt.UTC))
SNAPSHOT_QUERIES = (
    "SELECT * FROM files ORDER BY path",
    "SELECT * FROM file_tags ORDER BY path, tag",
    "SELECT * FROM file_entities ORDER BY 1, 2, 3",
    "SELECT chunk_id, path, content_hash, ordinal, text FROM chunks ORDER BY chunk_id",
    "SELECT src_path, rel, dst_path, edge_class, derived, provenance, src_hash FROM edges "
    "ORDER BY 1, 2, 3",
    "SELECT chunk_id, model, vec FROM embeddings ORDER BY chunk_id",
)

path_choice = st.sampled_from(PATHS)
operations = st.one_of(
    st.tuples(st.just("commit"), path_choice, st.booleans()),
    st.tuples(st.just("delete"), path_choice),
    st.tuples(st.just("move"), path_choice, path_choice),
    st.tuples(st.just("edit"), path_choice, st.booleans()),
    st.tuples(st.just("remove"), path_choice),
    st.tuples(st.just("stage_move"), path_choice, path_choice),
    st.tuples(st.just("revert"), path_choice),
    st.tuples(st.just("copy"), path_choice, path_choice),
    st.tuples(st.just("update")),
)


class History(ABC):
    """A fake repository driven by operations, and fresh memory text on demand; a subclass
    says what an ``update`` step does."""

    def __init__(self) -> None:
        self.git = FakeGit()
        self.counter = 0

    @abstractmethod
    def update(self) -> None:
        """Bring the index kept by updates up to date."""

    def fresh(self, valid: bool) -> bytes:
        """A memory whose article no other file has; only a copy repeats it."""
        self.counter += 1
        if not valid:
            return BROKEN
        # A link to another path of the set, so edges must follow moves and removals too.
        target = PATHS[self.counter % 3]
        return memory_bytes(
            f"Memory {self.counter} holds.",
            tags=(f"t{self.counter % 2}",),
            links=[("relates_to", target)],
        )

    def head_files(self) -> dict[str, str]:
        """Path to blob sha at HEAD."""
        head = self.git.head()
        return {} if head is None else {e.path: e.blob_sha for e in self.git.list_tree(head)}

    def working_files(self) -> set[str]:
        """Paths present in the working tree."""
        present = set()
        for path in PATHS:
            try:
                self.git.read_working_file(path)
            except GitFailure:
                continue
            present.add(path)
        return present

    def apply(self, op: tuple[Any, ...]) -> None:
        """Carry out one operation when it makes sense in the current state."""
        kind, *args = op
        head = self.git.head()
        land: Callable[[ChangeSet], str] = lambda c: self.git.commit(c, kind, expected_head=head)  # noqa: E731
        in_head = set(self.head_files())
        on_disk = self.working_files()
        if kind == "commit":
            land(ChangeSet(writes=(FileWrite(path=args[0], data=self.fresh(args[1])),)))
        elif kind == "delete" and args[0] in in_head and args[0] in on_disk:
            land(ChangeSet(deletes=(args[0],)))
        elif kind == "move" and args[0] in in_head & on_disk and args[1] not in in_head | on_disk:
            land(ChangeSet(moves=(FileMove(source=args[0], target=args[1]),)))
        elif kind == "edit":
            self.git.write_file(args[0], self.fresh(args[1]))
        elif kind == "remove" and args[0] in on_disk:
            self.git.remove_file(args[0])
        elif kind == "stage_move" and args[0] in in_head and args[0] in on_disk:
            # git mv refuses a path without an index entry (one staged away, then restored
            # on disk by a revert): "not under version control".
            if self.git.staged(args[0]) and args[1] not in on_disk and args[1] not in in_head:
                self.git.stage_move(args[0], args[1])
        elif kind == "revert" and args[0] in in_head:
            blob = self.head_files()[args[0]]
            self.git.write_file(args[0], self.git.read_blobs([blob])[blob])
        elif kind == "copy" and args[0] in in_head and args[0] != args[1]:
            blob = self.head_files()[args[0]]
            data = self.git.read_blobs([blob])[blob]
            land(ChangeSet(writes=(FileWrite(path=args[1], data=data),)))
        elif kind == "update":
            self.update()


class World(History):
    """The history with a SQLite index kept by updates."""

    def __init__(self) -> None:
        super().__init__()
        self.db = migrated_in_memory(state=True)

    def indexer(self, db: Database) -> StoreIndexer:
        """An indexer over the repository, writing into ``db``."""
        return fixture_indexer(db, self.git, CLOCK)

    def update(self) -> None:
        """See ``History.update``."""
        self.indexer(self.db).update(embed=True)


def snapshot(db: Database) -> list[list[Any]]:
    """Every projected row, in a stable order."""
    return [db.all(query) for query in SNAPSHOT_QUERIES]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operations, max_size=12))
@example([("commit", PATHS[0], True), ("update",), ("move", PATHS[0], PATHS[3])])
@example(
    [
        ("commit", PATHS[0], True),
        ("update",),
        ("edit", PATHS[0], True),
        ("update",),
        ("revert", PATHS[0]),
    ]
)
@example([("commit", PATHS[0], True), ("update",), ("stage_move", PATHS[0], PATHS[1])])
@example([("commit", PATHS[0], True), ("update",), ("commit", PATHS[0], False)])
@example([("commit", PATHS[1], True), ("stage_move", PATHS[1], PATHS[0]), ("revert", PATHS[1])])
@example(
    [
        ("commit", PATHS[0], True),
        ("copy", PATHS[0], PATHS[1]),
        ("update",),
        ("commit", PATHS[0], True),
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
@example([("commit", PATHS[0], True), ("update",), ("copy", PATHS[0], PATHS[3]), ("update",)])
def test_updates_agree_with_a_rebuild(ops: list[tuple[Any, ...]]) -> None:
    """After any history, the updated index equals a fresh rebuild followed by one update."""
    world = World()
    world.update()
    for op in ops:
        world.apply(op)
    world.update()
    with Database.open(":memory:", state_path=":memory:") as fresh:
        world.indexer(fresh).rebuild(embed=True)
        world.indexer(fresh).update(embed=True)
        expected = snapshot(fresh)
    actual = snapshot(world.db)
    world.db.close()
    assert expected == actual
