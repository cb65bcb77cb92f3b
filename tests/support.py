"""Builders the tests share: the application services over a given storage backend.

Production wiring lives in ``memhtml.app.bootstrap``; these wrap the same builders for tests
that hold a ``Database`` (or in-memory tables) directly.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from memhtml.adapters.numpy import NumpyPairwiseCosine
from memhtml.adapters.sqlite.connection import IN_MEMORY, Database
from memhtml.adapters.sqlite.schema import DEFAULT_FTS_TOKENIZER
from memhtml.adapters.sqlite.storage import sqlite_storage
from memhtml.app.bootstrap import Settings, indexer_over, retrieval_over
from memhtml.app.indexing import StoreIndexer
from memhtml.app.indexing.parse_pool import ParseSettings
from memhtml.app.retrieval import RetrievalPipeline
from memhtml.domain.reinforce import AccessRow
from memhtml.domain.sidecar import parse_sidecar
from memhtml.domain.snippets import VECTOR_COVERAGE_FLOOR
from memhtml.ports.clock import Clock
from memhtml.ports.embedder import Embedder, QueryEmbedder
from memhtml.ports.git import GitPort
from memhtml.ports.memory_parser import MemoryParser
from memhtml.ports.storage import Storage


def sqlite_indexer(
    *,
    db: Database,
    git: GitPort,
    parser: MemoryParser,
    clock: Clock,
    embed_watermark: str,
    embed_dim: int,
    embedder: Embedder | None = None,
    embed_persist_slice: int | None = None,
    parse: ParseSettings | None = None,
    fts_tokenizer: str | None = None,
) -> StoreIndexer:
    """The indexer over SQLite storage on ``db``."""
    return indexer_over(
        sqlite_storage(db),
        git=git,
        parser=parser,
        clock=clock,
        embed_watermark=embed_watermark,
        embed_dim=embed_dim,
        embedder=embedder,
        embed_persist_slice=embed_persist_slice,
        parse=parse,
        fts_tokenizer=fts_tokenizer,
    )


def sqlite_retrieval(
    db: Database,
    *,
    clock: Clock,
    embedder: QueryEmbedder | None = None,
    embed_model: str | None = None,
    coverage_floor: float = VECTOR_COVERAGE_FLOOR,
) -> RetrievalPipeline:
    """The retrieval pipeline over SQLite storage on ``db``, with the production cosine table."""
    return retrieval_over(
        sqlite_storage(db),
        clock=clock,
        embedder=embedder,
        embed_model=embed_model,
        coverage_floor=coverage_floor,
        similarity=NumpyPairwiseCosine(),
    )


def index_database(settings: Settings) -> Database:
    """A second connection to a store's ``index.db`` (state plane attached), for tests that
    inspect or damage the SQLite files directly. Close it when done."""
    return Database.open(settings.index_path, state_path=settings.state_path)


def access_rows_of(storage: Storage) -> dict[str, AccessRow]:
    """The state plane's rows by path, read through the state-plane port."""
    return {row.path: row for row in parse_sidecar(storage.state.export_access()).rows}


# Migrated, empty databases copied by the helpers below: running every migration costs ~25 ms
# in memory and ~80 ms on disk (idle core), per test or per hypothesis example, where a copy
# costs ~1 ms. What the migrations build has its own tests, which open databases directly.
_TEMPLATE_FOLDER = tempfile.TemporaryDirectory(prefix="memhtml-test-templates-")
atexit.register(_TEMPLATE_FOLDER.cleanup)


@functools.cache
def _memory_template(tokenizer: str) -> Database:
    return Database.open(IN_MEMORY, fts_tokenizer=tokenizer)


@functools.cache
def _file_template(tokenizer: str) -> Path:
    folder = Path(_TEMPLATE_FOLDER.name) / tokenizer
    folder.mkdir()
    Database.open(
        folder / "index.db", state_path=folder / "state.db", fts_tokenizer=tokenizer
    ).close()
    return folder


def migrated_in_memory(*, state: bool, tokenizer: str = DEFAULT_FTS_TOKENIZER) -> Database:
    """What ``Database.open(":memory:", ...)`` returns, with an in-memory state plane when
    ``state``: a copy of a migrated template (``Database.copy_in_memory``; only its
    ``newly_applied`` differs, naming no index migration)."""
    return _memory_template(tokenizer).copy_in_memory(with_state=state)


def migrated_files(
    index_path: Path, state_path: Path, *, tokenizer: str = DEFAULT_FTS_TOKENIZER
) -> Database:
    """What ``Database.open(index_path, state_path=state_path)`` returns for two new files,
    opened from copies of a migrated pair (so ``newly_applied`` is empty)."""
    template = _file_template(tokenizer)
    shutil.copyfile(template / "index.db", index_path)
    shutil.copyfile(template / "state.db", state_path)
    return Database.open(index_path, state_path=state_path, fts_tokenizer=tokenizer)


def index_migrations_before(name: str, into: Path) -> Path:
    """``into`` made a migrations folder holding the shipped index migrations whose file names
    sort before ``name`` (``"0013"``, say): opening an index with it builds one as an earlier
    release did, and opening that index without it applies the rest."""
    from memhtml.adapters.sqlite.migrations import (
        INDEX_MIGRATIONS_DIR,
        load_migrations,
        shipped_migrations,
    )

    into.mkdir()
    for migration in load_migrations(shipped_migrations(INDEX_MIGRATIONS_DIR)):
        if migration.name < name:
            (into / migration.name).write_text(migration.sql, encoding="utf-8")
    return into
