"""``trace list`` and ``trace show``: request checks, and a session's two halves joined."""

from __future__ import annotations

import pytest

from memhtml.adapters.memory.state import MemoryRecorder
from memhtml.adapters.memory.tables import MemoryTables
from memhtml.adapters.memory.trace_store import MemoryTraceStore
from memhtml.app.use_cases.trace_reads import (
    TraceListRequest,
    list_traces,
    session_query,
    show_trace,
)
from memhtml.domain.errors import InvalidInput, NotFound
from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_sessions import SessionQuery
from memhtml.domain.trace_watermarks import Watermark
from memhtml.ports.recorder import SessionLink
from memhtml.ports.trace_store import TraceWrite

AT = "2026-09-14T07:02:11.000Z"


def _stores() -> tuple[MemoryTraceStore, MemoryRecorder]:
    tables = MemoryTables()
    traces = MemoryTraceStore(tables)
    prompt = PromptRow(
        prompt_id="p1", turn_uuid="p1", ordinal=0, at=AT, agent_id=None, text_head="Fix it."
    )
    traces.persist(
        TraceWrite(
            file_path="/t/s1.jsonl",
            extract=FileExtract(
                source="claude", session_id="s1", cwd="/home/ada/shop", prompts=(prompt,)
            ),
            watermark=Watermark(size=10, mtime_ms=0, byte_off=10),
            prompts_from=0,
            previous_session_id=None,
            at=AT,
        )
    )
    return traces, MemoryRecorder(tables)


def _link(path: str, kind: str, at: str, session: str = "s1") -> SessionLink:
    return SessionLink(path=path, session_id=session, kind=kind, at=at)  # type: ignore[arg-type]


def test_show_joins_the_transcript_and_the_memories_it_touched() -> None:
    """Prompts from the scan; distinct paths per kind, in first-touch order, from the links."""
    traces, recorder = _stores()
    recorder.record_session_links(
        [
            _link("areas/b.html", "read", "2026-09-14T07:05:00Z"),
            _link("areas/a.html", "wrote", "2026-09-14T07:03:00Z"),
            _link("areas/b.html", "read", "2026-09-14T07:09:00Z"),
            _link("areas/a.html", "read", "2026-09-14T07:04:00Z"),
            _link("areas/z.html", "read", "2026-09-14T07:00:00Z", session="other"),
        ]
    )
    detail = show_trace(traces, recorder, " s1 ")
    assert ("s1", ["Fix it."], ("areas/a.html",), ("areas/a.html", "areas/b.html"), 4) == (
        detail.session_id,
        [p.text_head for p in detail.prompts],
        detail.memories.wrote,
        detail.memories.read,
        len(detail.links),
    )


def test_show_answers_a_session_known_only_by_its_links() -> None:
    """No transcript scanned yet: no row, no prompts, the links still listed."""
    traces, recorder = _stores()
    recorder.record_session_links([_link("areas/a.html", "wrote", AT, session="s7")])
    detail = show_trace(traces, recorder, "s7")
    assert (None, (), ("areas/a.html",)) == (detail.session, detail.prompts, detail.memories.wrote)


def test_show_of_an_unknown_session_is_not_found() -> None:
    """Neither a transcript nor a link: NotFound, which says how to scan."""
    traces, recorder = _stores()
    with pytest.raises(NotFound, match="trace scan"):
        show_trace(traces, recorder, "nobody")
    with pytest.raises(InvalidInput):
        show_trace(traces, recorder, "  ")


def test_list_requests_normalise_and_refuse() -> None:
    """Dates become trace instants, a project loses its trailing slash; bad values refuse."""
    assert SessionQuery(
        project="/home/ada/shop",
        since="2026-09-01T00:00:00.000Z",
        until="2026-09-02T10:00:00.000Z",
        source="codex",
        limit=5,
    ) == session_query(
        TraceListRequest(
            project="/home/ada/shop/",
            since="2026-09-01",
            until="2026-09-02T12:00:00+02:00",
            source="codex",
            limit=5,
        )
    )
    assert "/" == session_query(TraceListRequest(project="/")).project
    for bad in (
        TraceListRequest(since="2026-09-02", until="2026-09-01"),
        TraceListRequest(source="gemini"),
        TraceListRequest(limit=0),
        TraceListRequest(since="last tuesday"),
    ):
        with pytest.raises(InvalidInput):
            session_query(bad)


def test_list_returns_the_store_answer_for_the_request() -> None:
    """The project filter reaches the store."""
    traces, _ = _stores()
    assert (["s1"], []) == (
        [r.session_id for r in list_traces(traces, TraceListRequest()).sessions],
        [r.session_id for r in list_traces(traces, TraceListRequest(project="/x")).sessions],
    )
