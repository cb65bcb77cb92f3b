"""One parsed memory's projection (``domain.projection``) as the SQLite statements that persist
it (``adapters.sqlite.projection_sql``), in docs/index-schema.md §3.1 "Projecting one file"
order."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.adapters.sqlite.connection import SqlValue, Write
from memhtml.adapters.sqlite.projection_sql import (
    DELETE_AUTHORED_EDGES_SQL,
    DELETE_CHILD_SQL,
    DELETE_STALE_CHUNKS_SQL,
    INSERT_CITATION_SQL,
    INSERT_ENTITY_SQL,
    INSERT_FACET_SQL,
    INSERT_TAG_SQL,
    REPOINT_STALE_CHUNKS_SQL,
    UPSERT_AUTHORED_EDGE_SQL,
    UPSERT_CHUNK_SQL,
    UPSERT_FILE_SQL,
    projection_writes,
    write_batches,
)
from memhtml.adapters.sqlite.schema import FILE_COLUMNS
from memhtml.domain.chunking import Chunk, chunk_id_for
from memhtml.domain.model import Citation, EntityRef, Facet, Link, MemoryDoc
from memhtml.domain.paths import is_archived_path, origin_path
from memhtml.domain.projection import FileProjection
from memhtml.domain.projection import project_file as project_rows
from tests.integration.test_html_examples import SEMANTIC_EXAMPLE, TASK_EXAMPLE
from tests.strategies import (
    indexer_citations,
    indexer_entities,
    indexer_facets,
    indexer_group_sizes,
    indexer_links,
    indexer_paths,
    indexer_tags,
)

SEMANTIC_PATH = (
    "resources/rate-limits/search-api-rate-limit-is-300-requests-per-minute-per-key.html"
)
TASK_PATH = "projects/export-hardening/tasks/make-the-nightly-export-client-honour-retry-after.html"
NOW = "2026-09-14T07:02:11Z"
BLOB = "0" * 40


@attrs.frozen(kw_only=True)
class Projected:
    """A projection and the statements that persist it."""

    projection: FileProjection
    writes: tuple[Write, ...]

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        """The projection's chunks."""
        return self.projection.chunks


def project_file(*, path: str, blob_sha: str, doc: MemoryDoc, indexed_at: str) -> Projected:
    """The domain's projection and its SQL, side by side."""
    projection = project_rows(path=path, blob_sha=blob_sha, doc=doc, indexed_at=indexed_at)
    return Projected(projection=projection, writes=projection_writes(projection))


def rows(writes: tuple[Write, ...], sql: str) -> list[tuple[SqlValue, ...]]:
    """The parameters of every statement with this SQL, in order."""
    return [tuple(params) for statement, params in writes if statement == sql]


def file_row(writes: tuple[Write, ...]) -> dict[str, Any]:
    """The one files upsert, by column name."""
    (values,) = rows(writes, UPSERT_FILE_SQL)
    return dict(zip(FILE_COLUMNS, values, strict=True))


def doc_of(**fields: Any) -> MemoryDoc:
    """A MemoryDoc with the required fields filled in."""
    base: dict[str, Any] = {
        "title": "T",
        "memory_type": "semantic",
        "status": "active",
        "created_at": "2026-01-01",
        "updated_at": "2026-01-02",
        "content_hash": "sha256:" + "a" * 64,
        "body_text": "Body.",
    }
    base.update(fields)
    return MemoryDoc(**base)


