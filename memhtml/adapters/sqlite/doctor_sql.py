"""The :class:`memhtml.ports.health.HealthProbe` and ``OrphanPruner`` ports over ``index.db`` and
``state.db``."""

from __future__ import annotations

from typing import Final

from memhtml.adapters.sqlite.connection import Database, SqlValue
from memhtml.ports.errors import StorageFailure
from memhtml.ports.health import ContradictionLink, DanglingLink, FrameClaim, InboxDepths

INBOX_PREFIX: Final = "areas/inbox/"

DANGLING_SQL: Final = (
    "SELECT e.src_path, e.rel, e.dst_path, "
    "(SELECT min(a.path) FROM files a WHERE a.archived = 1 AND a.origin_path = e.dst_path) "
    "FROM edges e WHERE e.derived = 0 AND e.edge_class <> 'provenance' "
    "AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path = e.dst_path) "
    "ORDER BY e.src_path, e.rel, e.dst_path"
)
"""Provenance edges point at sessions, not files, so they can never resolve and are left out."""

ORPHAN_SQL: Final = (
    "SELECT s.path FROM state.access s "
    "WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = s.path) ORDER BY s.path"
)

PRUNE_ORPHANS_SQL: Final = (
    "DELETE FROM state.access "
    "WHERE NOT EXISTS (SELECT 1 FROM main.files f WHERE f.path = state.access.path) "
    "RETURNING path"
)

# substr rather than LIKE: LIKE folds ASCII case and treats `_` as a wildcard.
INBOX_SQL: Final = (
    "SELECT coalesce(sum(memory_type <> 'task'), 0), coalesce(sum(memory_type = 'task'), 0) "
    f"FROM files WHERE archived = 0 AND substr(path, 1, {len(INBOX_PREFIX)}) = ?1"
)

# The inner lookup is files_frame_key_active's predicate, so each row costs one index probe.
SHARED_FRAMES_SQL: Final = (
    "SELECT f.frame_key, f.path, f.gist FROM files f "
    "WHERE f.archived = 0 AND f.memory_type <> 'task' AND f.frame_key IS NOT NULL "
    "AND EXISTS (SELECT 1 FROM files o WHERE o.frame_key = f.frame_key AND o.path <> f.path "
    "AND o.archived = 0 AND o.memory_type <> 'task') "
    "ORDER BY f.frame_key, f.path"
)

CONTRADICTIONS_SQL: Final = (
    "SELECT e.src_path, s.gist, e.dst_path, d.gist FROM edges e "
    "JOIN files s ON s.path = e.src_path AND s.archived = 0 "
    "JOIN files d ON d.path = e.dst_path AND d.archived = 0 "
    "WHERE e.rel = 'contradicts' ORDER BY e.src_path, e.dst_path"
)
"""Both ends indexed and active: a contradiction with an archived side is already resolved."""


class SqliteHealthProbe:
    """The doctor's index-side checks over one connection, and its orphan-row repair."""

    def __init__(self, db: Database) -> None:
        """Probe ``db`` (its state plane when attached)."""
        self._db = db

    def dangling_links(self) -> tuple[DanglingLink, ...]:
        """Authored edges to targets the index does not hold, with an archived copy if any."""
        rows = self._db.all(DANGLING_SQL, operation="find dangling links")
        return tuple(
            DanglingLink(
                src_path=str(src),
                rel=str(rel),
                dst_path=str(dst),
                rewrite_to=None if to is None else str(to),
            )
            for src, rel, dst, to in rows
        )

    def orphan_access_rows(self) -> tuple[str, ...]:
        """State rows for paths the index does not hold; empty without a state plane."""
        if not self._db.has_state:
            return ()
        rows = self._db.all(ORPHAN_SQL, operation="find orphan access rows")
        return tuple(str(row[0]) for row in rows)

    def prune_orphan_access_rows(self) -> tuple[str, ...]:
        """Delete state rows the index does not hold, in one statement; their paths, sorted."""
        if not self._db.has_state:
            return ()
        rows = self._db.all(PRUNE_ORPHANS_SQL, operation="prune orphan access rows")
        return tuple(sorted(str(row[0]) for row in rows))

    def inbox_depths(self) -> InboxDepths:
        """Active memories and tasks under ``areas/inbox/``."""
        operation = "count the inbox"
        row = self._db.get(INBOX_SQL, (INBOX_PREFIX,), operation=operation)
        if row is None:
            raise StorageFailure(operation)
        return InboxDepths(memories=_count(row[0], operation), tasks=_count(row[1], operation))

    def shared_frames(self) -> tuple[FrameClaim, ...]:
        """See ``HealthProbe.shared_frames``."""
        rows = self._db.all(SHARED_FRAMES_SQL, operation="find shared frame keys")
        return tuple(
            FrameClaim(frame_key=str(key), path=str(path), gist=str(gist))
            for key, path, gist in rows
        )

    def active_contradictions(self) -> tuple[ContradictionLink, ...]:
        """See ``HealthProbe.active_contradictions``."""
        rows = self._db.all(CONTRADICTIONS_SQL, operation="find contradictions")
        return tuple(
            ContradictionLink(
                src_path=str(src), src_gist=str(sg), dst_path=str(dst), dst_gist=str(dg)
            )
            for src, sg, dst, dg in rows
        )


def _count(value: SqlValue, operation: str) -> int:
    if isinstance(value, int):
        return value
    raise StorageFailure(operation)
