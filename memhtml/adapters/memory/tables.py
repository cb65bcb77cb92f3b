"""The in-memory backend's data: the index's tables as dictionaries, and the rules SQLite's
schema enforces on them (cascades, the shared-chunk trigger, the active-hash uniqueness).

Every record is frozen and replaced on change, so a transaction is a shallow copy of the
dictionaries taken before and put back on failure.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final

import attrs

from memhtml.domain.entities import EntityTerm
from memhtml.domain.fulltext import FullTextIndex, FullTextRow, fts_tokens
from memhtml.domain.history import LineCommit, Span
from memhtml.domain.lexical_context import ContextFacts
from memhtml.domain.model import Citation, EntityRef, Facet
from memhtml.domain.paths import chunk_owner_order
from memhtml.domain.projection import FileProjection, FileRow
from memhtml.domain.reinforce import AccessRow
from memhtml.domain.scope import ScopeFacts
from memhtml.domain.session_documents import SessionKey
from memhtml.domain.trace_extract import FileExtract
from memhtml.domain.trace_sessions import SessionRow, StoredPrompt
from memhtml.domain.trace_watermarks import Watermark
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.ports.errors import StorageFailure
from memhtml.ports.indexer import IndexState
from memhtml.ports.recorder import SessionLink

PARKED_PREFIX: Final = "parked:"


@attrs.frozen(kw_only=True)
class ChunkRecord:
    """A ``chunks`` row (its id is the dictionary key)."""

    path: str
    content_hash: str
    ordinal: int
    text: str
    char_count: int


@attrs.frozen(kw_only=True)
class VectorRecord:
    """An ``embeddings`` row (its chunk id is the dictionary key)."""

    model: str
    dim: int
    blob: bytes
    created_at: str


@attrs.frozen(kw_only=True)
class EdgeRecord:
    """An ``edges`` row; ``(src, rel, dst)`` is the dictionary key."""

    edge_class: str
    derived: bool
    strength: float
    provenance: str
    src_hash: str | None
    created_at: str


@attrs.frozen(kw_only=True)
class TraceFileRecord:
    """A scanned transcript file: its watermark (``trace_watermarks``) and its extract without
    prompts (``trace_files``); the path is the dictionary key."""

    watermark: Watermark
    scanned_at: str
    extract: FileExtract


EdgeKey = tuple[str, str, str]
LinkKey = tuple[str, str, str, str]


@attrs.define
class MemoryTables:
    """One store's index and state plane, in memory."""

    tokenizer: str = "unicode61"
    files: dict[str, FileRow] = attrs.Factory(dict)
    tags: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    entities: dict[str, tuple[EntityRef, ...]] = attrs.Factory(dict)
    facets: dict[str, tuple[Facet, ...]] = attrs.Factory(dict)
    citations: dict[str, tuple[Citation, ...]] = attrs.Factory(dict)
    entity_terms: dict[str, tuple[EntityTerm, ...]] = attrs.Factory(dict)
    chunks: dict[str, ChunkRecord] = attrs.Factory(dict)
    vectors: dict[str, VectorRecord] = attrs.Factory(dict)
    edges: dict[EdgeKey, EdgeRecord] = attrs.Factory(dict)
    index_state: IndexState | None = None
    dirty_paths: frozenset[str] = frozenset()
    duplicates: dict[str, str] = attrs.Factory(dict)
    stash: dict[str, VectorRecord] = attrs.Factory(dict)
    access: dict[str, AccessRow] = attrs.Factory(dict)
    session_links: dict[LinkKey, SessionLink] = attrs.Factory(dict)
    trace_files: dict[str, TraceFileRecord] = attrs.Factory(dict)
    trace_prompts: dict[tuple[str, str], StoredPrompt] = attrs.Factory(dict)
    traces: dict[str, SessionRow] = attrs.Factory(dict)
    context: dict[str, str] = attrs.Factory(dict)
    context_prev: dict[str, str] = attrs.Factory(dict)
    sessions: dict[SessionKey, str] = attrs.Factory(dict)
    frame_key_rule: str = ""
    history_built: bool = False
    history_commits: dict[int, LineCommit] = attrs.Factory(dict)
    spans: dict[tuple[str, int], Span] = attrs.Factory(dict)
    _fulltext: FullTextIndex | None = None
    _context_fulltext: FullTextIndex | None = None
    _session_fulltext: FullTextIndex | None = None

    @contextmanager
    def transaction(self, operation: str) -> Iterator[None]:
        """All of the block's changes, or none: a failure restores the tables and is reported
        as ``StorageFailure`` naming ``operation``."""
        saved = {
            field.name: copy.copy(getattr(self, field.name))
            for field in attrs.fields(MemoryTables)
            if field.name not in ("_fulltext", "_context_fulltext", "_session_fulltext")
        }
        try:
            yield
        except StorageFailure:
            self._restore(saved)
            raise
        except (KeyError, ValueError) as error:
            self._restore(saved)
            raise StorageFailure(operation) from error
        finally:
            self._fulltext = None
            self._context_fulltext = None
            self._session_fulltext = None

    def _restore(self, saved: dict[str, object]) -> None:
        for name, value in saved.items():
            setattr(self, name, value)

    def fulltext(self) -> FullTextIndex:
        """The full-text index over every row's ``fts_text``, rebuilt after a change."""
        if self._fulltext is None:
            self._fulltext = FullTextIndex(
                FullTextRow(key=path, tokens=tuple(fts_tokens(row.fts_text, self.tokenizer)))
                for path, row in self.files.items()
            )
        return self._fulltext

    def context_fulltext(self) -> FullTextIndex:
        """The full-text index over the contextual documents (``refresh_context`` fills them)."""
        if self._context_fulltext is None:
            self._context_fulltext = FullTextIndex(
                FullTextRow(key=path, tokens=tuple(fts_tokens(text, self.tokenizer)))
                for path, text in self.context.items()
            )
        return self._context_fulltext

    def session_fulltext(self) -> FullTextIndex:
        """The full-text index over the session documents, keyed by :func:`session_row_key`."""
        if self._session_fulltext is None:
            self._session_fulltext = FullTextIndex(
                FullTextRow(
                    key=session_row_key(key), tokens=tuple(fts_tokens(text, self.tokenizer))
                )
                for key, text in self.sessions.items()
            )
        return self._session_fulltext

    def context_facts(self) -> list[ContextFacts]:
        """What ``domain.lexical_context`` reads about every row."""
        targets: dict[str, list[str]] = {}
        for (source, _, target), edge in self.edges.items():
            if not edge.derived:
                targets.setdefault(source, []).append(target)
        return [
            ContextFacts(
                path=path,
                memory_type=row.memory_type,
                session_id=row.session_id,
                archived=row.archived,
                order_at=row.event_at if row.event_at is not None else row.created_at,
                title=row.title,
                fts_text=row.fts_text,
                tags=self.tags.get(path, ()),
                entity_names=tuple(entity.name for entity in self.entities.get(path, ())),
                link_targets=tuple(targets.get(path, ())),
            )
            for path, row in self.files.items()
        ]

    def scope_facts(self, path: str) -> ScopeFacts:
        """What the scope predicate reads about ``path``'s row."""
        row = self.files[path]
        return ScopeFacts(
            path=path,
            memory_type=row.memory_type,
            archived=row.archived,
            workspace=row.workspace,
            tags=frozenset(self.tags.get(path, ())),
            entities=frozenset((e.type, e.name) for e in self.entities.get(path, ())),
            facets=frozenset((f.name, f.value) for f in self.facets.get(path, ())),
            valid_from=row.valid_from,
            valid_until=row.valid_until,
            event_at=row.event_at,
            created_at=row.created_at,
            spans=tuple(
                (span.from_seq, span.until_seq)
                for (held, _), span in self.spans.items()
                if held == path and span.blob_sha == row.blob_sha
            ),
        )

    def delete_file(self, path: str) -> None:
        """Delete a row the way SQLite does: a chunk another file with the same content still
        needs moves to the best such file (``chunk_owner_order``, migration 0011's trigger);
        the children, the remaining chunks and their vectors cascade away."""
        row = self.files.get(path)
        if row is None:
            return
        heir = self._best_holder(row.content_hash, excluding=path)
        for chunk_id, chunk in list(self.chunks.items()):
            if chunk.path == path:
                if heir is not None:
                    self.chunks[chunk_id] = attrs.evolve(chunk, path=heir)
                else:
                    del self.chunks[chunk_id]
                    self.vectors.pop(chunk_id, None)
        del self.files[path]
        for children in self._children():
            children.pop(path, None)

    def project(self, projection: FileProjection) -> None:
        """Make the tables hold ``projection`` (docs/index-schema.md §3.1 "Projecting one file")."""
        row = projection.row
        path, content_hash = row.path, row.content_hash
        for chunk_id, chunk in list(self.chunks.items()):
            if chunk.path != path or chunk.content_hash == content_hash:
                continue
            heir = self._best_holder(chunk.content_hash, excluding=path)
            if heir is not None:
                self.chunks[chunk_id] = attrs.evolve(chunk, path=heir)
            else:
                del self.chunks[chunk_id]
                self.vectors.pop(chunk_id, None)
        for key in [k for k, e in self.edges.items() if k[0] == path and not e.derived]:
            del self.edges[key]
        self._check_unique_hash(row)
        self.files[path] = row
        self.tags[path] = projection.tags
        self.entities[path] = projection.entities
        self.facets[path] = projection.facets
        self.citations[path] = projection.citations
        self.entity_terms[path] = projection.entity_terms
        for piece in projection.chunks:
            # A shared row moves only to a better owner (migration 0011's upsert).
            held = self.chunks.get(piece.chunk_id)
            if held is not None and chunk_owner_order(held.path) < chunk_owner_order(path):
                owner = held.path
            else:
                owner = path
            self.chunks[piece.chunk_id] = ChunkRecord(
                path=owner,
                content_hash=content_hash,
                ordinal=piece.ordinal,
                text=piece.text,
                char_count=piece.char_count,
            )
        for edge in projection.edges:
            self.edges[(path, edge.rel, edge.target)] = EdgeRecord(
                edge_class=edge.edge_class,
                derived=False,
                strength=edge.strength,
                provenance=edge.provenance,
                src_hash=content_hash,
                created_at=row.indexed_at,
            )

    def rename(self, source: str, target: str, *, with_state: bool) -> None:
        """Move ``source``'s row to ``target`` (children, chunks, edges, and the access row
        when the target has none); nothing when ``source`` is not indexed."""
        if source not in self.files:
            return
        self.delete_file(target)
        for key in [k for k in self.edges if k[0] == target or k == (source, k[1], target)]:
            del self.edges[key]
        for key in [k for k in self.edges if k[0] == source]:
            self.edges[(target, key[1], key[2])] = self.edges.pop(key)
        self.files[target] = attrs.evolve(self.files.pop(source), path=target)
        for children in self._children():
            if source in children:
                children[target] = children.pop(source)
        for chunk_id, chunk in list(self.chunks.items()):
            if chunk.path == source:
                # The new path may rank below another holder of the body (REOWN_CHUNKS_SQL).
                heir = self._best_holder(chunk.content_hash)
                self.chunks[chunk_id] = attrs.evolve(chunk, path=heir or target)
        if with_state and source in self.access and target not in self.access:
            self.access[target] = attrs.evolve(self.access.pop(source), path=target)

    def _children(self) -> tuple[dict[str, Any], ...]:
        """The per-path child tables, which follow their row (SQLite's cascades)."""
        return (
            self.tags,
            self.entities,
            self.facets,
            self.citations,
            self.context,
            self.context_prev,
            self.entity_terms,
        )

    def park(self, path: str) -> None:
        """Free the row's content hash for the rest of a transaction."""
        if path in self.files:
            self.files[path] = attrs.evolve(self.files[path], content_hash=PARKED_PREFIX + path)

    def _best_holder(self, content_hash: str, *, excluding: str | None = None) -> str | None:
        holders = [
            p for p, r in self.files.items() if r.content_hash == content_hash and p != excluding
        ]
        return min(holders, key=chunk_owner_order) if holders else None

    def _check_unique_hash(self, row: FileRow) -> None:
        if row.archived or row.memory_type == TASK_TYPE:
            return
        for other, held in self.files.items():
            if (
                other != row.path
                and held.content_hash == row.content_hash
                and not held.archived
                and held.memory_type != TASK_TYPE
            ):
                raise StorageFailure("update index")


def session_row_key(key: SessionKey) -> str:
    """A session's key as a full-text row key (the index's rows are keyed by text)."""
    return f"{int(key.archived)}:{key.session_id}"
