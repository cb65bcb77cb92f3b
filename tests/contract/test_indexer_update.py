"""The indexer's incremental update against real SQLite, over dulwich and the in-memory fake."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memhtml.adapters.html import parse_memory
from memhtml.adapters.sqlite.connection import Database, Plan, Write
from memhtml.domain.chunking import chunk_text
from memhtml.domain.vectors import pack_f32
from memhtml.ports.errors import StorageFailure
from memhtml.ports.indexer import SKIP_DUPLICATE_CONTENT, SkippedFile
from tests.contract.test_git_port import FakeHarness
from tests.contract.test_indexer_rebuild import (
    DIM,
    A,
    B,
    C,
    FlakyEmbedder,
    Store,
    memory_bytes,
    store,
)
from tests.fakes.git import FakeGit

__all__ = ["store"]  # the fixture, shared with the rebuild suite

ARCHIVED_A = "archive/2026/areas/inbox/a.html"
VECTORS = "SELECT chunk_id, model, vec, created_at FROM embeddings ORDER BY 1"


def seeded(store: Store, *, embed: bool = True) -> None:
    """Commit A, B and C and rebuild over them."""
    store.commit(
        {
            A: memory_bytes("Alpha holds.", title="Alpha"),
            B: memory_bytes("Beta holds.", title="Beta"),
            C: memory_bytes("Gamma holds.", title="Gamma"),
        }
    )
    store.indexer().rebuild(embed=embed)


def gists(store: Store) -> list[tuple[str, str]]:
    """(path, gist) of every indexed file."""
    return [(str(p), str(g)) for p, g in store.all("SELECT path, gist FROM files ORDER BY path")]


def test_update_without_a_watermark_rebuilds(store: Store) -> None:
    """A store nothing has indexed gets a full rebuild, counted as added files."""
    store.commit({A: memory_bytes("Alpha holds."), B: memory_bytes("Beta holds.")})
    report = store.indexer().update(embed=True)
    assert (True, 2, 2, [A, B]) == (
        report.rebuilt,
        report.added,
        report.embeddings_written,
        store.paths(),
    )


def test_clean_tree_is_unchanged_and_writes_nothing(store: Store) -> None:
    """HEAD at the watermark and a clean tree: unchanged, and the watermark row is untouched."""
    seeded(store)
    indexer = store.indexer()
    before = indexer.index_state()
    store.clock.advance(3600)
    report = indexer.update(embed=True)
    assert (True, before) == (report.unchanged, indexer.index_state())


def test_committed_add_modify_delete_are_applied_and_counted(store: Store) -> None:
    """Each committed change reaches its row, and the report counts it."""
    seeded(store)
    head = store.commit(
        {
            A: memory_bytes("Alpha changed.", title="Alpha"),
            "areas/inbox/d.html": memory_bytes("D."),
        },
        deletes=[C],
    )
    report = store.indexer().update(embed=True)
    expected = (head, 1, 1, 1, 0, False)
    actual = (
        report.head_sha,
        report.added,
        report.modified,
        report.removed,
        report.renamed,
        report.unchanged,
    )
    assert (
        expected,
        [(A, "Alpha changed."), ("areas/inbox/d.html", "D."), (B, "Beta holds.")],
    ) == (
        actual,
        gists(store),
    )


def test_archive_move_keeps_chunks_vectors_and_access(store: Store) -> None:
    """A git mv into archive/ updates the path; chunks, vectors and state.access follow it."""
    seeded(store)
    store.db.write_all(
        [("INSERT INTO state.access (path, access_count, updated_at) VALUES (?, 4, 'n')", (A,))]
    )
    vectors = store.all(VECTORS)
    store.commit(moves=[(A, ARCHIVED_A)])
    store.clock.advance(60)
    report = store.indexer().update(embed=True)
    row = store.all("SELECT archived, origin_path, para FROM files WHERE path = ?", (ARCHIVED_A,))
    chunk_paths = store.all("SELECT DISTINCT path FROM chunks WHERE path LIKE 'archive/%'")
    access = store.all("SELECT path, access_count FROM state.access")
    assert (1, 0, [(1, A, "archive")], [(ARCHIVED_A,)], vectors, [(ARCHIVED_A, 4)]) == (
        report.renamed,
        report.embeddings_written,
        row,
        chunk_paths,
        store.all(VECTORS),
        access,
    )


def test_moving_out_of_the_buckets_is_a_removal(store: Store) -> None:
    """A file moved outside the PARA buckets leaves the index."""
    seeded(store)
    store.commit(moves=[(A, "notes/a.html")])
    report = store.indexer().update(embed=False)
    assert ((1, 0), [B, C]) == ((report.removed, report.renamed), store.paths())


def test_head_only_edit_keeps_the_vector(store: Store) -> None:
    """A head-only edit keeps the content hash, so the chunk and its vector stay as they are."""
    seeded(store)
    vectors = store.all(VECTORS)
    store.commit({A: memory_bytes("Alpha holds.", title="Alpha renamed", importance=9)})
    store.clock.advance(60)
    report = store.indexer().update(embed=True)
    row = store.all("SELECT title, importance FROM files WHERE path = ?", (A,))
    assert ((1, 0), [("Alpha renamed", 9)], vectors) == (
        (report.modified, report.embeddings_written),
        row,
        store.all(VECTORS),
    )


def test_dirty_edit_is_indexed_and_a_revert_is_noticed(store: Store) -> None:
    """An uncommitted edit is indexed; once reverted on disk, the committed text returns."""
    seeded(store)
    indexer = store.indexer()
    store.repo.write_file(A, memory_bytes("Alpha edited on disk.", title="Alpha"))
    dirty = indexer.update(embed=True)
    during = gists(store)[0]
    store.repo.write_file(A, memory_bytes("Alpha holds.", title="Alpha"))
    reverted = indexer.update(embed=True)
    settled = indexer.update(embed=True)
    assert (
        (1, (A, "Alpha edited on disk.")),
        (0, (A, "Alpha holds.")),
        True,
    ) == ((dirty.dirty, during), (reverted.dirty, gists(store)[0]), settled.unchanged)


def test_dirty_delete_and_restore(store: Store) -> None:
    """A file deleted on disk leaves the index until it is back."""
    seeded(store)
    indexer = store.indexer()
    data = store.repo.git.read_working_file(B)
    store.repo.remove_file(B)
    indexer.update(embed=False)
    gone = store.paths()
    store.repo.write_file(B, data)
    indexer.update(embed=False)
    assert ([A, C], [A, B, C]) == (gone, store.paths())


def test_staged_rename_moves_the_row(store: Store) -> None:
    """A staged, uncommitted git mv moves the row and keeps its vector."""
    seeded(store)
    vectors = store.all(VECTORS)
    store.repo.stage_move(A, ARCHIVED_A)
    report = store.indexer().update(embed=True)
    assert ([B, C, ARCHIVED_A], 0, vectors) == (
        sorted(store.paths(), key=lambda p: p.startswith("archive")),
        report.embeddings_written,
        store.all(VECTORS),
    )


def test_null_watermark_of_a_dead_rebuild_is_resumed(store: Store) -> None:
    """A row whose head_sha is NULL with no rebuild running (a dead rebuild) makes update run
    the rebuild again, lexical passes included: the index ends whole and at HEAD."""
    seeded(store)
    store.db.run("UPDATE index_state SET head_sha = NULL")
    store.db.run("DELETE FROM files WHERE path = ?", (B,))
    indexer = store.indexer()
    report = indexer.update(embed=False)
    state = indexer.index_state()
    assert (True, [A, B, C], store.repo.git.head()) == (
        report.rebuilt,
        store.paths(),
        None if state is None else state.head_sha,
    )


def test_broken_edit_drops_the_row_until_fixed(store: Store) -> None:
    """A committed edit that no longer parses is skipped and its row removed, as a rebuild would."""
    seeded(store)
    indexer = store.indexer()
    store.commit({B: b"<!doctype html><title>broken</title>"})
    broken = indexer.update(embed=False)
    gone = store.paths()
    store.commit({B: memory_bytes("Beta is back.")})
    indexer.update(embed=False)
    assert ([B], [A, C], [A, B, C]) == (
        [skip.path for skip in broken.skipped],
        gone,
        store.paths(),
    )


def test_edit_into_a_duplicate_is_skipped(store: Store) -> None:
    """A file edited to repeat another active memory is skipped; the incumbent stays."""
    seeded(store)
    store.commit({B: memory_bytes("Alpha holds.", title="Alpha")})
    report = store.indexer().update(embed=False)
    expected = ((SkippedFile(path=B, reasons=(SKIP_DUPLICATE_CONTENT,)),), [A, C])
    assert expected == (report.skipped, store.paths())


def test_two_files_swapping_contents_both_land(store: Store) -> None:
    """Two active files that swap articles in one commit are both re-projected, no skip."""
    seeded(store)
    store.commit(
        {
            A: memory_bytes("Beta holds.", title="Beta"),
            B: memory_bytes("Alpha holds.", title="Alpha"),
        }
    )
    report = store.indexer().update(embed=True)
    expected = [(A, "Beta holds."), (B, "Alpha holds."), (C, "Gamma holds.")]
    assert ((), expected, 1.0) == (
        report.skipped,
        gists(store),
        store.indexer().vector_coverage().coverage,
    )


def test_one_file_taking_the_content_another_gives_up(store: Store) -> None:
    """A file may take over content another file of the same commit changes away from."""
    seeded(store)
    store.commit(
        {
            A: memory_bytes("Alpha moved on.", title="Alpha"),
            "areas/inbox/0.html": memory_bytes("Alpha holds.", title="Alpha"),
        }
    )
    report = store.indexer().update(embed=False)
    assert ((), ("areas/inbox/0.html", "Alpha holds.")) == (report.skipped, gists(store)[0])


class FailingDatabase(Database):
    """A database whose writes fail once armed, as a crash in the middle of a pass would."""

    armed = False

    def write_all(self, writes: Sequence[Write], *, operation: str | None = None) -> None:
        """Fail while armed; otherwise write."""
        if self.armed and any("INSERT INTO files" in sql for sql, _ in writes):
            raise StorageFailure("injected")
        super().write_all(writes, operation=operation)

    def write_planned(self, plan: Plan, *, operation: str | None = None) -> None:
        """Fail projections while armed (they are planned writes); otherwise write."""
        if self.armed and operation == "project files":
            raise StorageFailure("injected")
        super().write_planned(plan, operation=operation)


def test_failed_update_keeps_the_watermark_and_is_replayed() -> None:
    """An update that fails mid-way leaves the old watermark; the next one redoes the change."""
    with FailingDatabase.open(":memory:", state_path=":memory:") as db:
        assert isinstance(db, FailingDatabase)
        store = Store(repo=FakeHarness(FakeGit()), db=db)
        seeded(store)
        old = store.indexer().index_state()
        store.commit({A: memory_bytes("Alpha changed.", title="Alpha")})
        db.armed = True
        with pytest.raises(StorageFailure):
            store.indexer().update(embed=False)
        kept = store.indexer().index_state()
        db.armed = False
        store.indexer().update(embed=False)
        assert (old, (A, "Alpha changed.")) == (kept, gists(store)[0])


def test_update_embeds_only_its_own_chunks(store: Store) -> None:
    """update(embed=True) fills the chunks it projected, not the store's older gaps."""
    seeded(store, embed=False)
    store.commit({"areas/inbox/d.html": memory_bytes("Delta holds.")})
    report = store.indexer().update(embed=True)
    coverage = store.indexer().vector_coverage()
    assert (1, 4, 1) == (report.embeddings_written, coverage.chunks, coverage.embeddings)