def test_semantic_example_files_row() -> None:
    """Reference file 12.1 (tests/integration/test_html_examples.py) becomes a files row whose every
    column comes from the file or its path."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    projection = project_file(path=SEMANTIC_PATH, blob_sha=BLOB, doc=doc, indexed_at=NOW)
    expected = {
        "path": SEMANTIC_PATH,
        "blob_sha": BLOB,
        "content_hash": "sha256:4c044f8da29f16ccd8e9632e3aaa87ae4346ed02b726c4cc34cba0d495a6368a",
        "memory_type": "semantic",
        "title": "Search API rate limit is 300 requests per minute per key",
        "body_text": doc.body_text,
        "gist": doc.gist,
        "fts_text": doc.fts_text,
        "disclosure_text": doc.disclosure_text,
        "para": "resources",
        "workspace": None,
        "confidence": 0.85,
        "importance": 7,
        "archived": 0,
        "origin_path": None,
        "word_count": 133,
        "created_at": "2026-09-10T08:15:00Z",
        "updated_at": "2026-09-12T17:40:22Z",
        "event_at": "2026-09-09T14:30Z",
        "archived_at": None,
        "valid_from": "2026-09-01",
        "valid_until": None,
        "reprieves": 0,
        "needs_revision": 0,
        "author": "agent:claude",
        "session_id": None,
        "prompt_id": None,
        "turn_uuid": None,
        "indexed_at": NOW,
        "task_status": None,
        "due_at": None,
        # The gist's three values lifted out (docs/index-schema.md §3.1).
        "frame_key": "the search api allows {number} requests per minute for each api key "
        "request {number} inside the window gets http {number}",
        "pinned": 0,
    }
    assert expected == file_row(projection.writes)


def test_semantic_example_child_rows() -> None:
    """12.1's tags, entities, facets and citations become one row each, in document order."""
    writes = project_file(
        path=SEMANTIC_PATH, blob_sha=BLOB, doc=parse_memory(SEMANTIC_EXAMPLE), indexed_at=NOW
    ).writes
    p = SEMANTIC_PATH
    expected = (
        [(p, "rate-limits"), (p, "search")],
        [
            (p, "service", "search-api"),
            (p, "team", "platform"),
            (p, "concept", "token bucket"),
            (p, "lang", "python"),
        ],
        [
            (p, "Limit", "300 requests per minute", 300.0),
            (p, "Scope", "per API key", None),
            (p, "Scope", "not per client IP", None),
            (p, "Window", "sliding, one minute", 60.0),
        ],
        [
            (p, "gateway config review", None),
            (
                p,
                "limits follow the key, never the address",
                "https://wiki.example.com/gateway/limits",
            ),
        ],
    )
    actual = (
        rows(writes, INSERT_TAG_SQL),
        rows(writes, INSERT_ENTITY_SQL),
        rows(writes, INSERT_FACET_SQL),
        rows(writes, INSERT_CITATION_SQL),
    )
    assert expected == actual


