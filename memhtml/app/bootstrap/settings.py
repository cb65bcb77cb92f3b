"""Where a store lives and how it is configured: read from the environment once, at the edge."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import attrs

from memhtml.app.bootstrap.config import EmbedSettings, read_embed_settings
from memhtml.app.bootstrap.warm_forward import REQUEST_VAR
from memhtml.domain.commit_messages import REQUEST_ID_PATTERN
from memhtml.domain.errors import InvalidInput
from memhtml.ports.storage import StorageLocation

STORE_DIR: Final = ".memhtml"
INDEX_DB: Final = "index.db"
STATE_DB: Final = "state.db"
WRITE_LOCK: Final = INDEX_DB + "-writer.lock"
GIT_STATUS_CACHE: Final = INDEX_DB + "-gitstatus"
ENV_FTS_TOKENIZER: Final = "MEMHTML_FTS_TOKENIZER"
ENV_GIT_NAME: Final = "MEMHTML_GIT_NAME"
ENV_GIT_EMAIL: Final = "MEMHTML_GIT_EMAIL"
DEFAULT_STORAGE: Final = "sqlite"
DEFAULT_FTS_TOKENIZER: Final = "porter"
"""Porter stemming: chosen by evaluation (issue 13); an index built with another tokenizer is
retokenized by the next update."""


@attrs.frozen(kw_only=True)
class Settings:
    """Everything read from the environment, once, at the edge.

    Attributes:
        root: The memory repository's working tree.
        embed: Which embedder, and the coverage floor.
        fts_tokenizer: ``porter`` (default) or ``unicode61``; an index built with the other is
            retokenized by the next update.
        git_name: Commit identity fallback name (git's own resolution comes first).
        git_email: Commit identity fallback email.
        storage: The storage backend's name in ``STORAGE_BACKENDS`` (``sqlite``; tests also
            use ``memory``).
        request_id: The id the console script gives a forwarded ``archive`` or ``correct``
            (``_MEMHTML_REQUEST``, ``bootstrap/warm_forward.py``), written into its commit.
    """

    root: Path
    embed: EmbedSettings
    fts_tokenizer: str = DEFAULT_FTS_TOKENIZER
    git_name: str | None = None
    git_email: str | None = None
    storage: str = DEFAULT_STORAGE
    request_id: str | None = None

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

    @property
    def git_status_cache_path(self) -> Path:
        """``.memhtml/index.db-gitstatus``: what git status reuses between commands;
        rebuildable, and ignored like the index's other siblings."""
        return self.root / STORE_DIR / GIT_STATUS_CACHE

    @property
    def storage_location(self) -> StorageLocation:
        """Where the storage backend keeps the index and the state plane."""
        return StorageLocation(
            index_path=str(self.index_path),
            state_path=str(self.state_path),
            fts_tokenizer=self.fts_tokenizer,
        )


def read_settings(root: str | Path, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings for the store at ``root`` from ``environ`` (``os.environ`` by default).

    Raises:
        InvalidInput: A variable holds a value it cannot take, naming the variable.
    """
    env = os.environ if environ is None else environ
    tokenizer = env.get(ENV_FTS_TOKENIZER, "").strip() or DEFAULT_FTS_TOKENIZER
    if tokenizer not in {"unicode61", "porter"}:
        raise InvalidInput(f"{ENV_FTS_TOKENIZER} must be unicode61 or porter")
    return Settings(
        root=Path(root).expanduser(),
        embed=read_embed_settings(env),
        fts_tokenizer=tokenizer,
        git_name=env.get(ENV_GIT_NAME, "").strip() or None,
        git_email=env.get(ENV_GIT_EMAIL, "").strip() or None,
        request_id=_request_id(env),
    )


def _request_id(env: Mapping[str, str]) -> str | None:
    """The command invocation's id the console script set for a forwarded write, if any."""
    value = env.get(REQUEST_VAR, "").strip()
    if not value:
        return None
    if not REQUEST_ID_PATTERN.fullmatch(value):
        raise InvalidInput(f"{REQUEST_VAR} must be 1-64 ASCII letters, digits or hyphens")
    return value