def _first_chunk_id(data: bytes) -> str:
    doc = parse_memory(data)
    return chunk_text(doc.content_hash, doc.body_text)[0].chunk_id


def test_handed_vectors_are_stored_instead_of_embedded(store: Store) -> None:
    """A vector handed for a chunk the pass projects is stored as handed and not embedded again;
    the pass still embeds its other chunks."""
    seeded(store)
    d, e = memory_bytes("Delta holds."), memory_bytes("Epsilon holds.")
    store.commit({"areas/inbox/d.html": d, "areas/inbox/e.html": e})
    handed = pack_f32([1.0] + [0.0] * (DIM - 1))
    counting = FlakyEmbedder()
    indexer = store.indexer(embedder=counting)
    report = indexer.update(embed=True, vectors={_first_chunk_id(d): handed})
    stored = {str(c): v for c, v in store.all("SELECT chunk_id, vec FROM embeddings")}
    assert (2, [1], handed, True) == (
        report.embeddings_written,
        counting.calls,
        stored[_first_chunk_id(d)],
        _first_chunk_id(e) in stored,
    )


def test_handed_vectors_are_stored_by_a_lexical_pass(store: Store) -> None:
    """With embed off the handed vectors still land (the assist already paid for them); the
    rest of the pass's chunks stay pending."""
    seeded(store)
    d, e = memory_bytes("Delta holds."), memory_bytes("Epsilon holds.")
    store.commit({"areas/inbox/d.html": d, "areas/inbox/e.html": e})
    handed = pack_f32([0.5] * DIM)
    report = store.indexer().update(embed=False, vectors={_first_chunk_id(d): handed})
    coverage = store.indexer().vector_coverage()
    assert (1, 5, 4) == (report.embeddings_written, coverage.chunks, coverage.embeddings)


