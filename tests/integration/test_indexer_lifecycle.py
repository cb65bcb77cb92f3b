"""The indexer end to end: a real repository in ``tmp_path``, a file-backed index, the real
parser, writer and dulwich adapter, and the hashing embedder for vectors.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
from pathlib import Path
from typing import Any

import pytest

from memhtml.adapters.git import DulwichGit, DulwichGitWriter
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.html import mark_archived, parse_memory, set_meta
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.indexing import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.ports.errors import EmbedModelMismatch, IndexStale, RebuildNoEmbedRefused
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite
from tests.contract.test_indexer_rebuild import (
    DIM,
    EMBEDDER,
    START,
    WATERMARK,
    FlakyEmbedder,
    memory_bytes,
)
from tests.support import sqlite_indexer

ORIGIN = "projects/checkout/retry-budget.html"
ARCHIVED = "archive/2026/projects/checkout/retry-budget.html"
OTHER = "areas/inbox/cache-warming.html"
FTS_SQL = (
    "SELECT f.path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
    "WHERE files_fts MATCH ? ORDER BY f.path"
)
VECTORS = "SELECT chunk_id, model, vec, created_at FROM embeddings ORDER BY chunk_id"


class Repository:
    """A working tree under ``tmp_path`` with its index files beside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git = DulwichGit(root)
        self.writer = DulwichGitWriter(root, env={}, clock=FixedClock(START))
        self.writer.init()
        self.clock = FixedClock(START)

    def commit(self, changes: ChangeSet) -> str:
        """Land a change set on HEAD."""
        return self.writer.commit(changes, "change", expected_head=self.git.head())

    def open_index(self, database: type[Database] = Database) -> Database:
        """Open (or reopen) the file-backed index and state."""
        return database.open(
            self.root.parent / "index.db", state_path=self.root.parent / "state.db"
        )

    def indexer(self, db: Database, **overrides: Any) -> StoreIndexer:
        """The production wiring, with the hashing embedder and a fixed clock."""
        settings: dict[str, Any] = {
            "db": db,
            "git": self.git,
            "parser": parse_memory,
            "clock": self.clock,
            "embed_watermark": WATERMARK,
            "embed_dim": DIM,
            "embedder": EMBEDDER,
        }
        settings.update(overrides)
        return sqlite_indexer(**settings)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Repository:
    """An empty repository; the machine's git configuration is kept out."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return Repository(tmp_path / "repo")


def seed(repo: Repository) -> None:
    """Two memories, one of them with a long body (several chunks)."""
    long_body = tuple(
        f"Retry step {i} waits twice as long as the step before it." for i in range(90)
    )
    repo.commit(
        ChangeSet(
            writes=(
                FileWrite(
                    path=ORIGIN,
                    data=memory_bytes("The retry budget is three attempts.", body=long_body),
                ),
                FileWrite(path=OTHER, data=memory_bytes("Caches warm on boot.")),
            )
        )
    )


def test_write_rebuild_edit_archive_update(repo: Repository) -> None:
    """Rows, FTS hits and vectors follow an edit and an archive move through incremental updates."""
    seed(repo)
    with repo.open_index() as db:
        indexer = repo.indexer(db)
        built = indexer.rebuild(embed=True)
        repo.commit(
            ChangeSet(
                writes=(FileWrite(path=OTHER, data=memory_bytes("Caches warm lazily.")),),
            )
        )
        edited = indexer.update(embed=True)
        vectors = db.all(VECTORS)
        stamped = mark_archived(repo.git.read_working_file(ORIGIN).decode(), "2026-10-01T00:00:00Z")
        repo.commit(
            ChangeSet(
                moves=(FileMove(source=ORIGIN, target=ARCHIVED),),
                writes=(FileWrite(path=ARCHIVED, data=stamped.encode()),),
            )
        )
        moved = indexer.update(embed=True)
        rows = db.all("SELECT path, archived, origin_path, archived_at FROM files ORDER BY path")
        hits = (
            db.all(FTS_SQL, ("retry",)),
            db.all(FTS_SQL, ("lazily",)),
            db.all(FTS_SQL, ("boot",)),
        )
        after = db.all(VECTORS)
    assert (built.chunks_indexed > 2, (edited.modified, edited.embeddings_written)) == (
        True,
        (1, 1),
    )
    assert (1, 0) == (moved.renamed, moved.embeddings_written)
    assert [
        (ARCHIVED, 1, ORIGIN, "2026-10-01T00:00:00Z"),
        (OTHER, 0, None, None),
    ] == rows
    assert ([(ARCHIVED,)], [(OTHER,)], []) == hits
    assert vectors == after


class DiesAfterTruncate(Database):
    """An index whose first projection batch fails, as a crash after the truncate would."""

    armed = True

    def write_all(self, writes: Any, *, operation: str | None = None) -> None:
        """Raise on the first projection batch while armed."""
        if self.armed and operation == "project files":
            raise RuntimeError("killed")
        super().write_all(writes, operation=operation)

    def write_planned(self, plan: Any, *, operation: str | None = None) -> None:
        """Raise on the first projection batch while armed (projections are planned writes)."""
        if self.armed and operation == "project files":
            raise RuntimeError("killed")
        super().write_planned(plan, operation=operation)


def test_rebuild_killed_after_truncate_is_resumed_by_the_next_update(repo: Repository) -> None:
    """head_sha stays NULL after the kill; the next update, finding no rebuild running, runs
    the rebuild again and the index ends whole and at HEAD.

    The resuming rebuild runs on a new connection, so the stash died with the killed one and
    every vector is embedded again: model calls spent, nothing lost.
    """
    seed(repo)
    with repo.open_index() as db:
        repo.indexer(db).rebuild(embed=True)
        chunks = int(db.all("SELECT count(*) FROM chunks")[0][0] or 0)
    with repo.open_index(DiesAfterTruncate) as dying:
        with pytest.raises(RuntimeError, match="killed"):
            repo.indexer(dying).rebuild(embed=True)
        state = repo.indexer(dying).index_state()
        files_left = dying.all("SELECT count(*) FROM files")
    with repo.open_index() as db:
        resumed = repo.indexer(db).update(embed=True)
        after = repo.indexer(db).update(embed=True)
        chunks_after = int(db.all("SELECT count(*) FROM chunks")[0][0] or 0)
    assert state is not None
    assert (None, [(0,)]) == (state.head_sha, files_left)
    assert (True, repo.git.head(), chunks, chunks, True) == (
        resumed.rebuilt,
        resumed.head_sha,
        resumed.embeddings_written,
        chunks_after,
        after.unchanged,
    )


def test_a_null_watermark_while_another_process_rebuilds_is_stale(repo: Repository) -> None:
    """While the rebuild lock is held elsewhere, a NULL watermark means a live rebuild: update
    refuses with IndexStale instead of racing it, and status can tell; released, it resumes."""
    seed(repo)
    with repo.open_index() as db:
        repo.indexer(db).rebuild(embed=False)
        db.run("UPDATE index_state SET head_sha = NULL")
        holder = os.open(str(repo.root.parent / "index.db-rebuild.lock"), os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(holder, fcntl.LOCK_EX)
            indexer = repo.indexer(db)
            running = indexer.rebuild_in_progress()
            with pytest.raises(IndexStale, match="another process"):
                indexer.update(embed=False)
        finally:
            os.close(holder)
        resumed = repo.indexer(db).update(embed=False)
    assert (True, True, repo.git.head()) == (running, resumed.rebuilt, resumed.head_sha)


def test_rebuild_retried_on_the_same_connection_keeps_the_stash(repo: Repository) -> None:
    """A rebuild that died on a connection that lives on leaves its stash for the retry."""
    seed(repo)
    with repo.open_index(DiesAfterTruncate) as db:
        assert isinstance(db, DiesAfterTruncate)
        db.armed = False
        first = repo.indexer(db).rebuild(embed=True)
        db.armed = True
        with pytest.raises(RuntimeError, match="killed"):
            repo.indexer(db).rebuild(embed=True)
        db.armed = False
        retried = repo.indexer(db).rebuild(embed=True)
    assert (first.embeddings_written, 0) == (
        retried.embeddings_preserved,
        retried.embeddings_written,
    )


def test_embedder_failing_on_the_third_slice_keeps_two_slices_on_disk(repo: Repository) -> None:
    """Slices 1 and 2 are committed before slice 3 fails, and survive reopening the index."""
    repo.commit(
        ChangeSet(
            writes=tuple(
                FileWrite(path=f"areas/inbox/m{i}.html", data=memory_bytes(f"Memory {i} holds."))
                for i in range(7)
            )
        )
    )
    flaky = FlakyEmbedder(fail_on=[3])
    with repo.open_index() as db:
        report = repo.indexer(db, embedder=flaky, embed_persist_slice=2).rebuild(embed=True)
    with repo.open_index() as db:
        stored = db.all("SELECT count(*) FROM embeddings")
    assert ((4, "chosen to fail"), [(4,)]) == (
        (report.embeddings_written, report.model_failure),
        stored,
    )


def test_head_only_edit_keeps_vectors(repo: Repository) -> None:
    """Raising importance in the head re-projects the row and leaves the vectors untouched."""
    seed(repo)
    with repo.open_index() as db:
        indexer = repo.indexer(db)
        indexer.rebuild(embed=True)
        vectors = db.all(VECTORS)
        edited = set_meta(repo.git.read_working_file(OTHER).decode(), "memhtml-importance", "9")
        repo.commit(ChangeSet(writes=(FileWrite(path=OTHER, data=edited.encode()),)))
        repo.clock.advance(60)
        report = indexer.update(embed=True)
        importance = db.all("SELECT importance FROM files WHERE path = ?", (OTHER,))
        assert ((1, 0), [(9,)], vectors) == (
            (report.modified, report.embeddings_written),
            importance,
            db.all(VECTORS),
        )


def test_uncommitted_edit_is_indexed(repo: Repository) -> None:
    """A file saved but not committed is what the index holds after the next update."""
    seed(repo)
    with repo.open_index() as db:
        indexer = repo.indexer(db)
        indexer.rebuild(embed=True)
        (repo.root / OTHER).write_bytes(memory_bytes("Caches warm on the first request."))
        report = indexer.update(embed=True)
        assert (1, [(OTHER,)]) == (report.dirty, db.all(FTS_SQL, ("request",)))


def test_reopened_index_with_another_model_refuses_until_rebuilt_with_it(
    repo: Repository,
) -> None:
    """A configuration change of model is refused; rebuild --embed migrates; --no-embed refused."""
    seed(repo)
    with repo.open_index() as db:
        repo.indexer(db).rebuild(embed=True)
    other = HashingEmbedder(DIM * 4)
    with repo.open_index() as db:
        migrated = repo.indexer(
            db, embed_watermark=other.watermark, embed_dim=other.dim, embedder=other
        )
        with pytest.raises(EmbedModelMismatch):
            migrated.update(embed=True)
        report = migrated.rebuild(embed=True)
        with pytest.raises(RebuildNoEmbedRefused):
            migrated.rebuild(embed=False)
        coverage = migrated.vector_coverage()
    assert (0, 1.0, other.watermark) == (
        report.embeddings_preserved,
        coverage.coverage,
        coverage.model,
    )


def test_pool_parse_projects_the_same_rows_as_serial(repo: Repository) -> None:
    """Parsing on two processes yields exactly the rows the serial parse does."""
    repo.commit(
        ChangeSet(
            writes=(
                *(
                    FileWrite(
                        path=f"areas/inbox/m{i}.html", data=memory_bytes(f"Memory {i} holds.")
                    )
                    for i in range(12)
                ),
                FileWrite(path="areas/inbox/broken.html", data=b"<p>no memory</p>"),
            )
        )
    )
    dumps = []
    for workers in (1, 2):
        with Database.open(repo.root.parent / f"pool-{workers}.db") as db:
            settings = ParseSettings(workers=workers, pool_min_files=0)
            report = repo.indexer(db, parse=settings).rebuild(embed=True)
            dumps.append((report, db.all("SELECT * FROM files ORDER BY path"), db.all(VECTORS)))
    assert dumps[0] == dumps[1]


def test_clock_stamps_indexed_at(repo: Repository) -> None:
    """indexed_at and the watermark's times come from the injected clock."""
    seed(repo)
    repo.clock = FixedClock(dt.datetime(2027, 1, 2, 3, 4, 5, tzinfo=dt.UTC))
    with repo.open_index() as db:
        indexer = repo.indexer(db)
        indexer.rebuild(embed=False)
        stamps = db.all("SELECT DISTINCT indexed_at FROM files")
        state = indexer.index_state()
    assert state is not None
    assert ([("2027-01-02T03:04:05Z",)], "2027-01-02T03:04:05Z") == (stamps, state.rebuilt_at)
