"""``trace scan`` over in-memory files and the in-memory trace store: skip, tail and rescan,
torn and rewritten files, garbage, failures, progress."""

from __future__ import annotations

import datetime as dt
import itertools

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.memory.tables import MemoryTables
from memhtml.adapters.memory.trace_store import MemoryTraceStore
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.use_cases.trace_scan import (
    TraceScanPorts,
    TraceScanReport,
    default_transcript_roots,
    scan_traces,
)
from memhtml.domain.trace_sessions import SessionQuery
from memhtml.ports.trace_store import TraceWrite
from tests.fakes.progress import FakeProgress
from tests.fakes.transcripts import FakeTranscripts
from tests.strategies import claude_lines, codex_lines

ROOT = "/home/ada/.claude/projects"
FILE = f"{ROOT}/-home-ada-shop/s1.jsonl"


def prompt_line(
    uuid: str, text: str, session: str = "s1", stamp: str = "2026-01-01T00:00:00Z"
) -> bytes:
    """A Claude Code prompt line."""
    return (
        f'{{"type":"user","sessionId":"{session}","uuid":"{uuid}","cwd":"/home/ada/shop",'
        f'"timestamp":"{stamp}","message":{{"role":"user","content":"{text}"}}}}\n'
    ).encode()


class CountingStore(MemoryTraceStore):
    """The in-memory store, remembering every write it was asked for."""

    def __init__(self) -> None:
        super().__init__(MemoryTables())
        self.writes: list[TraceWrite] = []

    def persist(self, write: TraceWrite) -> None:
        self.writes.append(write)
        super().persist(write)


@attrs.define
class Rig:
    """Files, store and clock of one scan setup."""

    files: FakeTranscripts = attrs.Factory(FakeTranscripts)
    store: CountingStore = attrs.Factory(CountingStore)
    clock: FixedClock = attrs.Factory(lambda: FixedClock(dt.datetime(2026, 9, 1, tzinfo=dt.UTC)))

    def scan(self, chunk_bytes: int = 64, progress: FakeProgress | None = None) -> TraceScanReport:
        ports = TraceScanPorts(files=self.files, traces=self.store, clock=self.clock)
        if progress is None:
            return scan_traces(ports, [ROOT], chunk_bytes=chunk_bytes)
        return scan_traces(ports, [ROOT], chunk_bytes=chunk_bytes, progress=progress)

    def state(self) -> tuple[object, ...]:
        """Everything the port answers, minus the instants (of writes and of modifications)."""
        t = self.store
        sessions = tuple(
            attrs.evolve(r, indexed_at="", file_mtime="")
            for r in t.sessions(SessionQuery(limit=50))
        )
        paths = sorted(self.files.files)
        marks = {p: t.file_marks([p]).get(p) for p in paths}
        return (
            t.counts(),
            sessions,
            {
                p: None if m is None else (m.watermark.size, m.watermark.byte_off, m.session_id)
                for p, m in marks.items()
            },
            [t.stored_extract(p) for p in paths],
            [t.prompts(r.session_id) for r in sessions],
        )


def test_a_second_scan_of_unchanged_files_reads_and_writes_nothing() -> None:
    """Unchanged files are skipped: not opened, nothing persisted."""
    rig = Rig()
    rig.files.write(FILE, prompt_line("u1", "hello") + prompt_line("u2", "again"))
    first = rig.scan()
    reads, writes = len(rig.files.reads), len(rig.store.writes)
    second = rig.scan()
    assert (1, 0, 2) == (first.rescanned, first.skipped, first.prompts_written)
    assert (1, 0, 0, 0) == (second.skipped, second.rescanned, second.tailed, second.bytes_read)
    assert (reads, writes) == (len(rig.files.reads), len(rig.store.writes))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(claude_lines(), codex_lines()), min_size=1, max_size=20),
    st.lists(st.integers(min_value=0, max_value=3000), max_size=5),
)
def test_a_growing_file_scanned_at_several_sizes_equals_one_rescan(
    lines: list[bytes], cuts: list[int]
) -> None:
    """Appending in pieces (torn lines included) and scanning after each lands where a single
    scan of the final file lands, and every tail reads from where the last scan stopped."""
    data = b"".join(lines)
    growing, once = Rig(), Rig()
    edges = [0, *sorted({c for c in cuts if c <= len(data)}), len(data)]
    ends: list[int] = []
    for a, b in itertools.pairwise(edges):
        growing.files.append(FILE, data[a:b])
        growing.scan(chunk_bytes=7)
        mark = growing.store.file_marks([FILE]).get(FILE)
        ends.append(0 if mark is None else mark.watermark.byte_off)
    once.files.write(FILE, data)
    once.scan(chunk_bytes=7)
    assert once.state() == growing.state()
    starts = [start for _, start, end in growing.files.reads if end - start != 1 or start == 0]
    assert all(start in (0, *ends) for start in starts)