def test_handed_vectors_of_the_wrong_size_or_for_other_chunks_are_ignored(store: Store) -> None:
    """A vector of another dimension, or for a chunk the pass did not project, is not stored."""
    seeded(store)
    d = memory_bytes("Delta holds.")
    store.commit({"areas/inbox/d.html": d})
    vectors = {
        _first_chunk_id(d): pack_f32([1.0] * (DIM + 1)),
        "not-a-chunk": pack_f32([1.0] * DIM),
    }
    report = store.indexer().update(embed=False, vectors=vectors)
    coverage = store.indexer().vector_coverage()
    assert (0, 4, 3) == (report.embeddings_written, coverage.chunks, coverage.embeddings)


def test_handed_vectors_need_a_bound_embedder(store: Store) -> None:
    """Without an embedder nothing vouches for the handed vectors' space: none is stored."""
    seeded(store, embed=False)
    d = memory_bytes("Delta holds.")
    store.commit({"areas/inbox/d.html": d})
    indexer = store.indexer(embedder=None)
    report = indexer.update(embed=False, vectors={_first_chunk_id(d): pack_f32([1.0] * DIM)})
    assert (0, 0) == (report.embeddings_written, indexer.vector_coverage().embeddings)


def test_mined_edges_follow_a_move_and_links_to_the_new_path_go(store: Store) -> None:
    """A sleep edge from a moved file moves with it; an edge to its own new path is dropped."""
    seeded(store)
    store.db.write_all(
        [
            (
                "INSERT INTO edges (src_path, rel, dst_path, derived, strength, provenance, "
                "created_at) VALUES (?, ?, ?, 1, 0.9, 'sleep', 'n')",
                (A, rel, dst),
            )
            for rel, dst in (("supports", B), ("relates_to", ARCHIVED_A))
        ]
    )
    store.commit(moves=[(A, ARCHIVED_A)])
    store.indexer().update(embed=False)
    edges = store.all("SELECT src_path, rel, dst_path, derived FROM edges ORDER BY rel")
    assert [(ARCHIVED_A, "supports", B, 1)] == edges


