"""``SqliteRecorder``: the ``Recorder`` port over ``index.db``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, Row, SqlValue, Write
from memhtml.ports.errors import StorageFailure
from memhtml.ports.recorder import LINK_KINDS, SessionLink

# The predicate of `files_content_hash_active`, word for word, so SQLite can answer from that
# partial index and the lookup can never see a row the constraint does not (docs/decisions.md §14).
_ACTIVE_PATH_FOR_HASH: Final = (
    "SELECT path FROM files "
    "WHERE content_hash = ? AND archived = 0 AND memory_type <> 'task' "
    "ORDER BY path LIMIT 1"
)
# The primary key is the whole identity of a link, so a repeat is ignored, never an error.
_INSERT_LINK: Final = (
    "INSERT INTO memory_session_links (path, session_id, link_kind, at, prompt_id, turn_uuid) "
    "VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (path, session_id, link_kind, at) DO NOTHING"
)
_SELECT_LINKS: Final = (
    "SELECT path, session_id, link_kind, at, prompt_id, turn_uuid FROM memory_session_links "
    "WHERE (?1 IS NULL OR path = ?1) AND (?2 IS NULL OR session_id = ?2) "
    "ORDER BY at, path, session_id, link_kind"
)


class SqliteRecorder:
    """The write path's recorder over one ``Database`` (not thread-safe, like the connection)."""

    def __init__(self, db: Database) -> None:
        """Bind the recorder to an open, migrated index."""
        self._db = db

    def active_path_for_hash(self, content_hash: str) -> str | None:
        """See ``Recorder.active_path_for_hash``."""
        row = self._db.get(_ACTIVE_PATH_FOR_HASH, (content_hash,), operation="dedup lookup")
        return None if row is None else str(row[0])

    def record_session_links(self, links: Sequence[SessionLink]) -> None:
        """See ``Recorder.record_session_links``."""
        writes: list[Write] = [
            (
                _INSERT_LINK,
                (link.path, link.session_id, link.kind, link.at, link.prompt_id, link.turn_uuid),
            )
            for link in links
        ]
        self._db.write_all(writes, operation="record session links")

    def session_links(
        self, *, path: str | None = None, session_id: str | None = None
    ) -> tuple[SessionLink, ...]:
        """See ``Recorder.session_links``."""
        rows = self._db.all(_SELECT_LINKS, (path, session_id), operation="read session links")
        return tuple(_link_of(row) for row in rows)


def _link_of(row: Row) -> SessionLink:
    path, session_id, kind, at, prompt_id, turn_uuid = row
    # The table's CHECK admits only these kinds; anything else means a damaged file.
    for known in LINK_KINDS:
        if kind == known:
            return SessionLink(
                path=str(path),
                session_id=str(session_id),
                kind=known,
                at=str(at),
                prompt_id=_text(prompt_id),
                turn_uuid=_text(turn_uuid),
            )
    raise StorageFailure("read session links")


def _text(value: SqlValue) -> str | None:
    return None if value is None else str(value)