def test_semantic_example_edges_and_chunk() -> None:
    """12.1's two head links become authored memory edges; its article is one chunk."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    projection = project_file(path=SEMANTIC_PATH, blob_sha=BLOB, doc=doc, indexed_at=NOW)
    h = doc.content_hash
    expected_edges = [
        (
            SEMANTIC_PATH,
            "supports",
            "resources/rate-limits/gateway-quota-policy.html",
            "memory",
            1.0,
            "authored",
            h,
            NOW,
        ),
        (
            SEMANTIC_PATH,
            "laterally_related",
            "areas/inbox/export-client-aborts-on-429.html",
            "memory",
            1.0,
            "authored",
            h,
            NOW,
        ),
    ]
    body = doc.body_text
    expected_chunks = [(chunk_id_for(h, 0), SEMANTIC_PATH, h, 0, body, len(body))]
    actual = (
        rows(projection.writes, UPSERT_AUTHORED_EDGE_SQL),
        rows(projection.writes, UPSERT_CHUNK_SQL),
    )
    assert (expected_edges, expected_chunks) == actual


def test_task_example_row_and_task_edge() -> None:
    """12.2 is in workspace export-hardening, blocked, due 2026-09-30, with one task edge."""
    doc = parse_memory(TASK_EXAMPLE)
    projection = project_file(path=TASK_PATH, blob_sha=BLOB, doc=doc, indexed_at=NOW)
    row = file_row(projection.writes)
    edges = rows(projection.writes, UPSERT_AUTHORED_EDGE_SQL)
    expected = (
        ("task", "projects", "export-hardening", "blocked", "2026-09-30", 6, 0),
        [
            (
                TASK_PATH,
                "subtask_of",
                "projects/export-hardening/tasks/harden-the-nightly-export-against-throttling.html",
                "task",
            )
        ],
        [(TASK_PATH, "service", "export-worker")],
    )
    actual = (
        tuple(
            row[c]
            for c in (
                "memory_type",
                "para",
                "workspace",
                "task_status",
                "due_at",
                "importance",
                "archived",
            )
        ),
        [edge[:4] for edge in edges],
        rows(projection.writes, INSERT_ENTITY_SQL),
    )
    assert expected == actual


def test_statements_run_in_schema_order() -> None:
    """Deletes (children, stale chunks after re-pointing shared ones, own authored edges)
    precede the upsert, then inserts."""
    projection = project_file(
        path=SEMANTIC_PATH, blob_sha=BLOB, doc=parse_memory(SEMANTIC_EXAMPLE), indexed_at=NOW
    )
    head = [sql for sql, _ in projection.writes[: len(DELETE_CHILD_SQL) + 4]]
    expected = [
        *DELETE_CHILD_SQL,
        REPOINT_STALE_CHUNKS_SQL,
        DELETE_STALE_CHUNKS_SQL,
        DELETE_AUTHORED_EDGES_SQL,
    ]
    assert [*expected, UPSERT_FILE_SQL] == head


def test_stale_chunk_delete_keeps_the_new_content() -> None:
    """Only chunks whose content hash differs from the new one are deleted."""
    doc = doc_of()
    projection = project_file(path="areas/a.html", blob_sha=BLOB, doc=doc, indexed_at=NOW)
    assert [("areas/a.html", doc.content_hash)] == rows(projection.writes, DELETE_STALE_CHUNKS_SQL)


def test_upsert_lists_every_column_and_updates_all_but_path() -> None:
    """One list drives the column list and the update clause; nothing is ever replaced."""
    assigned = UPSERT_FILE_SQL.split("DO UPDATE SET ", 1)[1]
    expected = ", ".join(f"{c} = excluded.{c}" for c in FILE_COLUMNS[1:])
    assert (expected, f"({', '.join(FILE_COLUMNS)})") == (
        assigned,
        UPSERT_FILE_SQL.split(" VALUES", 1)[0].removeprefix("INSERT INTO files "),
    )


def test_empty_body_projects_no_chunk() -> None:
    """An article without text has no chunk rows (and so nothing to embed)."""
    projection = project_file(
        path="areas/a.html", blob_sha=BLOB, doc=doc_of(body_text=""), indexed_at=NOW
    )
    assert ((), []) == (projection.chunks, rows(projection.writes, UPSERT_CHUNK_SQL))


@given(path=indexer_paths, status=st.sampled_from(["active", "archived"]))
@example(path="archive/2026/areas/inbox/a.html", status="active")
@example(path="areas/inbox/a.html", status="archived")
def test_archived_and_origin_come_from_the_path(path: str, status: str) -> None:
    """archived is 1 exactly under archive/, origin_path strips archive/YYYY/; status is ignored."""
    row = file_row(
        project_file(path=path, blob_sha=BLOB, doc=doc_of(status=status), indexed_at=NOW).writes
    )
    archived = is_archived_path(path)
    expected = (int(archived), origin_path(path) if archived else None, path.split("/")[0])
    assert expected == (row["archived"], row["origin_path"], row["para"])


@given(
    path=indexer_paths,
    tags=indexer_tags,
    entities=indexer_entities,
    facets=indexer_facets,
    citations=indexer_citations,
)
@example(
    path="areas/inbox/a.html",
    tags=["ops", "ops"],
    entities=[("service", "a"), ("service", "a")],
    facets=[("tier", "1", 1.0), ("tier", "1", None)],
    citations=[("review", None), ("review", "https://e.x/")],
)
def test_child_rows_have_unique_keys_and_keep_first_occurrences(
    path: str,
    tags: list[str],
    entities: list[tuple[str, str]],
    facets: list[tuple[str, str, float | None]],
    citations: list[tuple[str, str | None]],
) -> None:
    """Each child table gets every distinct key once, the first occurrence's values, in order."""
    doc = doc_of(
        tags=tuple(tags),
        entities=tuple(EntityRef(*e) for e in entities),
        facets=tuple(Facet(*f) for f in facets),
        citations=tuple(Citation(*c) for c in citations),
    )
    writes = project_file(path=path, blob_sha=BLOB, doc=doc, indexed_at=NOW).writes

    def first(items: list[Any], key: Any) -> list[Any]:
        seen: dict[Any, Any] = {}
        for item in items:
            seen.setdefault(key(item), item)
        return list(seen.values())

    expected = (
        [(path, t) for t in first(tags, lambda t: t)],
        [(path, *e) for e in first(entities, lambda e: e)],
        [(path, *f) for f in first(facets, lambda f: f[:2])],
        [(path, *c) for c in first(citations, lambda c: c[0])],
    )
    actual = (
        rows(writes, INSERT_TAG_SQL),
        rows(writes, INSERT_ENTITY_SQL),
        rows(writes, INSERT_FACET_SQL),
        rows(writes, INSERT_CITATION_SQL),
    )
    assert expected == actual


