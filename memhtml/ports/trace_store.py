"""The trace plane's storage: transcript watermarks, per-file extracts, sessions and prompts.

Nothing here is rebuilt from git: an index rebuild never empties these tables and retrieval
never reads them (docs/index-schema.md §6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import attrs

from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_sessions import SessionQuery, SessionRow
from memhtml.domain.trace_watermarks import Watermark


@attrs.frozen(kw_only=True)
class FileMark:
    """What the store holds about one transcript file before it is read again.

    Attributes:
        watermark: The last scan's watermark.
        session_id: The session the file's stored extract belongs to, if any.
    """

    watermark: Watermark
    session_id: str | None


@attrs.frozen(kw_only=True)
class TraceWrite:
    """One scanned file's persistence: its whole extract, its prompts, its watermark.

    Attributes:
        file_path: The transcript's absolute path.
        extract: The extract of the file's consumed bytes, all of them (a tail's extract has
            been merged into the stored one already).
        watermark: The new watermark.
        prompts_from: Prompts with a lower ordinal are stored already; 0 replaces the file's
            stored prompts (a rescan).
        previous_session_id: The session the stored extract belonged to, so its row is
            recomputed (or dropped) when the file now names another.
        at: The write's instant (``scanned_at``, ``indexed_at``), a trace instant.
    """

    file_path: str
    extract: FileExtract
    watermark: Watermark
    prompts_from: int
    previous_session_id: str | None
    at: str


@attrs.frozen(kw_only=True)
class TraceCounts:
    """Rows of the trace plane: scanned files, sessions, prompts."""

    files: int
    sessions: int
    prompts: int


class TraceStore(Protocol):
    """Reads and writes the trace plane. Every storage error is ``StorageFailure``."""

    def file_marks(self, file_paths: Sequence[str]) -> Mapping[str, FileMark]:
        """The stored mark of each of ``file_paths`` that has one.

        Raises:
            StorageFailure: The store cannot be read.
        """
        ...

    def stored_extract(self, file_path: str) -> FileExtract | None:
        """The file's stored extract with its stored prompts in ordinal order, or None.

        Raises:
            StorageFailure: The store cannot be read.
        """
        ...

    def persist(self, write: TraceWrite) -> None:
        """Store one file's extract, prompts and watermark in one transaction, and recompute
        the rows of its session (and of ``previous_session_id``; a session left without files
        is dropped with its prompts).

        A file without a session id stores its extract and watermark, never prompts. A prompt
        id the session already holds (from another of its files) is kept as it was.

        Raises:
            StorageFailure: Nothing of the write remains.
        """
        ...

    def sessions(self, query: SessionQuery) -> tuple[SessionRow, ...]:
        """Sessions passing ``query``, latest activity first, ties by session id.

        Raises:
            StorageFailure: The store cannot be read.
        """
        ...

    def session(self, session_id: str) -> SessionRow | None:
        """One session's row, or None.

        Raises:
            StorageFailure: The store cannot be read.
        """
        ...

    def prompts(self, session_id: str) -> tuple[PromptRow, ...]:
        """The session's prompts, by instant, then file path, then ordinal.

        Raises:
            StorageFailure: The store cannot be read.
        """
        ...

    def counts(self) -> TraceCounts:
        """How many files, sessions and prompts are stored.

        Raises:
            StorageFailure: The store cannot be read.
        """
        ...
