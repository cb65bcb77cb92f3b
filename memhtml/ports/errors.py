"""Errors the ports raise. Adapters convert every driver error into one of these with
``raise … from e`` and name only the operation: never SQL parameters, git output or memory text.
"""

from __future__ import annotations

from memhtml.domain.errors import MemhtmlError


class PortError(MemhtmlError):
    """Base of the failures an adapter reports through a port."""


class StorageFailure(PortError):
    """A SQLite operation failed after retries (busy, disk full, corrupt file…)."""

    def __init__(self, operation: str) -> None:
        self.operation = operation
        super().__init__(f"storage operation failed: {operation}")


class StorageCorrupt(StorageFailure):
    """A database file is damaged, is not a database, or cannot be opened as one.

    Raised where SQLite says so (``SQLITE_CORRUPT``, ``SQLITE_NOTADB``, ``SQLITE_CANTOPEN``).
    Both files have a recovery path: index.db is rebuilt from git, state.db restored from the
    committed sidecar; ``memhtml doctor --fix`` does either.
    """

    def __init__(self, operation: str) -> None:
        self.operation = operation
        self.suggestions = ("memhtml doctor --fix",)
        PortError.__init__(
            self, f"storage operation failed: {operation} (the database file is damaged)"
        )


class IndexCorrupt(StorageCorrupt):
    """index.db, the rebuildable cache, is damaged or unreadable (found while opening it)."""


class StateCorrupt(StorageCorrupt):
    """state.db, the state plane, is damaged or unreadable (found while opening it)."""


class GitFailure(PortError):
    """A git operation failed (unreadable repository, missing object, refused ref update)."""

    def __init__(self, operation: str) -> None:
        self.operation = operation
        super().__init__(f"git operation failed: {operation}")


class ModelUnavailable(PortError):
    """An embedding model could not load or answer."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"embedding model unavailable: {reason}")


class EmbedModelMismatch(PortError):
    """The stored vector space differs from the configured one.

    A hard failure rather than a silent reindex: a half-migrated vector space degrades every
    cosine while each vector still looks well-formed. ``index rebuild --embed`` is the way past.
    """

    def __init__(self, stored: str, configured: str) -> None:
        self.stored = stored
        self.configured = configured
        super().__init__(
            f"index holds vectors for {stored} but {configured} is configured; "
            "run `memhtml index rebuild --embed`"
        )


class IndexStale(PortError):
    """The index watermark is NULL: a rebuild started and did not finish."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"index is stale: {reason}; run `memhtml index rebuild`")


class RebuildNoEmbedRefused(PortError):
    """A rebuild that cannot write vectors would discard the vectors the store holds."""

    def __init__(self, embeddings: int, model: str, because: str) -> None:
        self.embeddings = embeddings
        self.model = model
        self.because = because
        super().__init__(
            f"the store holds {embeddings} vectors of {model} but this rebuild cannot write "
            f"vectors ({because}); pass --embed to re-embed, or --force to rebuild lexical-only"
        )


class VectorCoverageLow(PortError):
    """Vector coverage is below the floor, so the vector arm cannot be trusted."""

    def __init__(self, coverage: float, floor: float, reason: str) -> None:
        self.coverage = coverage
        self.floor = floor
        self.reason = reason
        super().__init__(f"vector coverage {coverage:.3f} is below the floor {floor:.2f}: {reason}")
