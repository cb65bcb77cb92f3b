"""The indexer's rebuild against real SQLite, over the dulwich adapter and the in-memory fake.

Also home of the indexer test harness the other ``test_indexer_*`` suites import: a repository
behind both git ports, an in-memory index with the state plane attached, memory files rendered
by the real writer, and an embedder that fails on chosen calls.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest

from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.html import parse_memory, render_memory
from memhtml.adapters.sqlite.connection import Database, Row
from memhtml.adapters.sqlite.index_store import removal_writes, rename_writes
from memhtml.adapters.sqlite.projection_sql import DELETE_AUTHORED_EDGES_SQL, projection_writes
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.indexing import StoreIndexer
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import Link, RenderInputs
from memhtml.domain.projection import project_file
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite
from memhtml.ports.indexer import EMPTY_TREE_SHA, SKIP_DUPLICATE_CONTENT, SkippedFile
from tests.contract.test_git_port import IMPLEMENTATIONS, GitHarness, make_harness
from tests.support import migrated_in_memory, sqlite_indexer

DIM = 8
EMBEDDER = HashingEmbedder(DIM)
WATERMARK = EMBEDDER.watermark
START = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)


def fixture_indexer(db: Database, git: GitPort, clock: Clock, **overrides: Any) -> StoreIndexer:
    """The indexer these suites share: the fixture parser, the hashing model and its space over
    ``git`` into ``db``; keyword arguments replace any of those."""
    settings: dict[str, Any] = {
        "db": db,
        "git": git,
        "parser": parse_memory,
        "clock": clock,
        "embed_watermark": WATERMARK,
        "embed_dim": DIM,
        "embedder": EMBEDDER,
    }
    settings.update(overrides)
    return sqlite_indexer(**settings)


A, B, C = "areas/inbox/a.html", "projects/ws/b.html", "resources/topic/c.html"


def memory_bytes(
    claim: str,
    *,
    title: str = "A memory",
    memory_type: str = "semantic",
    body: Sequence[str] = (),
    links: Sequence[tuple[str, str]] = (),
    tags: Sequence[str] = (),
    importance: int | None = None,
) -> bytes:
    """A canonical memory file; the article (and so the content hash) is claim plus body."""
    inputs = RenderInputs(
        title=title,
        memory_type=memory_type,
        created_at="2026-09-01T00:00:00Z",
        updated_at="2026-09-02T00:00:00Z",
        claim=claim,
        body=tuple(body),
        links=tuple(Link(rel, target) for rel, target in links),
        tags=tuple(tags),
        importance=importance,
        task_status="todo" if memory_type == "task" else None,
    )
    return render_memory(inputs).encode("utf-8")


class FlakyEmbedder:
    """The hashing embedder, failing with ``ModelUnavailable`` on the chosen (1-based) calls."""

    def __init__(self, fail_on: Sequence[int] = (), inner: HashingEmbedder = EMBEDDER) -> None:
        self.fail_on = set(fail_on)
        self.inner = inner
        self.calls: list[int] = []

    @property
    def watermark(self) -> str:
        """The inner embedder's space."""
        return self.inner.watermark

    @property
    def dim(self) -> int:
        """The inner embedder's dimension."""
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """Embed, or fail when this call's number was chosen."""
        self.calls.append(len(texts))
        if len(self.calls) in self.fail_on:
            raise ModelUnavailable("chosen to fail")
        return self.inner.embed(texts)


@attrs.define
class Store:
    """A repository and an index over it."""

    repo: GitHarness
    db: Database
    clock: FixedClock = attrs.field(factory=lambda: FixedClock(START))

    def indexer(self, **overrides: Any) -> StoreIndexer:
        """An indexer over this store; keyword arguments override the defaults."""
        return fixture_indexer(self.db, self.repo.git, self.clock, **overrides)

    def commit(
        self,
        files: dict[str, bytes] | None = None,
        *,
        deletes: Sequence[str] = (),
        moves: Sequence[tuple[str, str]] = (),
    ) -> str:
        """Land one commit on top of HEAD."""
        changes = ChangeSet(
            writes=tuple(FileWrite(path=p, data=d) for p, d in (files or {}).items()),
            deletes=tuple(deletes),
            moves=tuple(FileMove(source=s, target=t) for s, t in moves),
        )
        return self.repo.writer.commit(changes, "change", expected_head=self.repo.git.head())

    def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """Rows of one query."""
        return self.db.all(sql, params)

    def paths(self) -> list[str]:
        """Indexed paths, sorted."""
        return [str(row[0]) for row in self.all("SELECT path FROM files ORDER BY path")]