def test_staged_move_onto_an_indexed_untracked_file(store: Store) -> None:
    """A staged rename over a file indexed from the working tree replaces that row."""
    seeded(store)
    indexer = store.indexer()
    store.repo.write_file("areas/inbox/new.html", memory_bytes("Untracked note."))
    indexer.update(embed=True)
    vectors = store.all(
        "SELECT vec FROM embeddings e JOIN chunks c USING (chunk_id) WHERE path = ?", (A,)
    )
    store.repo.stage_move(A, "areas/inbox/new.html")
    report = indexer.update(embed=True)
    moved = store.all(
        "SELECT vec FROM embeddings e JOIN chunks c USING (chunk_id) WHERE path = ?",
        ("areas/inbox/new.html",),
    )
    assert ((), [(B,), (C,), ("areas/inbox/new.html",)], vectors) == (
        report.skipped,
        [(p,) for p in sorted(store.paths(), key=lambda p: (p != B, p != C, p))],
        moved,
    )


def test_an_index_built_with_another_tokenizer_is_retokenized_by_the_next_update(
    store: Store,
) -> None:
    """Configured porter over a unicode61 index: the update retokenizes, reports it, keeps
    every vector, and the next update has nothing left to do."""
    from tests.fakes.progress import FakeProgress, PhaseRecord

    store.commit({A: memory_bytes("The exporter runs nightly.")})
    store.indexer().rebuild(embed=True)
    store.indexer().update(embed=True)
    store.db.script(
        "UPDATE index_settings SET value = 'unicode61' WHERE name = 'fts_tokenizer'",
        operation="pretend an old index",
    )
    progress = FakeProgress()
    first = store.indexer(fts_tokenizer="porter").update(embed=True, progress=progress)
    second = store.indexer(fts_tokenizer="porter").update(embed=True)
    vectors = store.all("SELECT count(*) FROM embeddings")[0][0]
    assert ("porter", False) == (first.retokenized, first.unchanged)
    assert PhaseRecord(phase="retokenizing", total=1, done=1, finished=True) in progress.phases()
    assert (None, True, 1) == (second.retokenized, second.unchanged, vectors)
    assert "porter" == store.db.fts_tokenizer()