@given(path=indexer_paths, links=indexer_links)
@example(path="areas/inbox/a.html", links=[("supports", "areas/inbox/a.html")])
@example(path="areas/inbox/a.html", links=[("blocks", "areas/inbox/b.html")] * 2)
def test_edges_are_the_distinct_links_without_self_links(
    path: str, links: list[tuple[str, str]]
) -> None:
    """Authored edges: each distinct (rel, target) once, a link to the file itself dropped."""
    doc = doc_of(links=tuple(Link(*link) for link in links))
    writes = project_file(path=path, blob_sha=BLOB, doc=doc, indexed_at=NOW).writes
    classes = {"supports": "memory", "relates_to": "memory", "blocks": "task"}
    expected = [
        (path, rel, target, classes[rel], 1.0, "authored", doc.content_hash, NOW)
        for rel, target in dict.fromkeys(links)
        if target != path
    ]
    assert expected == rows(writes, UPSERT_AUTHORED_EDGE_SQL)


@given(path=indexer_paths, links=indexer_links, tags=indexer_tags)
def test_no_statement_replaces_or_deletes_after_the_upsert(
    path: str, links: list[tuple[str, str]], tags: list[str]
) -> None:
    """No INSERT OR REPLACE anywhere, and every DELETE comes before the files upsert."""
    doc = doc_of(links=tuple(Link(*link) for link in links), tags=tuple(tags))
    writes = project_file(path=path, blob_sha=BLOB, doc=doc, indexed_at=NOW).writes
    sqls = [sql for sql, _ in writes]
    upsert_at = sqls.index(UPSERT_FILE_SQL)
    late_deletes = [sql for sql in sqls[upsert_at:] if sql.startswith("DELETE")]
    replaces = [sql for sql in sqls if "REPLACE" in sql.upper()]
    assert ([], []) == (late_deletes, replaces)


@given(sizes=indexer_group_sizes, limit=st.integers(min_value=1, max_value=12))
@example(sizes=[3, 3], limit=5)
@example(sizes=[7], limit=5)
@example(sizes=[0, 0], limit=1)
def test_write_batches_keep_groups_whole_and_under_the_limit(sizes: list[int], limit: int) -> None:
    """Batches concatenate to the input, never split a group, and exceed the limit only alone."""
    counter = iter(range(10_000))
    groups = [[(f"S{next(counter)}", ()) for _ in range(size)] for size in sizes]
    batches = list(write_batches(groups, limit))
    flat = [write for group in groups for write in group]
    group_of = {write[0]: index for index, group in enumerate(groups) for write in group}
    oversized_mixed = [
        b for b in batches if len(b) > limit and len({group_of[w[0]] for w in b}) != 1
    ]
    split_groups = [
        index
        for index in range(len(groups))
        if len({i for i, b in enumerate(batches) for w in b if group_of[w[0]] == index}) > 1
    ]
    empty = [b for b in batches if not b]
    assert (flat, [], [], []) == (
        [w for b in batches for w in b],
        oversized_mixed,
        split_groups,
        empty,
    )


@pytest.mark.parametrize("memory_type", ["semantic", "task"])
def test_task_status_is_null_on_non_tasks(memory_type: str) -> None:
    """task_status is written for tasks only, whatever a hand-built document carries."""
    row = file_row(
        project_file(
            path="areas/a.html",
            blob_sha=BLOB,
            doc=doc_of(memory_type=memory_type, task_status="doing"),
            indexed_at=NOW,
        ).writes
    )
    assert ("doing" if memory_type == "task" else None) == row["task_status"]
