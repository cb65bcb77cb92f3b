"""``SqliteLinkGraph``: the link graph port over the ``edges`` table."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database
from memhtml.ports.link_graph import StoredLink

# Two index seeks (edges_src, edges_dst) rather than one OR, which SQLite would scan.
_TOUCHING_SQL: Final = (
    "SELECT src_path, rel, dst_path, edge_class, derived FROM edges "
    "WHERE src_path IN (SELECT value FROM json_each(?1)) "
    "UNION SELECT src_path, rel, dst_path, edge_class, derived FROM edges "
    "WHERE dst_path IN (SELECT value FROM json_each(?1)) "
    "ORDER BY 1, 2, 3"
)


class SqliteLinkGraph:
    """The :class:`memhtml.ports.link_graph.LinkGraph` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Read from ``db``."""
        self._db = db

    def links_touching(self, paths: Sequence[str]) -> tuple[StoredLink, ...]:
        """See ``LinkGraph.links_touching``."""
        if not paths:
            return ()
        rows = self._db.all(_TOUCHING_SQL, (json.dumps(list(paths)),), operation="read links")
        return tuple(
            StoredLink(
                src=str(src),
                rel=str(rel),
                dst=str(dst),
                edge_class=str(kind),
                derived=bool(derived),
            )
            for src, rel, dst, kind, derived in rows
        )
