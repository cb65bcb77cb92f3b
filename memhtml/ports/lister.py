"""The lister port: path-ordered keyset pages over the index, under a search scope."""

from __future__ import annotations

from typing import Protocol

import attrs

from memhtml.domain.scope import SearchScope


@attrs.frozen(kw_only=True)
class ListedMemory:
    """One row of ``list``: the ``files`` columns a caller needs to pick what to read."""

    path: str
    title: str
    memory_type: str
    gist: str
    workspace: str | None
    para: str
    confidence: float
    importance: int
    archived: bool
    updated_at: str


@attrs.frozen(kw_only=True)
class ListPage:
    """One page of memories, path ascending.

    Attributes:
        files: The page.
        next_cursor: The cursor of the next page (this page's last path), or None when no
            memory follows.
    """

    files: tuple[ListedMemory, ...]
    next_cursor: str | None


class Lister(Protocol):
    """Lists indexed memories by path; never ranks and never touches salience."""

    def list_page(
        self, scope: SearchScope, *, para: str | None, after: str | None, limit: int
    ) -> ListPage:
        """The first ``limit`` memories inside ``scope`` whose path sorts after ``after``.

        ``scope`` is the same predicate search applies (a memory a narrowing finds through
        search, it finds through list); ``para`` further requires the first path segment.
        Paths compare in plain binary order, so pages never overlap or skip under concurrent
        inserts elsewhere in the order.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
