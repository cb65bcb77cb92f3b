"""The archive lookup port: whether a scope holds anything, and what of it was archived."""

from __future__ import annotations

from typing import Protocol

import attrs

from memhtml.domain.scope import SearchScope


@attrs.frozen(kw_only=True)
class ArchivedMatch:
    """An archived memory the scope of an empty search still matches, and what replaced it."""

    path: str
    superseded_by: str | None


@attrs.frozen(kw_only=True)
class ArchivedLookup:
    """How many archived memories a scope matches, and up to ``limit`` of them by path."""

    count: int
    matches: tuple[ArchivedMatch, ...]


class ArchiveLookup(Protocol):
    """Scope questions that are matches, not rankings; read-only."""

    def scope_is_empty(self, scope: SearchScope) -> bool:
        """A narrowing scope (type, entity, facet, workspace, path, as-of) that holds no memory
        at all; ``False`` for an open scope, whatever the index holds.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def archived_in_scope(self, scope: SearchScope, limit: int) -> ArchivedLookup:
        """The same scope over archived memories only: the count and the first ``limit`` paths.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
