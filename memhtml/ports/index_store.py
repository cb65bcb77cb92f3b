"""The index store port: persisting projections and the watermark, nothing more.

The indexing passes (``memhtml.app.indexing``) decide what changes; a backend only stores it.
Each method is one unit of durability: when it returns, its effect is committed; when it
raises ``StorageFailure``, a backend either kept all of it or none of it for each file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import attrs

from memhtml.domain.projection import FileProjection
from memhtml.ports.indexer import IndexState


@attrs.frozen(kw_only=True)
class RowCounts:
    """Rows of the three tables a rebuild reports."""

    files: int
    chunks: int
    edges: int


class IndexStore(Protocol):
    """The memory rows and the watermark of one index."""

    @property
    def has_state(self) -> bool:
        """Whether a state plane is attached (access rows then follow renames)."""
        ...

    def index_state(self) -> IndexState | None:
        """The watermark, or ``None`` before the first rebuild.

        Raises:
            StorageFailure: The row cannot be read, or holds what this schema cannot produce.
        """
        ...

    def begin_rebuild(self, *, embed_model: str, embed_dim: int, now: str) -> None:
        """In one step: the watermark cleared (``head_sha`` NULL) and the space recorded, the
        vectors of ``embed_model`` set aside, every memory row removed.

        Vectors set aside survive until ``finish_rebuild`` in the same process (a process
        that dies takes them along; the recovering rebuild re-embeds, losing nothing).
        """
        ...

    def finish_rebuild(self, *, embed_model: str) -> int:
        """Put back the vectors set aside whose chunk id came back; return how many."""
        ...

    def write_projections(self, projections: Sequence[FileProjection]) -> None:
        """Make the index hold each projection: the file's row upserted (its rowid kept), its
        children replaced, its chunks upserted (a chunk another file still shares moves to the
        lowest such path instead of dying), its authored edges replaced. A file is never split
        across transactions.
        """
        ...

    def move_rows(self, renames: Sequence[tuple[str, str]], *, with_state: bool) -> None:
        """Move each ``(source, target)`` row in order, chunks, vectors and authored edges
        along (and the access row, ``with_state``, unless the target has one). A move whose
        source row does not exist changes nothing; a stale row at the target goes first.
        """
        ...

    def remove_rows(self, paths: Sequence[str]) -> None:
        """Drop each path's row (children, chunks and vectors go with it) and its authored
        edges; inbound edges stay (targets may dangle)."""
        ...

    def replace_parked(
        self, removals: Sequence[str], projections: Sequence[FileProjection]
    ) -> None:
        """Remove ``removals``, then, in one transaction, free each projected path's stored
        content hash and write its projection: two files that swapped contents cannot block
        each other on the active-hash uniqueness."""
        ...

    def refresh_context(self) -> None:
        """Make every indexed memory's contextual lexical document current
        (:func:`memhtml.domain.lexical_context.context_documents`): its own text, tags, entity
        names, linked titles and session neighbour change when other memories do, so each
        indexing pass calls this after its last row write and before ``record_head``."""
        ...

    def record_head(
        self,
        *,
        head_sha: str | None,
        dirty_paths: Iterable[str],
        duplicates: Mapping[str, str],
        now: str,
    ) -> None:
        """In one step, move the watermark to ``head_sha`` (``None``: an unborn HEAD) with the
        paths indexed from the working tree, and replace the remembered skipped duplicates
        with ``duplicates`` (path to the content hash it repeats)."""
        ...

    def skipped_duplicates(self) -> Mapping[str, str]:
        """The skipped duplicates remembered, path to the content hash it repeats; empty
        before the first ``record_head`` that named any."""
        ...

    def remember_duplicates(self, duplicates: Mapping[str, str]) -> None:
        """Add ``duplicates`` to those remembered (a path already there takes its new hash),
        in one step, the watermark untouched: a pass remembers a row it displaces before
        removing it, so a pass that dies in between forgets no file."""
        ...

    def stored_blobs(self, paths: Sequence[str]) -> Mapping[str, str]:
        """The blob id each listed path's row was projected from; unindexed paths absent."""
        ...

    def active_hash_holders(self, hashes: Sequence[str]) -> Mapping[str, frozenset[str]]:
        """For each listed content hash, the active (not archived) non-task rows holding it."""
        ...

    def fulltext_tokenizer(self) -> str:
        """The tokenizer the full-text index was built with (``unicode61`` or ``porter``)."""
        ...

    def retokenize(self, tokenizer: str) -> None:
        """Rebuild the full-text index with ``tokenizer`` from the rows it indexes, in one
        step, and record it. Rows, chunks and vectors are untouched."""
        ...

    def row_counts(self) -> RowCounts:
        """Files, chunks and edges held now."""
        ...
