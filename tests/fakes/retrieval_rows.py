"""Test-only rows for the retrieval suites: memories written straight into a migrated index.

Retrieval is tested without the indexer: a :class:`MemoryRow` fills every NOT NULL column of
``files`` (docs/index-schema.md §3.1) plus its tags, entities, facets, chunks and vectors, so a
corpus is a tuple of values and one :func:`load_rows` call. :func:`scope_facts` gives the same row
to the pure scope predicate, which is how the twin tests compare SQL with the domain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

import attrs

from memhtml.adapters.sqlite.connection import Database, Write
from memhtml.adapters.sqlite.context_sql import refresh_context_writes
from memhtml.adapters.sqlite.schema import WRITE_BATCH_SIZE
from memhtml.adapters.sqlite.session_sql import REFRESH_SESSION_WRITES
from memhtml.adapters.sqlite.vectors import pack_f32
from memhtml.domain.entities import entity_terms
from memhtml.domain.model import EntityRef
from memhtml.domain.reinforce import AccessRow
from memhtml.domain.scope import ScopeFacts
from tests.support import migrated_in_memory

TEST_SPACE: Final = "test-space@6"
"""The vector space the fixture's embeddings are written in unless a test names another."""

DEFAULT_STAMP: Final = "2026-01-01T00:00:00Z"


@attrs.frozen(kw_only=True)
class ChunkRow:
    """One chunk of a memory's body, with its vector in the fixture's space or none."""

    text: str
    vector: tuple[float, ...] | None = None


@attrs.frozen(kw_only=True)
class MemoryRow:
    """One memory as the index holds it; ``para`` and ``archived`` follow from the path."""

    path: str
    memory_type: str = "semantic"
    title: str = ""
    gist: str = ""
    body_text: str = ""
    fts_text: str | None = None
    disclosure_text: str = ""
    workspace: str | None = None
    confidence: float = 1.0
    created_at: str = DEFAULT_STAMP
    updated_at: str = DEFAULT_STAMP
    event_at: str | None = None
    session_id: str | None = None
    valid_from: str | None = None
    valid_until: str | None = None
    origin_path: str | None = None
    tags: frozenset[str] = frozenset()
    entities: frozenset[tuple[str, str]] = frozenset()
    facets: frozenset[tuple[str, str]] = frozenset()
    chunks: tuple[ChunkRow, ...] = ()

    @property
    def para(self) -> str:
        """The PARA bucket: the first path segment."""
        return self.path.split("/", 1)[0]

    @property
    def archived(self) -> bool:
        """True under ``archive/``, as the projection derives it from the path."""
        return self.para == "archive"


@attrs.frozen(kw_only=True)
class EdgeRow:
    """One ``edges`` row; the class follows from the relation."""

    src_path: str
    rel: str
    dst_path: str
    derived: bool = False


_FILE_SQL: Final = (
    "INSERT INTO files (path, blob_sha, content_hash, memory_type, title, body_text, gist, "
    "fts_text, disclosure_text, para, workspace, confidence, archived, origin_path, created_at, "
    "updated_at, event_at, valid_from, valid_until, indexed_at, task_status, session_id) "
    "VALUES (?1, 'blob', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
    "?18, ?19, ?20, ?21)"
)
_EDGE_CLASSES: Final = {
    "about_person": "person",
    "authored_by": "person",
    "from_session": "provenance",
}


def open_index(*, state: bool = True, tokenizer: str = "unicode61") -> Database:
    """A fresh in-memory index, with an in-memory state plane unless ``state`` is False (a
    copy of a migrated one: property tests open one per example)."""
    return migrated_in_memory(state=state, tokenizer=tokenizer)


