"""``Services``: one open store's ports, wired. The only place adapters are constructed.

Every use case receives the ports it uses from here (through the facade in
``memhtml.app.store``); no use case, pipeline step, CLI command or evaluation builds an adapter
itself.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from memhtml.app.bootstrap.components import (
    build_embedder,
    configured_watermark,
    memory_codec,
    open_storage,
    pairwise_similarity,
    parse_memory_lazily,
    system_clock,
)
from memhtml.app.bootstrap.settings import Settings
from memhtml.app.indexing import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.app.indexing.reporting import ReportingIndexer
from memhtml.app.retrieval import RetrievalPipeline
from memhtml.app.retrieval.fusion_run import FusionPlanner
from memhtml.domain.snippets import VECTOR_COVERAGE_FLOOR
from memhtml.ports.clock import Clock
from memhtml.ports.indexer import Indexer
from memhtml.ports.progress import ProgressSink
from memhtml.ports.storage import Storage

if TYPE_CHECKING:
    from memhtml.ports.embedder import Embedder, EmbeddingModel, QueryEmbedder
    from memhtml.ports.git import GitPort
    from memhtml.ports.git_writer import GitWriter
    from memhtml.ports.memory_codec import MemoryCodec
    from memhtml.ports.memory_parser import MemoryParser
    from memhtml.ports.pair_similarity import PairwiseSimilarity


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
) -> StoreIndexer:
    """The indexer over ``storage``'s ports and ``git`` (see ``StoreIndexer``)."""
    extra = {} if embed_persist_slice is None else {"embed_persist_slice": embed_persist_slice}
    return StoreIndexer(
        store=storage.index,
        vectors=storage.vectors,
        git=git,
        parser=parser,
        clock=clock,
        embed_watermark=embed_watermark,
        embed_dim=embed_dim,
        embedder=embedder,
        parse=parse,
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
    """

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        embedder: EmbeddingModel | bool | None = True,
        progress: ProgressSink | None = None,
    ) -> None:
        """Open the store's storage and bind every port to its adapter.

        Args:
            settings: Where the store is and how to embed.
            clock: The instant source; the system clock by default.
            embedder: ``True`` builds the configured embedder; an instance overrides it (evals
                and tests); ``None`` or ``False`` means lexical-only.
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
        self.storage: Storage = open_storage(settings.storage, settings.storage_location)
        self.git: GitPort = DulwichGit(settings.root)
        self.writer: GitWriter = DulwichGitWriter(
            settings.root, clock=self.clock, fallback=fallback
        )
        self.write_lock: Callable[[], AbstractContextManager[None]] = RepositoryWriteLock(
            settings.write_lock_path
        ).held
        self.configure_repo: Callable[[], bool] = lambda: ensure_merge_ours_driver(settings.root)
        self.codec: MemoryCodec = memory_codec()
        self.parse: MemoryParser = parse_memory_lazily
        self.indexer: Indexer = indexer_over(
            self.storage,
            git=self.git,
            clock=self.clock,
            embed_watermark=watermark,
            embed_dim=dim,
            embedder=self.embedder,
        )
        if progress is not None:
            self.indexer = ReportingIndexer(self.indexer, progress)
        self.retrieval = retrieval_over(
            self.storage,
            clock=self.clock,
            embedder=self.embedder,
            embed_model=watermark,
            coverage_floor=settings.embed.vector_coverage_floor,
            similarity=pairwise_similarity(),
        )

    @property
    def embeds(self) -> bool:
        """Whether writes and index updates store vectors."""
        return self.embedder is not None

    def close(self) -> None:
        """Release the storage."""
        self.storage.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
