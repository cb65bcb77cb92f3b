"""``Services``: one open store's ports, wired. The only place adapters are constructed.

Every use case receives the ports it uses from here (through the facade in
``memhtml.app.store``); no use case, pipeline step, CLI command or evaluation builds an adapter
itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from memhtml.app.bootstrap.components import (
    build_embedder,
    configured_watermark,
    git_history,
    git_landing,
    git_remote,
    memory_codec,
    open_storage,
    pairwise_similarity,
    parse_memory_lazily,
    system_clock,
    transcript_files,
    tree_watch,
)
from memhtml.app.bootstrap.settings import Settings
from memhtml.app.indexing import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.app.indexing.reporting import ReportingIndexer
from memhtml.app.recovery import recover_store
from memhtml.domain.snippets import VECTOR_COVERAGE_FLOOR
from memhtml.ports.clock import Clock
from memhtml.ports.indexer import Indexer
from memhtml.ports.progress import ProgressSink
from memhtml.ports.storage import Storage

if TYPE_CHECKING:
    from memhtml.app.retrieval import RetrievalPipeline
    from memhtml.app.retrieval.query_prefetch import QueryPrefetch
    from memhtml.ports.embedder import Embedder, EmbeddingModel, QueryEmbedder
    from memhtml.ports.git import GitPort
    from memhtml.ports.git_history import GitHistory
    from memhtml.ports.git_landing import GitLanding
    from memhtml.ports.git_remote import GitRemote
    from memhtml.ports.git_writer import GitWriter, RecoveryFinding
    from memhtml.ports.memory_codec import MemoryCodec
    from memhtml.ports.memory_parser import MemoryParser
    from memhtml.ports.pair_similarity import PairwiseSimilarity
    from memhtml.ports.transcript_files import TranscriptFiles


def retrieval_over(
    storage: Storage,
    *,
    clock: Clock,
    embedder: QueryEmbedder | None = None,
    embed_model: str | None = None,
    coverage_floor: float = VECTOR_COVERAGE_FLOOR,
    similarity: PairwiseSimilarity | None = None,
) -> RetrievalPipeline:
    """The retrieval pipeline over ``storage``'s ports.

    Args:
        storage: The backend's ports.
        clock: Salience's ``now`` and reinforcement stamps.
        embedder: Embeds queries; ``None`` runs lexical and the priors only.
        embed_model: The configured space; defaults to the embedder's, then to the recorded
            one.
        coverage_floor: Below this share of embedded chunks the vector arm is dropped.
        similarity: The pool's cosine table builder; ``None`` compares in pure Python.
    """
    from memhtml.app.retrieval import RetrievalPipeline
    from memhtml.app.retrieval.fusion_run import FusionPlanner

    return RetrievalPipeline(
        planner=FusionPlanner(
            ranks=storage.ranks,
            clock=clock,
            embedder=embedder,
            embed_model=embed_model or (embedder.watermark if embedder else None),
            coverage_floor=coverage_floor,
        ),
        candidates=storage.candidates,
        archive=storage.archive,
        access=storage.access,
        clock=clock,
        similarity=similarity,
    )


def indexer_over(
    storage: Storage,
    *,
    git: GitPort,
    clock: Clock,
    embed_watermark: str,
    embed_dim: int,
    embedder: Embedder | None = None,
    parser: MemoryParser = parse_memory_lazily,
    parse: ParseSettings | None = None,
    embed_persist_slice: int | None = None,
    fts_tokenizer: str | None = None,
) -> StoreIndexer:
    """The indexer over ``storage``'s ports and ``git`` (see ``StoreIndexer``)."""
    extra = {} if embed_persist_slice is None else {"embed_persist_slice": embed_persist_slice}
    return StoreIndexer(
        store=storage.index,
        vectors=storage.vectors,
        rebuild_claim=storage.rebuild_claim,
        git=git,
        parser=parser,
        clock=clock,
        embed_watermark=embed_watermark,
        embed_dim=embed_dim,
        embedder=embedder,
        parse=parse,
        fts_tokenizer=fts_tokenizer,
        history=storage.history,
        **extra,
    )