def open_store(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """A store of the given git implementation, with an in-memory index and state plane."""
    repo = make_harness(kind, tmp_path, monkeypatch)
    with migrated_in_memory(state=True) as db:
        yield Store(repo=repo, db=db)


@pytest.fixture(params=IMPLEMENTATIONS)
def store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Store]:
    """An empty repository of each implementation and a fresh index."""
    yield from open_store(request.param, tmp_path, monkeypatch)


def test_rebuild_indexes_memory_files_and_ignores_the_rest(store: Store) -> None:
    """Only .html files under a PARA bucket, not generated names, reach the index."""
    store.commit(
        {
            A: memory_bytes("Alpha holds."),
            B: memory_bytes("Beta holds."),
            "areas/inbox/index.html": memory_bytes("Generated listing."),
            "notes/x.html": memory_bytes("Outside the buckets."),
            "README.md": b"readme\n",
        }
    )
    report = store.indexer().rebuild(embed=False)
    assert ([B, A], 2, ()) == (store.paths()[::-1], report.files_indexed, report.skipped)


def test_rebuild_records_the_commit_and_the_space(store: Store) -> None:
    """The watermark names HEAD and the configured vector space after a rebuild."""
    head = store.commit({A: memory_bytes("Alpha holds.")})
    indexer = store.indexer()
    report = indexer.rebuild(embed=False)
    state = indexer.index_state()
    assert state is not None
    assert (head, head, WATERMARK, DIM, frozenset()) == (
        report.head_sha,
        state.head_sha,
        state.embed_model,
        state.embed_dim,
        state.dirty_paths,
    )


def test_unborn_head_is_an_empty_current_index(store: Store) -> None:
    """A repository without commits rebuilds to nothing, and the next update has nothing to do."""
    indexer = store.indexer()
    report = indexer.rebuild(embed=True)
    state = indexer.index_state()
    assert state is not None
    update = indexer.update(embed=True)
    assert (None, 0, EMPTY_TREE_SHA, True) == (
        report.head_sha,
        report.files_indexed,
        state.head_sha,
        update.unchanged,
    )


def test_unparseable_file_is_skipped_with_its_violation_codes(store: Store) -> None:
    """A file that fails to parse is reported by its codes and each code's first detail; the
    rest of the tree is indexed."""
    broken = b"<!doctype html><html><head><title>x</title></head><body></body></html>"
    store.commit({A: memory_bytes("Alpha holds."), B: broken})
    with pytest.raises(InvalidMemory) as refused:
        parse_memory(broken)
    first: dict[str, str] = {}
    for violation in refused.value.violations:
        first.setdefault(violation.code, violation.detail)
    expected = SkippedFile(path=B, reasons=tuple(first), details=tuple(first.values()))
    report = store.indexer().rebuild(embed=False)
    assert ((expected,), [A]) == (report.skipped, store.paths())


def test_second_active_copy_is_skipped_but_tasks_and_archive_keep_theirs(store: Store) -> None:
    """Equal content in two active non-task files keeps the first by path; tasks/archive exempt."""
    same = memory_bytes("The same claim.")
    task = memory_bytes("Do the thing.", memory_type="task")
    store.commit(
        {
            "areas/inbox/a1.html": same,
            "areas/inbox/a2.html": same,
            "archive/2026/areas/inbox/a1.html": same,
            "projects/ws/tasks/t1.html": task,
            "projects/ws/tasks/t2.html": task,
        }
    )
    report = store.indexer().rebuild(embed=False)
    expected_paths = [
        "archive/2026/areas/inbox/a1.html",
        "areas/inbox/a1.html",
        "projects/ws/tasks/t1.html",
        "projects/ws/tasks/t2.html",
    ]
    skipped = (SkippedFile(path="areas/inbox/a2.html", reasons=(SKIP_DUPLICATE_CONTENT,)),)
    assert (skipped, expected_paths) == (report.skipped, store.paths())


def test_rebuild_report_counts_rows(store: Store) -> None:
    """files, chunks and authored edges are counted from the rebuilt index."""
    store.commit(
        {
            A: memory_bytes("Alpha holds.", links=[("supports", B), ("relates_to", A)]),
            B: memory_bytes("Beta holds.", links=[("relates_to", "areas/gone.html")]),
            C: memory_bytes("Gamma holds."),
        }
    )
    report = store.indexer().rebuild(embed=False)
    edges = store.all("SELECT src_path, rel, dst_path FROM edges ORDER BY src_path")
    expected_edges = [(A, "supports", B), (B, "relates_to", "areas/gone.html")]
    assert ((3, 3, 2), expected_edges) == (
        (report.files_indexed, report.chunks_indexed, report.edges_indexed),
        edges,
    )


