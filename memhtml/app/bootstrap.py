"""The one composition root: every adapter is chosen and wired here, nowhere else.

Adapters are imported inside the functions, so a command that only prints the manifest (or
``import memhtml``) never loads SQLite, dulwich, html5lib or a model.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

import attrs

from memhtml.app.config import EmbedSettings, read_embed_settings
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import MemoryDoc
from memhtml.ports.clock import Clock

if TYPE_CHECKING:
    from memhtml.adapters.sqlite.connection import Database
    from memhtml.app.use_cases.collaborators import WriteDeps
    from memhtml.ports.embedder import EmbeddingModel
    from memhtml.ports.git import GitPort
    from memhtml.ports.git_writer import GitWriter
    from memhtml.ports.indexer import Indexer
    from memhtml.ports.recorder import Recorder
    from memhtml.ports.retrieval import Retrieval

STORE_DIR: Final = ".memhtml"
INDEX_DB: Final = "index.db"
STATE_DB: Final = "state.db"
WRITE_LOCK: Final = INDEX_DB + "-writer.lock"
ENV_FTS_TOKENIZER: Final = "MEMHTML_FTS_TOKENIZER"
ENV_GIT_NAME: Final = "MEMHTML_GIT_NAME"
ENV_GIT_EMAIL: Final = "MEMHTML_GIT_EMAIL"


@attrs.frozen(kw_only=True)
class Settings:
    """Everything read from the environment, once, at the edge.

    Attributes:
        root: The memory repository's working tree.
        embed: Which embedder, and the coverage floor.
        fts_tokenizer: ``unicode61`` or ``porter``; applied when the index is built.
        git_name: Commit identity fallback name (git's own resolution comes first).
        git_email: Commit identity fallback email.
    """

    root: Path
    embed: EmbedSettings
    fts_tokenizer: str = "unicode61"
    git_name: str | None = None
    git_email: str | None = None

    @property
    def index_path(self) -> Path:
        """``.memhtml/index.db``: rebuildable, gitignored."""
        return self.root / STORE_DIR / INDEX_DB

    @property
    def state_path(self) -> Path:
        """``.memhtml/state.db``: what git cannot rebuild."""
        return self.root / STORE_DIR / STATE_DB

    @property
    def write_lock_path(self) -> Path:
        """``.memhtml/index.db-writer.lock``: writers queue on it; ignored like the index's
        other siblings (``.memhtml/index.db-*``), so it never shows in status."""
        return self.root / STORE_DIR / WRITE_LOCK


def read_settings(root: str | Path, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings for the store at ``root`` from ``environ`` (``os.environ`` by default).

    Raises:
        InvalidInput: A variable holds a value it cannot take, naming the variable.
    """
    env = os.environ if environ is None else environ
    tokenizer = env.get(ENV_FTS_TOKENIZER, "").strip() or "unicode61"
    if tokenizer not in {"unicode61", "porter"}:
        raise InvalidInput(f"{ENV_FTS_TOKENIZER} must be unicode61 or porter")
    return Settings(
        root=Path(root).expanduser(),
        embed=read_embed_settings(env),
        fts_tokenizer=tokenizer,
        git_name=env.get(ENV_GIT_NAME, "").strip() or None,
        git_email=env.get(ENV_GIT_EMAIL, "").strip() or None,
    )


def build_embedder(settings: EmbedSettings) -> EmbeddingModel | None:
    """The configured document/query embedder, not yet loaded; ``None`` for ``off``."""
    if settings.backend == "off":
        return None
    if settings.backend == "bedrock":
        from memhtml.adapters.bedrock import BedrockEmbedder

        return BedrockEmbedder(
            model_id=settings.model_id, region=settings.region, dimensions=settings.dimensions
        )
    from memhtml.adapters.local import OnnxMiniLmEmbedder, user_model_files

    files = user_model_files(settings.model_dir) if settings.model_dir else None
    return OnnxMiniLmEmbedder(threads=settings.threads, files=files)


def configured_watermark(
    settings: EmbedSettings, embedder: EmbeddingModel | None
) -> tuple[str, int]:
    """The vector space the index records, even when nothing embeds (DECISIONS 21)."""
    if embedder is not None:
        return embedder.watermark, embedder.dim
    from memhtml.adapters.local import MINILM_WATERMARK

    return MINILM_WATERMARK, int(MINILM_WATERMARK.rsplit("@", 1)[1])


def parse_memory_lazily(data: bytes) -> MemoryDoc:
    """``parse_memory``, importing html5lib only when a file actually needs parsing.

    Most commands find the index fresh and never parse; importing the html adapter up front
    cost ~0.1 s of every search. Module-level, so a rebuild's process pool can pickle it.
    """
    from memhtml.adapters.html import parse_memory

    return parse_memory(data)


class Services:
    """The wired adapters of one open store. Close it (or use ``with``) to release SQLite."""

    def __init__(
        self,
        settings: Settings,
        *,
        clock: Clock | None = None,
        embedder: EmbeddingModel | bool | None = True,
        heal: bool = True,
        thorough: bool = False,
    ) -> None:
        """Open the store's databases and bind every port to its adapter.

        Args:
            settings: Where the store is and how to embed.
            clock: The instant source; the system clock by default.
            embedder: ``True`` builds the configured embedder; an instance overrides it (evals
                and tests); ``None`` or ``False`` means lexical-only.
            heal: Repair what a killed command or a damaged file left (``app.recovery``);
                off, it is only reported in ``recovery`` (plain ``doctor``).
            thorough: Check both databases' pages and sweep the whole repository, which
                costs a fraction of a second per 10,000 memories (``doctor``).
        """
        from memhtml.adapters.git.dulwich_git import DulwichGit
        from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
        from memhtml.adapters.git.identity import FALLBACK_IDENTITY, Identity
        from memhtml.adapters.git.write_lock import RepositoryWriteLock
        from memhtml.adapters.sqlite.indexer import SqliteIndexer
        from memhtml.adapters.sqlite.recorder import SqliteRecorder
        from memhtml.adapters.sqlite.retrieval import SqliteRetrieval
        from memhtml.adapters.system.clock import SystemClock
        from memhtml.app.recovery import open_databases, recover_store
        from memhtml.app.use_cases.collaborators import ParseCache

        self.settings = settings
        self.clock: Clock = clock or SystemClock()
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
        settings.index_path.parent.mkdir(parents=True, exist_ok=True)
        # Issue 14: a damaged database is moved aside here (or only reported, heal off).
        opened = open_databases(settings, heal=heal, verify=thorough)
        self.db: Database = opened.db
        self.git: GitPort = DulwichGit(settings.root)
        self.write_lock = RepositoryWriteLock(settings.write_lock_path)
        self.writer: GitWriter = DulwichGitWriter(
            settings.root, clock=self.clock, fallback=fallback, write_lock=self.write_lock
        )
        # The write path lends its rendered documents to the indexer through this cache.
        self.parse_cache = ParseCache(parse_memory_lazily)
        self.indexer: Indexer = SqliteIndexer(
            db=self.db,
            git=self.git,
            parser=self.parse_cache,
            clock=self.clock,
            embed_watermark=watermark,
            embed_dim=dim,
            embedder=self.embedder,
        )
        self.retrieval: Retrieval = SqliteRetrieval(
            self.db,
            clock=self.clock,
            embedder=self.embedder,
            embed_model=watermark,
            coverage_floor=settings.embed.vector_coverage_floor,
        )
        self.recorder: Recorder = SqliteRecorder(self.db)
        # Issue 14: finish or undo a killed writer's commit; restore a moved-aside state.db.
        try:
            self.recovery = recover_store(self, opened, heal=heal, sweep=thorough)
        except BaseException:
            self.db.close()
            raise

    @property
    def embeds(self) -> bool:
        """Whether writes and index updates store vectors."""
        return self.embedder is not None

    def write_deps(self) -> WriteDeps:
        """The collaborators of the mutating use cases."""
        from memhtml.app.use_cases.collaborators import WriteDeps, html_codec

        return WriteDeps(
            git=self.git,
            writer=self.writer,
            recorder=self.recorder,
            indexer=self.indexer,
            clock=self.clock,
            codec=html_codec(),
            embed=self.embeds,
            parsed=self.parse_cache,
            write_lock=self.write_lock.held,
        )

    def close(self) -> None:
        """Release the database connection."""
        self.db.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
