"""The indexer port: keep ``index.db`` a projection of the git tree, and its vectors filled.

The app drives it: ``update`` before every read (docs/decisions.md §20), ``rebuild`` on request,
``backfill`` for ``index embed``. Reports are plain values; the expected outcomes (skipped
files, a model that stopped answering mid-pass) are in them, and only the states a caller must
act on are exceptions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, Protocol

import attrs

from memhtml.domain.model import MemoryDoc
from memhtml.ports.git import StatusEntry
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

# Why a file offered by git is not in the index, beside the parser's own violation codes.
SKIP_DUPLICATE_CONTENT: Final = "duplicate-content"
SKIP_UNREADABLE: Final = "unreadable"


@attrs.frozen(kw_only=True)
class SkippedFile:
    """A file git offered that the index does not hold.

    Attributes:
        path: The repo path.
        reasons: The parser's violation codes (docs/format.md §10), or ``duplicate-content`` when
            another active non-task file already holds the same content hash, or
            ``unreadable`` when the working-tree file vanished while being read. Codes only,
            never memory text, so a report is safe to log.
        details: The parser's detail for each code of ``reasons``, in the same order (``file
            is 5220511 bytes; the limit is 131072``), or empty when the reasons are not a
            parser's; like the codes, a detail never quotes memory text.
    """

    path: str
    reasons: tuple[str, ...]
    details: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class RebuildReport:
    """A full rebuild's outcome.

    Attributes:
        head_sha: The commit the index now describes; ``None`` for an unborn HEAD.
        files_indexed, chunks_indexed, edges_indexed: Rows in the rebuilt index.
        embeddings_preserved: Vectors carried across the rebuild because their chunk id came
            back (chunk ids are content-addressed); zero after a change of vector space.
        embeddings_written: Vectors the rebuild embedded.
        skipped: Files that failed to parse or duplicated another's content, by path.
        model_failure: The model's reason when it stopped answering mid-pass, else ``None``;
            the rebuild still completes, with the vectors that landed.
        retokenized: The tokenizer the full-text index was rebuilt with because the
            configuration asked for another one than it had; else ``None``.
    """

    head_sha: str | None
    files_indexed: int
    chunks_indexed: int
    edges_indexed: int
    embeddings_preserved: int
    embeddings_written: int
    skipped: tuple[SkippedFile, ...] = ()
    model_failure: str | None = None
    retokenized: str | None = None


@attrs.frozen(kw_only=True)
class UpdateReport:
    """An incremental pass's outcome.

    Attributes:
        head_sha: The commit the index now describes; ``None`` for an unborn HEAD.
        unchanged: True when HEAD equalled the watermark and the tree was clean: nothing was
            read beyond HEAD and the status walk, nothing written.
        rebuilt: True when there was no watermark and the pass ran a full rebuild; the
            rebuild's files then count as ``added``.
        added, modified, removed, renamed: Committed changes since the watermark, counting
            indexed paths only (a move out of the PARA buckets is a removal).
        dirty: Paths indexed from uncommitted working-tree content.
        embeddings_written: Vectors embedded for this pass's chunks.
        skipped: Files that failed to parse or duplicated another's content; their rows are
            gone, as a rebuild would leave them.
        model_failure: The model's reason when it stopped answering mid-pass, else ``None``.
        retokenized: As in :class:`RebuildReport`.
        working: The working-tree status this pass walked, when it then found nothing to
            write (so the answer is as fresh as a new walk); ``None`` when it walked none
            (``committed_only``, a rebuild) or wrote after walking. A writer under the
            store's write lock places against it instead of walking again. Not part of the
            report's equality or repr.
    """

    head_sha: str | None
    unchanged: bool = False
    rebuilt: bool = False
    added: int = 0
    modified: int = 0
    removed: int = 0
    renamed: int = 0
    dirty: int = 0
    embeddings_written: int = 0
    skipped: tuple[SkippedFile, ...] = ()
    model_failure: str | None = None
    retokenized: str | None = None
    working: tuple[StatusEntry, ...] | None = attrs.field(default=None, eq=False, repr=False)


@attrs.frozen(kw_only=True)
class BackfillReport:
    """What ``index embed`` answers: the work done and the gap that is left.

    Attributes:
        head_sha: The recorded watermark (git's empty-tree id after indexing an unborn HEAD);
            ``None`` before the first rebuild or while an interrupted rebuild's window is open.
        chunks: Every chunk in the index.
        embeddings: Chunks with a vector in the configured space, after the pass.
        embeddings_written: Vectors this pass wrote.
        embeddings_remaining: Chunks still without a vector in the configured space; non-zero
            with no embedder bound, after a model failure, or under ``dry_run``.
        model_failure: The model's reason when it stopped answering mid-pass, else ``None``.
    """

    head_sha: str | None
    chunks: int
    embeddings: int
    embeddings_written: int
    embeddings_remaining: int
    model_failure: str | None = None


@attrs.frozen(kw_only=True)
class VectorCoverage:
    """The share of chunks carrying a vector in one space, and the two counts behind it.

    Attributes:
        model: The space counted (``<model-id>@<dim>``).
        chunks: Every chunk in the index.
        embeddings: Chunks with a vector in ``model``; never more than ``chunks``.
        coverage: ``embeddings / chunks``, or 1.0 when there are no chunks.
    """

    model: str
    chunks: int
    embeddings: int
    coverage: float


@attrs.frozen(kw_only=True)
class IndexState:
    """The ``index_state`` watermark row.

    Attributes:
        head_sha: The commit the index describes (git's empty-tree id after indexing an
            unborn HEAD); ``None`` while a rebuild is in flight or after one died.
        embed_model: The vector space every stored vector belongs to, ``<model-id>@<dim>``.
        embed_dim: Its dimension.
        rebuilt_at, updated_at: When the last rebuild started and the watermark last moved.
        dirty_paths: Paths indexed from the working tree rather than from ``head_sha``; the
            next update revisits them even when git reports them clean again.
    """

    head_sha: str | None
    embed_model: str
    embed_dim: int
    rebuilt_at: str
    updated_at: str
    dirty_paths: frozenset[str] = frozenset()


EMPTY_TREE_SHA: Final = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""What git names the tree of nothing: the watermark of an index built from an unborn HEAD.

``None`` already means "a rebuild died", and an empty fresh store is a healthy, current index.
"""


def watermark_commit(state: IndexState) -> str | None:
    """The commit to diff from: ``None`` for the empty tree of an unborn HEAD.

    Only meaningful when ``state.head_sha`` is set; a NULL watermark is ``IndexStale``.
    """
    return None if state.head_sha == EMPTY_TREE_SHA else state.head_sha


class Indexer(Protocol):
    """Projects the repository's memory files into the index and embeds their chunks.

    The configured vector space is fixed when the indexer is built; the store's recorded space
    must equal it before anything is written (``EmbedModelMismatch``), so two spaces never mix.
    Every storage error surfaces as ``StorageFailure`` and every git error as ``GitFailure``.
    """

    @property
    def embedder_bound(self) -> bool:
        """Whether a document embedder is bound, so ``embed=True`` writes vectors.

        False is the deliberate lexical-only store (``MEMHTML_EMBED=off``), which still
        records the configured space.
        """
        ...

    def rebuild(
        self, *, embed: bool, force: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> RebuildReport:
        """Reproject the whole tree at HEAD, keeping vectors whose chunks come back.

        Order: list HEAD's tree under the PARA buckets and read its blobs (an unborn HEAD is an
        empty tree); then one transaction clears the watermark, records the configured space,
        stashes its vectors and empties the memory tables; then the files are parsed in batches
        and each batch's projections land while the next batches are parsed; then
        the stashed vectors return for chunk ids that came back; then, with ``embed``, the
        missing vectors are embedded; the commit is recorded last. A rebuild that dies between
        the first transaction and the last leaves the watermark NULL (see ``update``).

        Args:
            embed: Embed the chunks that lack a vector (needs a bound embedder).
            force: Rebuild without writing vectors over a store that holds some.
            progress: Told of the indexing phase (units: files offered by HEAD, parsed and
                written or skipped) and the embedding phase (units: pending chunks).

        Raises:
            EmbedModelMismatch: The store's space differs and this rebuild cannot write
                vectors (``embed`` false or no embedder bound). With both, the rebuild is the
                migration: no old vector is kept and the new space is recorded first.
            RebuildNoEmbedRefused: This rebuild cannot write vectors, the store holds vectors
                in the configured space, and ``force`` is false.
        """
        ...

    def update(
        self,
        *,
        embed: bool,
        progress: ProgressSink = NO_PROGRESS,
        known: Mapping[bytes, MemoryDoc] | None = None,
        vectors: Mapping[str, bytes] | None = None,
        committed_only: bool = False,
    ) -> UpdateReport:
        """Bring the index from its watermark to HEAD plus the uncommitted working tree.

        Order: committed changes (watermark → HEAD) first, then the working tree, so a path
        ends at its working-tree content; renames before removals before projections, in
        batches of at most 500 statements; the watermark moves after the last batch, so a
        failed pass is repeated whole by the next one. A rename updates the row's path, so its
        chunks and vectors follow. With no watermark row at all this runs ``rebuild``; so it
        does with a NULL watermark whose rebuild died (it resumes it, from the start).

        Args:
            embed: Embed this pass's chunks that lack a vector (needs a bound embedder).
            progress: Told of the parsing phase (units: changed files that needed a parse)
                and the embedding phase (units: this pass's pending chunks); a pass that
                finds nothing moved announces nothing, and the first pass reports as
                ``rebuild``.
            known: Documents the caller already parsed, by the exact bytes they came from
                (the write path's renders); a changed file with those bytes is not parsed.
            vectors: Vectors the caller already embedded with this indexer's embedder, by
                chunk id (the near-duplicate assist's first chunks); a chunk this pass
                projected that lacks a vector gets the handed one, stored rather than embedded
                again, even when ``embed`` is false. Ignored without a bound embedder (no
                space to vouch for them) and for chunks the pass did not project.
            committed_only: Apply the commits since the watermark and nothing else: the
                working tree is not walked (a sync, which knows it only moved the branch; a
                write's update after its commit, whose preflight just walked). Every path the
                commits touched takes HEAD's content; the paths the last pass read from the
                working tree stay recorded as dirty, so the next full pass revisits them, and
                edits made since that pass wait for it as well.

        Raises:
            IndexStale: The watermark is NULL because another process is rebuilding now.
            EmbedModelMismatch: The store's space differs from the configured one.
            RebuildNoEmbedRefused: A died rebuild must be resumed by a pass that cannot write
                vectors, over a store that holds some.
        """
        ...

    def rebuild_in_progress(self) -> bool:
        """Whether another process is rebuilding the index at this moment."""
        ...

    def embed_missing(
        self, candidate_chunk_ids: Sequence[str] | None = None, *, limit: int | None = None
    ) -> int:
        """Embed chunks without a vector in the configured space; return how many were written.

        Pending chunks are embedded in slices (960 by default) and each slice is stored before
        the next is embedded, so a model that fails stops the pass and keeps what landed:
        that is a return value, never an exception. Without an embedder bound this writes
        nothing and returns 0.

        Args:
            candidate_chunk_ids: Look only at these chunks (what an update passes; an empty
                sequence means no work); ``None`` scans every chunk, which is the only form that
                also replaces vectors of another space.
            limit: Embed at most this many, the first by chunk id (``None``: all of them); a
                search bounds the pending chunks it embeds before it answers.

        Raises:
            EmbedModelMismatch: The store's space differs from the configured one.
        """
        ...

    def backfill(
        self, *, dry_run: bool = False, progress: ProgressSink = NO_PROGRESS
    ) -> BackfillReport:
        """Fill every missing vector in persisted slices (a full ``embed_missing``), and report
        the gap that is left. ``dry_run`` only counts. ``progress`` is told of the embedding
        phase (units: pending chunks, advanced as each slice is stored).

        Raises:
            EmbedModelMismatch: The store's space differs from the configured one.
        """
        ...

    def vector_coverage(self) -> VectorCoverage:
        """Coverage of the configured space, the ratio search and doctor compare to the floor."""
        ...

    def index_state(self) -> IndexState | None:
        """The watermark row, or ``None`` before the first rebuild."""
        ...