def _file_writes(row: MemoryRow, model: str) -> list[Write]:
    content_hash = f"sha256:{row.path}"
    fts_text = (
        row.fts_text if row.fts_text is not None else f"{row.title}\n{row.gist}\n{row.body_text}"
    )
    writes: list[Write] = [
        (
            _FILE_SQL,
            (
                row.path,
                content_hash,
                row.memory_type,
                row.title or row.path,
                row.body_text,
                row.gist,
                fts_text,
                row.disclosure_text,
                row.para,
                row.workspace,
                row.confidence,
                int(row.archived),
                row.origin_path,
                row.created_at,
                row.updated_at,
                row.event_at,
                row.valid_from,
                row.valid_until,
                DEFAULT_STAMP,
                "todo" if row.memory_type == "task" else None,
                row.session_id,
            ),
        )
    ]
    writes += [("INSERT INTO file_tags (path, tag) VALUES (?, ?)", (row.path, t)) for t in row.tags]
    writes += [
        (
            "INSERT INTO file_entities (path, entity_type, entity_name) VALUES (?, ?, ?)",
            (row.path, k, n),
        )
        for k, n in row.entities
    ]
    writes += [
        ("INSERT INTO file_facets (path, name, value) VALUES (?, ?, ?)", (row.path, n, v))
        for n, v in row.facets
    ]
    # The vocabulary the projection derives from the same entities and tags.
    terms = entity_terms((EntityRef(k, n) for k, n in sorted(row.entities)), sorted(row.tags), ())
    writes += [
        (
            "INSERT INTO entity_terms (path, surface, entity_key) VALUES (?, ?, ?)",
            (row.path, term.surface, term.key),
        )
        for term in terms
    ]
    for ordinal, chunk in enumerate(row.chunks):
        chunk_id = f"{row.path}#{ordinal}"
        writes.append(
            (
                "INSERT INTO chunks (chunk_id, path, content_hash, ordinal, text, char_count) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (chunk_id, row.path, content_hash, ordinal, chunk.text, len(chunk.text)),
            )
        )
        if chunk.vector is not None:
            writes.append(
                (
                    "INSERT INTO embeddings (chunk_id, model, dim, vec, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (chunk_id, model, len(chunk.vector), pack_f32(chunk.vector), DEFAULT_STAMP),
                )
            )
    return writes


def access_write(row: AccessRow) -> Write:
    """The insert of one ``state.access`` row exactly as given."""
    return (
        "INSERT INTO state.access (path, access_count, reinforcement_count, outcome_score, "
        "last_accessed_at, last_reinforced_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            row.path,
            row.access_count,
            row.reinforcement_count,
            row.outcome_score,
            row.last_accessed_at,
            row.last_reinforced_at,
            row.updated_at,
        ),
    )


def _edge_write(edge: EdgeRow) -> Write:
    return (
        "INSERT INTO edges (src_path, rel, dst_path, edge_class, derived, provenance, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            edge.src_path,
            edge.rel,
            edge.dst_path,
            _EDGE_CLASSES.get(
                edge.rel, "task" if edge.rel in ("blocks", "subtask_of") else "memory"
            ),
            int(edge.derived),
            "sleep" if edge.derived else "authored",
            DEFAULT_STAMP,
        ),
    )


def load_rows(
    db: Database,
    rows: Iterable[MemoryRow],
    *,
    access: Iterable[AccessRow] = (),
    edges: Iterable[EdgeRow] = (),
    model: str = TEST_SPACE,
) -> None:
    """Write memories, access rows and edges, in transactions of at most 500 statements, then
    refresh the contextual documents."""
    writes: list[Write] = [w for row in rows for w in _file_writes(row, model)]
    writes += [access_write(a) for a in access]
    writes += [_edge_write(e) for e in edges]
    for start in range(0, len(writes), WRITE_BATCH_SIZE):
        db.write_all(writes[start : start + WRITE_BATCH_SIZE], operation="load test rows")
    # As an indexing pass ends: the contextual documents made current.
    refresh = [*refresh_context_writes(), *REFRESH_SESSION_WRITES]
    db.write_all([(sql, ()) for sql in refresh], operation="refresh context")


def scope_facts(row: MemoryRow) -> ScopeFacts:
    """The facts :func:`memhtml.domain.scope.scope_admits` reads, from the same row."""
    return ScopeFacts(
        path=row.path,
        memory_type=row.memory_type,
        archived=row.archived,
        workspace=row.workspace,
        tags=row.tags,
        entities=row.entities,
        facets=row.facets,
        valid_from=row.valid_from,
        valid_until=row.valid_until,
        event_at=row.event_at,
        created_at=row.created_at,
    )


def paths_of(rows: Sequence[MemoryRow]) -> tuple[str, ...]:
    """The rows' paths in order."""
    return tuple(row.path for row in rows)


def embedded(row: MemoryRow, embed: Callable[[str], tuple[float, ...]]) -> MemoryRow:
    """``row`` with every chunk's vector computed from its text (an embedder's ``embed_query``)."""
    return attrs.evolve(
        row, chunks=tuple(attrs.evolve(c, vector=embed(c.text)) for c in row.chunks)
    )