def test_rebuild_carries_vectors_of_chunks_that_come_back(store: Store) -> None:
    """A second rebuild re-embeds nothing: each chunk id returns and takes its vector back."""
    store.commit({A: memory_bytes("Alpha holds."), B: memory_bytes("Beta holds.")})
    indexer = store.indexer()
    first = indexer.rebuild(embed=True)
    vectors = store.all("SELECT chunk_id, model, vec, created_at FROM embeddings ORDER BY 1")
    store.clock.advance(3600)
    second = indexer.rebuild(embed=True)
    again = store.all("SELECT chunk_id, model, vec, created_at FROM embeddings ORDER BY 1")
    assert ((0, 2), (2, 0), vectors) == (
        (first.embeddings_preserved, first.embeddings_written),
        (second.embeddings_preserved, second.embeddings_written),
        again,
    )


def test_rebuild_embeds_only_changed_content(store: Store) -> None:
    """After an edit, the unchanged file keeps its vector and only the new content is embedded."""
    store.commit({A: memory_bytes("Alpha holds."), B: memory_bytes("Beta holds.")})
    indexer = store.indexer()
    indexer.rebuild(embed=True)
    store.commit({B: memory_bytes("Beta changed.")})
    report = indexer.rebuild(embed=True)
    coverage = indexer.vector_coverage()
    assert (1, 1, 1.0) == (
        report.embeddings_preserved,
        report.embeddings_written,
        coverage.coverage,
    )


def test_rebuild_leaves_trace_and_state_rows_alone(store: Store) -> None:
    """A rebuild empties the memory tables only: traces, links and state.access survive."""
    store.commit({A: memory_bytes("Alpha holds.")})
    indexer = store.indexer()
    indexer.rebuild(embed=False)
    store.db.write_all(
        [
            (
                "INSERT INTO traces (session_id, slug, file_path, file_size, file_mtime, "
                "indexed_at) VALUES ('s1', 'slug', 'f.jsonl', 1, 'm', 'n')",
                (),
            ),
            ("INSERT INTO state.access (path, updated_at) VALUES (?, 'n')", (A,)),
            (
                "INSERT INTO memory_session_links (path, session_id, link_kind, at) "
                "VALUES (?, 's1', 'wrote', 'n')",
                (A,),
            ),
        ]
    )
    indexer.rebuild(embed=False)
    counts = store.all(
        "SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM state.access), "
        "(SELECT count(*) FROM memory_session_links), (SELECT count(*) FROM files)"
    )
    assert [(1, 1, 1, 1)] == counts


def test_fts_finds_rebuilt_files(store: Store) -> None:
    """The external-content FTS table answers MATCH for words of the title, claim and body."""
    store.commit(
        {
            A: memory_bytes("Tokens refill slowly.", title="Bucket"),
            B: memory_bytes("Beta holds.", body=("Quokka sighting.",)),
        }
    )
    store.indexer().rebuild(embed=False)
    hits = [
        store.all(
            "SELECT f.path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid "
            "WHERE files_fts MATCH ?",
            (term,),
        )
        for term in ("bucket", "refill", "quokka")
    ]
    assert [[(A,)], [(A,)], [(B,)]] == hits


def test_per_file_statements_search_by_key_never_scan(store: Store) -> None:
    """Every per-file statement finds its rows through an index on the path or key.

    A scan here is invisible in small tests and makes a 10,000-file rebuild quadratic, as
    `derived = 0` once did by steering the authored-edge delete onto edges_derived.
    """
    store.commit({A: memory_bytes("Alpha holds.", links=[("supports", B)], tags=["t"])})
    store.indexer().rebuild(embed=False)
    doc = parse_memory(memory_bytes("Alpha holds.", links=[("supports", B)], tags=["t"]))
    statements = [
        *projection_writes(project_file(path=A, blob_sha="0" * 40, doc=doc, indexed_at="n")),
        *removal_writes(A),
        *rename_writes(A, B, with_state=True),
    ]
    plans = {
        sql: " | ".join(str(row[3]) for row in store.all(f"EXPLAIN QUERY PLAN {sql}", params))
        for sql, params in statements
    }
    scans = {sql: plan for sql, plan in plans.items() if "SCAN" in plan}
    assert ({}, "edges_src") == (scans, plans[DELETE_AUTHORED_EDGES_SQL].split("INDEX ")[1][:9])
