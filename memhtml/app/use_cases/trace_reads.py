"""``trace list`` and ``trace show``: the scanned sessions, and what one session did.

``trace show`` joins the two halves of the trace plane: the session's transcript (its row and
prompts, from ``trace scan``) and the memories it touched (``memory_session_links``, filed by
``write``, ``correct``, ``read`` and ``reinforce`` when a session id is known). Either half may
be missing: a session can touch memories before its transcript is scanned.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.domain.errors import InvalidInput, NotFound
from memhtml.domain.trace_extract import PromptRow
from memhtml.domain.trace_instants import query_instant
from memhtml.domain.trace_sessions import SessionQuery, SessionRow
from memhtml.ports.recorder import LINK_KINDS, Recorder, SessionLink
from memhtml.ports.trace_store import TraceStore

DEFAULT_TRACE_LIMIT: Final = 20
MAX_TRACE_LIMIT: Final = 500
SOURCES: Final = ("claude", "codex")


@attrs.frozen(kw_only=True)
class TraceListRequest:
    """``trace list``'s filters, as the caller typed them.

    Attributes:
        project: A working directory (sessions in it or under it) or a project slug.
        since, until: ISO dates or date-times; sessions active at or after ``since`` and
            starting before ``until``.
        source: ``claude`` or ``codex``.
        limit: 1–500 sessions.
    """

    project: str | None = None
    since: str | None = None
    until: str | None = None
    source: str | None = None
    limit: int = DEFAULT_TRACE_LIMIT


@attrs.frozen(kw_only=True)
class TraceListResult:
    """``trace.list``: sessions, latest activity first."""

    sessions: tuple[SessionRow, ...]


@attrs.frozen(kw_only=True)
class MemoriesTouched:
    """The distinct memory paths a session touched, per link kind, in first-touch order."""

    wrote: tuple[str, ...]
    read: tuple[str, ...]
    corrected: tuple[str, ...]
    reinforced: tuple[str, ...]


@attrs.frozen(kw_only=True)
class TraceDetail:
    """``trace.detail``.

    Attributes:
        session_id: The session asked about.
        session: Its scanned row, or None when no transcript of it was scanned.
        prompts: Its prompts, in order.
        memories: The memories it wrote, read, corrected and reinforced.
        links: Every session link, by instant.
    """

    session_id: str
    session: SessionRow | None
    prompts: tuple[PromptRow, ...]
    memories: MemoriesTouched
    links: tuple[SessionLink, ...]


def session_query(request: TraceListRequest) -> SessionQuery:
    """The store's query for ``request``.

    Raises:
        InvalidInput: A bad instant, source or limit, or ``since`` not before ``until``.
    """
    if not 1 <= request.limit <= MAX_TRACE_LIMIT:
        raise InvalidInput(f"--limit must be between 1 and {MAX_TRACE_LIMIT}")
    if request.source is not None and request.source not in SOURCES:
        raise InvalidInput(f"--source must be one of {', '.join(SOURCES)}")
    since = None if request.since is None else query_instant(request.since, "--since")
    until = None if request.until is None else query_instant(request.until, "--until")
    if since is not None and until is not None and since >= until:
        raise InvalidInput("--since must be before --until")
    project = request.project
    if project is not None:
        project = project.strip()
        project = (project.rstrip("/") or "/") if project else None
    return SessionQuery(
        project=project, since=since, until=until, source=request.source, limit=request.limit
    )


def list_traces(traces: TraceStore, request: TraceListRequest) -> TraceListResult:
    """Recent sessions passing ``request``'s filters.

    Raises:
        InvalidInput: See :func:`session_query`.
        StorageFailure: The trace plane cannot be read.
    """
    return TraceListResult(sessions=traces.sessions(session_query(request)))


def memories_touched(links: Sequence[SessionLink]) -> MemoriesTouched:
    """Distinct paths per kind, in the order ``links`` first name them."""
    by_kind: dict[str, dict[str, None]] = {kind: {} for kind in LINK_KINDS}
    for link in links:
        by_kind[link.kind].setdefault(link.path)
    return MemoriesTouched(
        wrote=tuple(by_kind["wrote"]),
        read=tuple(by_kind["read"]),
        corrected=tuple(by_kind["corrected"]),
        reinforced=tuple(by_kind["reinforced"]),
    )


def show_trace(traces: TraceStore, recorder: Recorder, session_id: str) -> TraceDetail:
    """One session: its row, prompts and the memories it touched.

    Raises:
        InvalidInput: ``session_id`` is blank.
        NotFound: Neither a scanned transcript nor a session link names the session.
        StorageFailure: The index cannot be read.
    """
    wanted = session_id.strip()
    if not wanted:
        raise InvalidInput("SESSION must not be blank")
    session = traces.session(wanted)
    links = recorder.session_links(session_id=wanted)
    if session is None and not links:
        raise NotFound(f"no session {wanted} in the trace plane; run `memhtml trace scan` first")
    return TraceDetail(
        session_id=wanted,
        session=session,
        prompts=traces.prompts(wanted) if session is not None else (),
        memories=memories_touched(links),
        links=links,
    )
