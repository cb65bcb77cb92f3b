"""``MemoryTraceStore``: the ``TraceStore`` port over ``MemoryTables``, built on the session
fold's pure twin (``memhtml.domain.trace_sessions``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from memhtml.adapters.memory.tables import MemoryTables, TraceFileRecord
from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_instants import instant_text
from memhtml.domain.trace_sessions import (
    SessionQuery,
    SessionRow,
    StoredFile,
    StoredPrompt,
    recent_first,
    session_admitted,
    session_row,
)
from memhtml.ports.errors import StorageFailure
from memhtml.ports.trace_store import FileMark, TraceCounts, TraceWrite


class MemoryTraceStore:
    """The :class:`memhtml.ports.trace_store.TraceStore` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Keep the trace plane in ``tables``."""
        self._t = tables

    def file_marks(self, file_paths: Sequence[str]) -> Mapping[str, FileMark]:
        """See ``TraceStore.file_marks``."""
        files = self._t.trace_files
        return {
            path: FileMark(watermark=record.watermark, session_id=record.extract.session_id)
            for path in dict.fromkeys(file_paths)
            if (record := files.get(path)) is not None
        }

    def stored_extract(self, file_path: str) -> FileExtract | None:
        """See ``TraceStore.stored_extract``."""
        record = self._t.trace_files.get(file_path)
        if record is None:
            return None
        prompts = sorted(
            (p.row for p in self._t.trace_prompts.values() if p.file_path == file_path),
            key=lambda row: (row.ordinal, row.prompt_id),
        )
        return attrs.evolve(record.extract, prompts=tuple(prompts))

    def persist(self, write: TraceWrite) -> None:
        """See ``TraceStore.persist``."""
        t = self._t
        if instant_text(write.watermark.mtime_ms) is None:
            raise StorageFailure("store transcript watermark")
        with t.transaction("store transcript"):
            if write.prompts_from == 0:
                stale = [k for k, p in t.trace_prompts.items() if p.file_path == write.file_path]
                for key in stale:
                    del t.trace_prompts[key]
            t.trace_files[write.file_path] = TraceFileRecord(
                watermark=write.watermark,
                scanned_at=write.at,
                extract=attrs.evolve(write.extract, prompts=()),
            )
            session = write.extract.session_id
            if session is not None:
                for prompt in write.extract.prompts:
                    if prompt.ordinal >= write.prompts_from:
                        stored = StoredPrompt(file_path=write.file_path, row=prompt)
                        t.trace_prompts.setdefault((session, prompt.prompt_id), stored)
            for touched in dict.fromkeys((write.previous_session_id, session)):
                if touched is not None:
                    self._recompute(touched, write.at)

    def _recompute(self, session_id: str, at: str) -> None:
        t = self._t
        files = [
            StoredFile(
                file_path=path,
                size=record.watermark.size,
                mtime=instant_text(record.watermark.mtime_ms) or "",
                extract=record.extract,
            )
            for path, record in t.trace_files.items()
            if record.extract.session_id == session_id
        ]
        prompts = [p for (s, _), p in t.trace_prompts.items() if s == session_id]
        row = session_row(session_id, files, prompts, indexed_at=at)
        if row is not None:
            t.traces[session_id] = row
            return
        # The row's prompts go with it, as SQLite's cascade takes them.
        t.traces.pop(session_id, None)
        for key in [k for k in t.trace_prompts if k[0] == session_id]:
            del t.trace_prompts[key]

    def sessions(self, query: SessionQuery) -> tuple[SessionRow, ...]:
        """See ``TraceStore.sessions``."""
        admitted = (row for row in self._t.traces.values() if session_admitted(query, row))
        return recent_first(admitted, query.limit)

    def session(self, session_id: str) -> SessionRow | None:
        """See ``TraceStore.session``."""
        return self._t.traces.get(session_id)

    def prompts(self, session_id: str) -> tuple[PromptRow, ...]:
        """See ``TraceStore.prompts``."""
        chosen = [p for (s, _), p in self._t.trace_prompts.items() if s == session_id]
        chosen.sort(key=lambda p: (p.row.at, p.file_path, p.row.ordinal, p.row.prompt_id))
        return tuple(p.row for p in chosen)

    def counts(self) -> TraceCounts:
        """See ``TraceStore.counts``."""
        t = self._t
        return TraceCounts(
            files=len(t.trace_files), sessions=len(t.traces), prompts=len(t.trace_prompts)
        )
