"""Projecting one parsed memory file onto the index's rows (docs/index-schema.md §3.1 "Projecting
one file").

Pure: ``project_file`` decides every row a file contributes, and a storage backend only
persists it. Rebuild and update share it, so a file lands the same way whichever pass sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Final, TypeVar

import attrs

from memhtml.domain.chunking import Chunk, chunk_text
from memhtml.domain.entities import EntityTerm, entity_terms
from memhtml.domain.frame_key import frame_key
from memhtml.domain.model import Citation, EntityRef, Facet, MemoryDoc
from memhtml.domain.paths import is_archived_path, origin_path, para_of, workspace_of
from memhtml.domain.vocabulary import TASK_TYPE, edge_class_of

T = TypeVar("T")

AUTHORED_PROVENANCE: Final = "authored"
AUTHORED_STRENGTH: Final = 1.0


@attrs.frozen(kw_only=True)
class FileRow:
    """The ``files`` row of one memory, every column but the rowid.

    ``archived``, ``origin_path``, ``para`` and ``workspace`` come from the path, never from the
    status meta: eviction is the move into ``archive/``. ``frame_key`` is the gist's frame key
    (``domain/frame_key``), ``None`` when the gist holds no value.
    """

    path: str
    blob_sha: str
    content_hash: str
    memory_type: str
    title: str
    body_text: str
    gist: str
    fts_text: str
    disclosure_text: str
    para: str
    workspace: str | None
    confidence: float
    importance: int
    archived: bool
    origin_path: str | None
    word_count: int
    created_at: str
    updated_at: str
    event_at: str | None
    archived_at: str | None
    valid_from: str | None
    valid_until: str | None
    reprieves: int
    needs_revision: bool
    author: str
    session_id: str | None
    prompt_id: str | None
    turn_uuid: str | None
    indexed_at: str
    task_status: str | None
    due_at: str | None
    frame_key: str | None = None
    pinned: bool = False


@attrs.frozen(kw_only=True)
class AuthoredEdge:
    """One link the file's head states, as an ``edges`` row from this file."""

    rel: str
    target: str
    edge_class: str
    strength: float = AUTHORED_STRENGTH
    provenance: str = AUTHORED_PROVENANCE


@attrs.frozen(kw_only=True)
class FileProjection:
    """Everything one file contributes to the index.

    Children are deduplicated with the first occurrence kept (each child table's key), edges
    to the file itself are dropped, and an edge outside the closed vocabulary is no edge.

    Attributes:
        row: The ``files`` row.
        tags, entities, facets, citations: The child rows, in document order.
        chunks: The body's chunks; their ids key the vectors.
        edges: The authored edges, created at ``row.indexed_at`` with ``src_hash`` the
            file's content hash.
        entity_terms: The file's rows of the entity vocabulary (``domain/entities.py``).
    """

    row: FileRow
    tags: tuple[str, ...]
    entities: tuple[EntityRef, ...]
    facets: tuple[Facet, ...]
    citations: tuple[Citation, ...]
    chunks: tuple[Chunk, ...]
    edges: tuple[AuthoredEdge, ...]
    entity_terms: tuple[EntityTerm, ...] = ()

    @property
    def path(self) -> str:
        """The file's repository path."""
        return self.row.path

    @property
    def content_hash(self) -> str:
        """The recomputed ``sha256:…`` hash of the article."""
        return self.row.content_hash


def project_file(*, path: str, blob_sha: str, doc: MemoryDoc, indexed_at: str) -> FileProjection:
    """The rows that make the index hold ``doc`` at ``path``.

    Args:
        path: Repo-relative path.
        blob_sha: The git blob the bytes came from.
        doc: The parsed file.
        indexed_at: The projection instant, also the authored edges' ``created_at``.
    """
    edges = []
    for rel, target in dict.fromkeys(doc.links_from(path)):
        edge_class = edge_class_of(rel)
        if edge_class is not None:  # the parser admits only the vocabulary
            edges.append(AuthoredEdge(rel=rel, target=target, edge_class=edge_class))
    return FileProjection(
        row=_file_row(path=path, blob_sha=blob_sha, doc=doc, indexed_at=indexed_at),
        tags=tuple(dict.fromkeys(doc.tags)),
        entities=tuple(dict.fromkeys(doc.entities)),
        facets=tuple(_first_by_key(doc.facets, lambda facet: (facet.name, facet.value))),
        citations=tuple(_first_by_key(doc.citations, lambda citation: citation.text)),
        chunks=chunk_text(doc.content_hash, doc.body_text),
        edges=tuple(edges),
        entity_terms=entity_terms(doc.entities, doc.tags, doc.aliases),
    )


def _first_by_key(items: Iterable[T], key: Callable[[T], Hashable]) -> list[T]:
    """Items in order, each key's first occurrence only (a child table's primary key)."""
    seen: dict[Hashable, T] = {}
    for item in items:
        seen.setdefault(key(item), item)
    return list(seen.values())


def _file_row(*, path: str, blob_sha: str, doc: MemoryDoc, indexed_at: str) -> FileRow:
    archived = is_archived_path(path)
    return FileRow(
        path=path,
        blob_sha=blob_sha,
        content_hash=doc.content_hash,
        memory_type=doc.memory_type,
        title=doc.title,
        body_text=doc.body_text,
        gist=doc.gist,
        fts_text=doc.fts_text,
        disclosure_text=doc.disclosure_text,
        para=para_of(path),
        workspace=workspace_of(path),
        confidence=doc.confidence,
        importance=doc.importance,
        archived=archived,
        origin_path=origin_path(path) if archived else None,
        word_count=doc.word_count,
        created_at=doc.created_at,
        updated_at=doc.updated_at,
        event_at=doc.event_at,
        archived_at=doc.archived_at,
        valid_from=doc.valid_from,
        valid_until=doc.valid_until,
        reprieves=doc.reprieves,
        needs_revision=doc.needs_revision,
        author=doc.author,
        session_id=doc.session_id,
        prompt_id=doc.prompt_id,
        turn_uuid=doc.turn_uuid,
        indexed_at=indexed_at,
        # The parser already refuses a task status on a non-task; this keeps the column's
        # "NULL on non-tasks" rule true for a hand-built MemoryDoc as well.
        task_status=doc.task_status if doc.memory_type == TASK_TYPE else None,
        due_at=doc.due_at,
        frame_key=frame_key(doc.gist),
        pinned=doc.pinned,
    )
