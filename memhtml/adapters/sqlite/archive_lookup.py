"""``SqliteArchiveLookup``: the archive lookup port over the scope filter of ``scope_sql``."""

from __future__ import annotations

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.scope_sql import archived_in_scope, scope_is_empty
from memhtml.domain.scope import SearchScope
from memhtml.ports.archive_lookup import ArchivedLookup


class SqliteArchiveLookup:
    """The :class:`memhtml.ports.archive_lookup.ArchiveLookup` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Read from ``db``."""
        self._db = db

    def scope_is_empty(self, scope: SearchScope) -> bool:
        """See ``ArchiveLookup.scope_is_empty``."""
        return scope_is_empty(self._db, scope)

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """See ``ArchiveLookup.archived_in_scope``."""
        return archived_in_scope(self._db, scope, limit)
