"""Which file owns a chunk that several files share (migration 0011).

Identical bodies share one chunk row and its vector; the vector and snippet arms read it
through the owner's path. The owner must not depend on the order of projection (or an update
and a rebuild disagree) and must be a live memory whenever one holds the body (or an archived
copy takes the vector away from the memory it was copied from).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.indexing import StoreIndexer
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.contract.test_indexer_rebuild import fixture_indexer, memory_bytes
from tests.fakes.git import FakeGit
from tests.support import index_migrations_before, migrated_in_memory

SHARERS = (
    "projects/ws/c.html",
    "archive/2026/areas/inbox/a.html",
    "areas/inbox/a.html",
    "archive/2025/projects/ws/c.html",
    "resources/r.html",
)
BODY = memory_bytes("One body, many files.")
CLOCK = FixedClock(dt.datetime(2026, 9, 14, tzinfo=dt.UTC))


def best_owner(paths: set[str]) -> str:
    """The documented rule: live before archived, then the lowest path."""
    return min(paths, key=lambda p: (p.startswith("archive/"), p))


def indexer(db: Database, git: FakeGit) -> StoreIndexer:
    return fixture_indexer(db, git, CLOCK)


def commit(git: FakeGit, change: ChangeSet) -> None:
    git.commit(change, "test", expected_head=git.head())


def owners(db: Database) -> set[str]:
    return {str(row[0]) for row in db.all("SELECT DISTINCT path FROM chunks")}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(("add", "delete")), st.sampled_from(SHARERS), st.booleans()),
        min_size=1,
        max_size=10,
    )
)
def test_the_owner_is_the_best_present_file_after_every_update(
    steps: list[tuple[str, str, bool]],
) -> None:
    """Adding and deleting sharers in any order, with updates after chosen steps, always
    leaves the chunks with the best file that holds the body."""
    git, db = FakeGit(), migrated_in_memory(state=True)
    present: set[str] = set()
    for kind, path, update in steps:
        if kind == "add" and path not in present:
            commit(git, ChangeSet(writes=(FileWrite(path=path, data=BODY),)))
            present.add(path)
        elif kind == "delete" and path in present:
            commit(git, ChangeSet(deletes=(path,)))
            present.discard(path)
        if update:
            indexer(db, git).update(embed=True)
            assert owners(db) == ({best_owner(present)} if present else set())
    indexer(db, git).update(embed=True)
    assert owners(db) == ({best_owner(present)} if present else set())
    db.close()


def test_an_index_built_before_the_rule_is_re_owned_on_open(tmp_path: Path) -> None:
    """An index whose shared chunk went to an archived copy (the old last-projected rule) gives
    it back to the live memory when this release opens it, vectors kept."""
    old = index_migrations_before("0011", tmp_path / "old")
    git = FakeGit()
    commit(git, ChangeSet(writes=tuple(FileWrite(path=p, data=BODY) for p in SHARERS[1:3])))
    with Database.open(tmp_path / "index.db", index_migrations=old) as db:
        indexer(db, git).rebuild(embed=True)
        db.script("UPDATE chunks SET path = 'archive/2026/areas/inbox/a.html'")
        vectors = db.all("SELECT chunk_id, vec FROM embeddings ORDER BY chunk_id")
    with Database.open(tmp_path / "index.db") as db:
        assert (
            "0011_live_chunk_owner.sql",
            "0012_event_day.sql",
            "0013_context_rowid.sql",
        ) == db.newly_applied
        assert {"areas/inbox/a.html"} == owners(db)
        assert vectors == db.all("SELECT chunk_id, vec FROM embeddings ORDER BY chunk_id")
        # The replaced trigger orders the same way: the live owner's delete hands the row to
        # the archived copy, the only file left with the body.
        commit(git, ChangeSet(deletes=("areas/inbox/a.html",)))
        indexer(db, git).update(embed=True)
        assert {"archive/2026/areas/inbox/a.html"} == owners(db)
