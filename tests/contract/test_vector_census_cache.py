"""The vector census is kept between searches only while the index cannot have changed.

``SqliteRankStore.vector_census`` counts chunks and vectors (the vector arm's coverage test);
it reuses its last answer while the connection's ``total_changes()`` and the index file's
``data_version`` stand still. Every change must show: this connection's writes, another
connection's commit to the same file, a removal, and another space asked for.
"""

from __future__ import annotations

from pathlib import Path

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.rank_store import SqliteRankStore
from memhtml.ports.rank_store import VectorCensus
from tests.fakes.retrieval_rows import TEST_SPACE, ChunkRow, MemoryRow, load_rows

UNIT = (1.0, 0.0, 0.0, 0.0, 0.0, 0.0)


def memory(name: str, *, embedded: bool = True) -> MemoryRow:
    return MemoryRow(
        path=f"areas/{name}.html",
        chunks=(ChunkRow(text=name, vector=UNIT if embedded else None),),
    )


def census(ranks: SqliteRankStore, model: str | None = TEST_SPACE) -> tuple[int, int]:
    found: VectorCensus = ranks.vector_census(model)
    return found.chunks, found.embedded


def test_the_census_follows_every_change(tmp_path: Path) -> None:
    index = tmp_path / "index.db"
    with Database.open(index, state_path=tmp_path / "state.db") as db:
        ranks = SqliteRankStore(db)
        load_rows(db, [memory("a")])
        first = (census(ranks), census(ranks))
        load_rows(db, [memory("b", embedded=False)])
        own_write = census(ranks)
        with Database.open(index, state_path=tmp_path / "state.db") as other:
            load_rows(other, [memory("c")])
        other_commit = census(ranks)
        db.write_all([("DELETE FROM files WHERE path = 'areas/a.html'", ())])
        removal = census(ranks)
        other_space = census(ranks, "another@6")
        again = census(ranks)
    assert (
        ((1, 1), (1, 1)),
        (2, 1),
        (3, 2),
        (2, 1),
        (2, 0),
        (2, 1),
    ) == (first, own_write, other_commit, removal, other_space, again)
