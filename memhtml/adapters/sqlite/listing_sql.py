"""The :class:`memhtml.ports.lister.Lister` port: keyset pages over ``files`` by path.

The scope filter is :func:`memhtml.adapters.sqlite.scope_sql.assemble_scope`, the string every
ranking arm receives, so ``list`` and ``search`` can never disagree on what a scope admits.
"""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.connection import Database, Row, SqlValue
from memhtml.adapters.sqlite.scope_sql import assemble_scope
from memhtml.domain.scope import SearchScope
from memhtml.ports.errors import StorageFailure
from memhtml.ports.lister import ListedMemory, ListPage

_OPERATION: Final = "list memories"
_ALIAS: Final = "f"
_COLUMNS: Final = (
    "f.path, f.title, f.memory_type, f.gist, f.workspace, f.para, f.confidence, f.importance, "
    "f.archived, f.updated_at"
)


def listing_sql(
    scope: SearchScope, *, para: str | None, after: str | None
) -> tuple[str, list[SqlValue]]:
    """The page statement and its values, the limit bound last.

    The scope's values take ``?1`` onward; ``para``, the cursor and the limit follow.
    """
    assembled = assemble_scope(scope, first_param=1)
    params: list[SqlValue] = list(assembled.params)
    extra: list[str] = []
    if para is not None:
        params.append(para)
        extra.append(f"AND {_ALIAS}.para = ?{len(params)}")
    if after is not None:
        params.append(after)
        extra.append(f"AND {_ALIAS}.path > ?{len(params)}")
    limit_mark = f"?{len(params) + 1}"
    sql = (
        f"SELECT {_COLUMNS} FROM files {_ALIAS} WHERE 1 {assembled.for_alias(_ALIAS)} "
        f"{' '.join(extra)} ORDER BY {_ALIAS}.path LIMIT {limit_mark}"
    )
    return sql, params


class SqliteLister:
    """Lists the memories of one index."""

    def __init__(self, db: Database) -> None:
        """List the memories of ``db``."""
        self._db = db

    def list_page(
        self, scope: SearchScope, *, para: str | None, after: str | None, limit: int
    ) -> ListPage:
        """One page; one row past ``limit`` is fetched to tell whether another page follows.

        Raises:
            StorageFailure: The index cannot be read.
        """
        sql, params = listing_sql(scope, para=para, after=after)
        rows = self._db.all(sql, (*params, limit + 1), operation=_OPERATION)
        files = tuple(_listed(row) for row in rows[:limit])
        more = len(rows) > limit and bool(files)
        return ListPage(files=files, next_cursor=files[-1].path if more else None)


def _listed(row: Row) -> ListedMemory:
    path, title, kind, gist, workspace, para, confidence, importance, archived, updated = row
    if not isinstance(confidence, int | float) or not isinstance(importance, int):
        raise StorageFailure(_OPERATION)
    return ListedMemory(
        path=str(path),
        title=str(title),
        memory_type=str(kind),
        gist=str(gist),
        workspace=None if workspace is None else str(workspace),
        para=str(para),
        confidence=float(confidence),
        importance=importance,
        archived=bool(archived),
        updated_at=str(updated),
    )