def test_an_index_keyed_by_no_rule_is_rekeyed_by_the_next_update(store: Store) -> None:
    """An index from before frame keys (migration 0005 records no rule, every key NULL): the
    next update derives each row's key from its stored gist, keeps every vector, and the
    update after it has nothing to re-key."""
    from tests.fakes.progress import FakeProgress, PhaseRecord

    store.commit(
        {
            A: memory_bytes("The pool holds 50 connections."),
            B: memory_bytes("The pool holds 80 connections."),
            C: memory_bytes("Gamma holds."),
        }
    )
    store.indexer().rebuild(embed=True)
    store.db.script(
        "UPDATE files SET frame_key = NULL; "
        "UPDATE index_settings SET value = '' WHERE name = 'frame_key_rule'",
        operation="pretend an index from before frame keys",
    )
    progress, again = FakeProgress(), FakeProgress()
    store.indexer().update(embed=True, progress=progress)
    store.indexer().update(embed=True, progress=again)
    keys = store.all("SELECT path, frame_key FROM files ORDER BY path")
    rule = store.all("SELECT value FROM index_settings WHERE name = 'frame_key_rule'")
    vectors = store.all("SELECT count(*) FROM embeddings")[0][0]
    assert [
        (A, "the pool holds {number} connections"),
        (B, "the pool holds {number} connections"),
        (C, None),
    ] == [tuple(row) for row in keys]
    assert ([("frame-1",)], 3) == ([tuple(r) for r in rule], vectors)
    assert PhaseRecord(phase="rekeying", total=3, done=3, finished=True) in progress.phases()
    assert "rekeying" not in [p.phase for p in again.phases()]


def test_a_rebuild_records_the_rule_its_projections_were_keyed_by(store: Store) -> None:
    """A rebuild projects every row under the current rule and says so, so the next update
    re-keys nothing."""
    from tests.fakes.progress import FakeProgress

    store.commit({A: memory_bytes("The pool holds 50 connections.")})
    store.db.script(
        "UPDATE index_settings SET value = '' WHERE name = 'frame_key_rule'",
        operation="pretend an index from before frame keys",
    )
    store.indexer().rebuild(embed=True)
    progress = FakeProgress()
    store.indexer().update(embed=True, progress=progress)
    rule = store.all("SELECT value FROM index_settings WHERE name = 'frame_key_rule'")
    assert ([("frame-1",)], []) == (
        [tuple(r) for r in rule],
        [p for p in progress.phases() if p.phase == "rekeying"],
    )
