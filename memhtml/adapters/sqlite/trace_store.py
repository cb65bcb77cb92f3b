"""``SqliteTraceStore``: the ``TraceStore`` port over ``index.db``'s trace tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from memhtml.adapters.sqlite import trace_sql as sql
from memhtml.adapters.sqlite.connection import Database, Row, SqlValue, Write
from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_instants import instant_millis, instant_text
from memhtml.domain.trace_sessions import SessionQuery, SessionRow, project_slug
from memhtml.domain.trace_watermarks import Watermark
from memhtml.ports.errors import StorageFailure
from memhtml.ports.trace_store import FileMark, TraceCounts, TraceWrite

_SLICE: Final = 500


class SqliteTraceStore:
    """The trace plane over one ``Database`` (not thread-safe, like the connection)."""

    def __init__(self, db: Database) -> None:
        """Bind the store to an open, migrated index."""
        self._db = db

    def file_marks(self, file_paths: Sequence[str]) -> Mapping[str, FileMark]:
        """See ``TraceStore.file_marks``."""
        marks: dict[str, FileMark] = {}
        unique = list(dict.fromkeys(file_paths))
        for start in range(0, len(unique), _SLICE):
            part = unique[start : start + _SLICE]
            statement = sql.FILE_MARKS.format(marks=", ".join("?" for _ in part))
            for path, size, mtime, byte_off, session_id in self._db.all(
                statement, part, operation="read transcript watermarks"
            ):
                marks[str(path)] = FileMark(
                    watermark=Watermark(
                        size=_int(size), mtime_ms=_mtime_ms(mtime), byte_off=_int(byte_off)
                    ),
                    session_id=_text(session_id),
                )
        return marks

    def stored_extract(self, file_path: str) -> FileExtract | None:
        """See ``TraceStore.stored_extract``."""
        row = self._db.get(sql.FILE_EXTRACT, (file_path,), operation="read transcript extract")
        if row is None:
            return None
        rows = self._db.all(sql.FILE_PROMPTS, (file_path,), operation="read transcript extract")
        return _extract_of(row, tuple(_prompt_of(p) for p in rows))

    def persist(self, write: TraceWrite) -> None:
        """See ``TraceStore.persist``."""
        e, w = write.extract, write.watermark
        writes: list[Write] = []
        if write.prompts_from == 0:
            writes.append((sql.DELETE_FILE_PROMPTS, (write.file_path,)))
        writes.append(
            (
                sql.UPSERT_FILE,
                (
                    write.file_path,
                    e.session_id,
                    e.source,
                    int(e.sidechain),
                    e.agent_id,
                    e.cwd,
                    None if e.cwd is None else project_slug(e.cwd),
                    e.entrypoint,
                    e.git_branch,
                    e.model,
                    e.version,
                    e.ai_title,
                    e.started_at,
                    e.ended_at,
                    e.turn_count,
                ),
            )
        )
        writes.append(
            (
                sql.UPSERT_WATERMARK,
                (write.file_path, w.size, _mtime_text(w.mtime_ms), w.byte_off, write.at),
            )
        )
        session = e.session_id
        if session is not None:
            writes.append((sql.SESSION_PLACEHOLDER, (session, write.file_path, write.at)))
            writes.extend(
                (
                    sql.INSERT_PROMPT,
                    (
                        session,
                        p.prompt_id,
                        p.turn_uuid,
                        p.ordinal,
                        p.at,
                        p.agent_id,
                        p.text_head,
                        write.file_path,
                    ),
                )
                for p in e.prompts
                if p.ordinal >= write.prompts_from
            )
        for touched in dict.fromkeys((write.previous_session_id, session)):
            if touched is not None:
                writes.append((sql.DROP_EMPTY_SESSION, (touched,)))
                writes.append((sql.SESSION_UPSERT, (touched, write.at)))
        self._db.write_all(writes, operation="store transcript")

    def sessions(self, query: SessionQuery) -> tuple[SessionRow, ...]:
        """See ``TraceStore.sessions``."""
        params = (
            query.project,
            query.project_prefix,
            query.since,
            query.until,
            query.source,
            query.limit,
        )
        rows = self._db.all(sql.SESSIONS, params, operation="list sessions")
        return tuple(_session_of(row) for row in rows)

    def session(self, session_id: str) -> SessionRow | None:
        """See ``TraceStore.session``."""
        row = self._db.get(sql.ONE_SESSION, (session_id,), operation="read session")
        return None if row is None else _session_of(row)

    def prompts(self, session_id: str) -> tuple[PromptRow, ...]:
        """See ``TraceStore.prompts``."""
        rows = self._db.all(sql.SESSION_PROMPTS, (session_id,), operation="read session prompts")
        return tuple(_prompt_of(row) for row in rows)

    def counts(self) -> TraceCounts:
        """See ``TraceStore.counts``."""
        row = self._db.get(sql.COUNTS, operation="count trace rows")
        if row is None:
            raise StorageFailure("count trace rows")
        files, sessions, prompts = row
        return TraceCounts(files=_int(files), sessions=_int(sessions), prompts=_int(prompts))


def _text(value: SqlValue) -> str | None:
    return None if value is None else str(value)


def _int(value: SqlValue) -> int:
    if isinstance(value, int):
        return value
    raise StorageFailure("read trace rows")


def _mtime_text(ms: int) -> str:
    text = instant_text(ms)
    if text is None:
        raise StorageFailure("store transcript watermark")
    return text


def _mtime_ms(value: SqlValue) -> int:
    ms = instant_millis(value) if isinstance(value, str) else None
    if ms is None:
        raise StorageFailure("read transcript watermarks")
    return ms


def _extract_of(row: Row, prompts: tuple[PromptRow, ...]) -> FileExtract:
    (source, session_id, sidechain, agent_id, cwd, entrypoint, branch, model, version, title,
     started, ended, turns) = row  # fmt: skip
    return FileExtract(
        source="claude" if source == "claude" else "codex" if source == "codex" else None,
        session_id=_text(session_id),
        sidechain=bool(sidechain),
        agent_id=_text(agent_id),
        cwd=_text(cwd),
        entrypoint=_text(entrypoint),
        git_branch=_text(branch),
        model=_text(model),
        version=_text(version),
        ai_title=_text(title),
        started_at=_text(started),
        ended_at=_text(ended),
        turn_count=_int(turns),
        prompts=prompts,
    )


def _prompt_of(row: Row) -> PromptRow:
    prompt_id, turn_uuid, ordinal, at, agent_id, text_head = row
    return PromptRow(
        prompt_id=str(prompt_id),
        turn_uuid=str(turn_uuid),
        ordinal=_int(ordinal),
        at=str(at),
        agent_id=_text(agent_id),
        text_head=str(text_head),
    )


def _session_of(row: Row) -> SessionRow:
    (session_id, source, slug, cwd, branch, entrypoint, model, version, started, ended,
     prompts, turns, agents, first_prompt, title, file_path, file_size, file_mtime,
     search_text, indexed_at) = row  # fmt: skip
    return SessionRow(
        session_id=str(session_id),
        source="claude" if source == "claude" else "codex" if source == "codex" else None,
        slug=str(slug),
        cwd=_text(cwd),
        git_branch=_text(branch),
        entrypoint=_text(entrypoint),
        model=_text(model),
        version=_text(version),
        started_at=_text(started),
        ended_at=_text(ended),
        prompt_count=_int(prompts),
        turn_count=_int(turns),
        agent_count=_int(agents),
        first_prompt=str(first_prompt),
        ai_title=_text(title),
        file_path=str(file_path),
        file_size=_int(file_size),
        file_mtime=str(file_mtime),
        search_text=str(search_text),
        indexed_at=str(indexed_at),
    )