class Services:
    """The wired ports of one open store. Close it (or use ``with``) to release storage.

    Attributes:
        settings: Where the store is and how it is configured.
        clock: The instant source.
        embedder: The document/query embedder, or ``None`` (lexical only).
        watermark: The configured vector space.
        storage: Every storage port.
        git, writer: The repository, read and written.
        write_lock: Held by every mutation from preflight to commit.
        configure_repo: Sets the repository's own merge driver config (``init``).
        codec: The memory file format's functions.
        parse: Memory file bytes to a document.
        indexer: The indexing service.
        retrieval: The search and recall pipeline.
        recovery: What opening found a killed command or a damaged file had left, repaired
            (``heal``) or only seen.
        transcripts: Agent transcripts on disk, for the trace scan.
        history, remote, landing: The commit graph, the remotes and the branch moves a sync
            uses.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        embedder: EmbeddingModel | bool | None = True,
        heal: bool = True,
        thorough: bool = False,
        progress: ProgressSink | None = None,
    ) -> None:
        """Open the store's storage and bind every port to its adapter.

        Args:
            settings: Where the store is and how to embed.
            clock: The instant source; the system clock by default.
            embedder: ``True`` builds the configured embedder; an instance overrides it (evals
                and tests); ``None`` or ``False`` means lexical-only.
            heal: Repair what a killed command or a damaged file left (``app.recovery``);
                off, it is only reported in ``recovery`` (plain ``doctor``).
            thorough: Check both databases' pages and sweep the whole repository, which
                costs a fraction of a second per 10,000 memories (``doctor``).
            progress: Where index passes that were given no sink report (the freshness pass
                of a read, the update after a commit, the rebuild after a lost index).
        """
        from memhtml.adapters.git.dulwich_git import DulwichGit
        from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
        from memhtml.adapters.git.identity import FALLBACK_IDENTITY, Identity
        from memhtml.adapters.git.repo_config import ensure_merge_ours_driver
        from memhtml.adapters.git.write_lock import RepositoryWriteLock

        self.settings = settings
        self.clock: Clock = clock or system_clock()
        self.embedder: EmbeddingModel | None
        if embedder is True:
            self.embedder = build_embedder(settings.embed)
        elif embedder is False:
            self.embedder = None
        else:
            self.embedder = embedder
        watermark, dim = configured_watermark(settings.embed, self.embedder)
        self.watermark = watermark
        fallback = FALLBACK_IDENTITY
        if settings.git_name and settings.git_email:
            fallback = Identity(name=settings.git_name, email=settings.git_email)
        settings.write_lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock = RepositoryWriteLock(settings.write_lock_path)
        # Issue 14: a damaged database is moved aside as it opens (or only reported, heal off).
        opened = open_storage(
            settings.storage,
            settings.storage_location,
            heal=heal,
            verify=thorough,
            exclusive=lock.held,
        )
        self.storage: Storage = opened.storage
        # Status re-checks only what a file-system watcher saw change, from the second status
        # of this store on (a warm process: the library's store, the MCP server).
        self._reader = DulwichGit(
            settings.root,
            status_cache=settings.git_status_cache_path,
            watch=tree_watch(settings.root),
        )
        self.git: GitPort = self._reader
        self.writer: GitWriter = DulwichGitWriter(
            settings.root, clock=self.clock, fallback=fallback, write_lock=lock
        )
        self.write_lock: Callable[[], AbstractContextManager[None]] = lock.held
        self.configure_repo: Callable[[], bool] = lambda: ensure_merge_ours_driver(settings.root)
        self.parse: MemoryParser = parse_memory_lazily
        self.indexer: Indexer = indexer_over(
            self.storage,
            git=self.git,
            clock=self.clock,
            embed_watermark=watermark,
            embed_dim=dim,
            embedder=self.embedder,
            fts_tokenizer=settings.fts_tokenizer,
        )
        if progress is not None:
            self.indexer = ReportingIndexer(self.indexer, progress)
        # Issue 14: finish or undo a killed writer's commit; restore a moved-aside state plane.
        try:
            self.recovery: tuple[RecoveryFinding, ...] = recover_store(
                opened=opened,
                writer=self.writer,
                git=self.git,
                lock_if_free=lock.held_if_free,
                heal=heal,
                sweep=thorough,
            )
        except BaseException:
            self.storage.close()
            raise
        self._lock = lock

    # What only some commands use is built when first asked for: the file codec (the html
    # adapter), the retrieval pipeline (its modules), and the remote's port, which brings
    # dulwich's network client and the sync rules into every command's start-up otherwise.

    @functools.cached_property
    def codec(self) -> MemoryCodec:
        """The memory file format's functions (the html adapter: a read that finds the index
        fresh never loads it)."""
        return memory_codec()

    @functools.cached_property
    def query_embedder(self) -> QueryPrefetch | None:
        """The embedder's query half, able to start a query's vector while a read catches the
        index up (``app.retrieval.query_prefetch``); ``None`` without an embedder."""
        from memhtml.app.retrieval.query_prefetch import QueryPrefetch

        return None if self.embedder is None else QueryPrefetch(self.embedder)

    @functools.cached_property
    def retrieval(self) -> RetrievalPipeline:
        """The search and recall pipeline."""
        return retrieval_over(
            self.storage,
            clock=self.clock,
            embedder=self.query_embedder,
            embed_model=self.watermark,
            coverage_floor=self.settings.embed.vector_coverage_floor,
            similarity=pairwise_similarity(),
        )

    @functools.cached_property
    def transcripts(self) -> TranscriptFiles:
        """The trace plane's transcript files."""
        return transcript_files()

    @functools.cached_property
    def history(self) -> GitHistory:
        """The repository's commit graph (merge bases, ahead/behind, last touches)."""
        return git_history(self.settings.root)

    @functools.cached_property
    def remote(self) -> GitRemote:
        """The configured remotes: fetch, push, the sync record."""
        return git_remote(self.settings.root)

    @functools.cached_property
    def landing(self) -> GitLanding:
        """Moves the branch to a merged or fetched commit under the writers' lock."""
        return git_landing(
            self.settings.root,
            clock=self.clock,
            write_lock=self._lock,
            git_name=self.settings.git_name,
            git_email=self.settings.git_email,
        )

    @property
    def embeds(self) -> bool:
        """Whether writes and index updates store vectors."""
        return self.embedder is not None

    def close(self) -> None:
        """Release the storage and the file-system watcher."""
        self._reader.close()
        self.storage.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
