"""``SqliteAccessStore``: the access store port over the conditional upsert of ``reinforce_sql``."""

from __future__ import annotations

from collections.abc import Sequence

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.reinforce_sql import reinforce_paths, unknown_paths
from memhtml.domain.reinforce import ReinforceResult, Signal


class SqliteAccessStore:
    """The :class:`memhtml.ports.access_store.AccessStore` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Bump rows of ``db``'s attached state plane."""
        self._db = db

    def missing_paths(self, paths: Sequence[str]) -> tuple[str, ...]:
        """See ``AccessStore.missing_paths``."""
        return unknown_paths(self._db, paths)

    def reinforce(self, paths: Sequence[str], signal: Signal, now: str) -> ReinforceResult:
        """See ``AccessStore.reinforce``."""
        return reinforce_paths(self._db, paths, signal, now)