def test_a_torn_last_line_is_read_once_it_is_finished() -> None:
    """A half-written line is pending; the next scan tails from before it and reads it whole."""
    rig = Rig()
    whole = prompt_line("u2", "second")
    rig.files.write(FILE, prompt_line("u1", "first") + whole[:20])
    torn = rig.scan()
    rig.files.append(FILE, whole[20:])
    finished = rig.scan()
    assert (20, 1) == (torn.pending_bytes, torn.prompts_written)
    assert (1, 0, 1) == (finished.tailed, finished.pending_bytes, finished.prompts_written)
    assert ["first", "second"] == [p.text_head for p in rig.store.prompts("s1")]


def test_a_rewritten_shorter_file_is_rescanned_and_its_old_session_goes() -> None:
    """A shrunk file is read from the start; its previous session, left without files, goes."""
    rig = Rig()
    rig.files.write(FILE, prompt_line("u1", "first") + prompt_line("u2", "second"))
    rig.scan()
    rig.files.write(FILE, prompt_line("v1", "new", session="s2"))
    report = rig.scan()
    assert (1, 0) == (report.rescanned, report.tailed)
    assert (None, ["new"]) == (
        rig.store.session("s1"),
        [p.text_head for p in rig.store.prompts("s2")],
    )


def test_a_rewritten_longer_file_fails_the_newline_check_and_is_rescanned() -> None:
    """Grown past its old size but rewritten: the byte before the tail is not a newline."""
    rig = Rig()
    rig.files.write(FILE, prompt_line("u1", "first"))
    rig.scan()
    rig.files.write(FILE, b" " + prompt_line("v1", "other") + prompt_line("v2", "more"))
    report = rig.scan()
    assert (1, 0) == (report.rescanned, report.tailed)
    assert ["other", "more"] == [p.text_head for p in rig.store.prompts("s1")]


def test_binary_garbage_is_read_once_and_names_no_session() -> None:
    """Garbage is counted as malformed, keeps a watermark, and is skipped next time."""
    rig = Rig()
    rig.files.write(f"{ROOT}/x/garbage.jsonl", bytes(range(256)) * 8 + b"\n")
    first = rig.scan()
    second = rig.scan()
    assert (1, 0, 1) == (first.no_session, first.sessions, second.skipped)
    assert first.records.malformed == first.records.lines > 0


def test_an_unreadable_file_is_reported_and_read_on_a_later_scan() -> None:
    """One bad file does not stop the others and leaves no watermark."""
    rig = Rig()
    bad = f"{ROOT}/-p/bad.jsonl"
    rig.files.write(bad, prompt_line("b1", "locked", session="s9"))
    rig.files.write(FILE, prompt_line("u1", "hello"))
    rig.files.unreadable.add(bad)
    report = rig.scan()
    rig.files.unreadable.clear()
    retried = rig.scan()
    assert ([(bad, "Permission denied")], 1) == (
        [(f.path, f.reason) for f in report.failed],
        report.rescanned,
    )
    assert (1, 1) == (retried.rescanned, retried.skipped)


def test_progress_counts_the_bytes_to_read() -> None:
    """One scanning phase whose total is the bytes read; a tail counts only its new bytes."""
    rig = Rig()
    rig.files.write(FILE, prompt_line("u1", "hello"))
    first = FakeProgress()
    rig.scan(progress=first)
    added = prompt_line("u2", "more")
    rig.files.append(FILE, added)
    second = FakeProgress()
    rig.scan(progress=second)
    size = len(prompt_line("u1", "hello"))
    assert [("scanning", size, size)] == first.summary()
    assert [("scanning", len(added), len(added))] == second.summary()
    quiet = FakeProgress()
    rig.scan(progress=quiet)
    assert [] == quiet.summary()


def test_default_roots_follow_the_agents_environment_variables() -> None:
    """~/.claude/projects and ~/.codex/sessions, moved by CLAUDE_CONFIG_DIR and CODEX_HOME."""
    assert (
        ("/home/ada/.claude/projects", "/home/ada/.codex/sessions"),
        ("/cfg/claude/projects", "/cfg/codex/sessions"),
    ) == (
        default_transcript_roots({}, "/home/ada/"),
        default_transcript_roots(
            {"CLAUDE_CONFIG_DIR": "/cfg/claude/", "CODEX_HOME": "/cfg/codex"}, "/home/ada"
        ),
    )
