"""``trace scan [DIR…]``: read agent transcripts into the trace plane (issue 20).

Each file's stat watermark decides skip, tail or rescan (``domain/trace_watermarks``); only the
bytes a scan needs are read, a chunk at a time, through ``domain/trace_scanner``; a tail's
extract is merged into the stored one (``domain/trace_extract.merge_extracts``); the store
writes the file's extract, prompts and watermark in one transaction. An unchanged file is not
opened and nothing is written for it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from memhtml.domain.trace_extract import FileExtract, merge_extracts
from memhtml.domain.trace_instants import instant_text
from memhtml.domain.trace_scanner import ScanCounts, TranscriptScanner
from memhtml.domain.trace_watermarks import ScanAction, Watermark, plan_scan, tail_confirmed
from memhtml.ports.clock import Clock
from memhtml.ports.progress import NO_PROGRESS, PHASE_SCANNING, ProgressSink
from memhtml.ports.trace_store import FileMark, TraceStore, TraceWrite
from memhtml.ports.transcript_files import TranscriptFile, TranscriptFiles, TranscriptUnreadable

logger = logging.getLogger("memhtml")

CHUNK_BYTES: Final = 1024 * 1024
CLAUDE_CONFIG_ENV: Final = "CLAUDE_CONFIG_DIR"
CODEX_HOME_ENV: Final = "CODEX_HOME"


@attrs.frozen(kw_only=True)
class TraceScanPorts:
    """What a scan is handed: the files, the trace store, the clock that stamps writes."""

    files: TranscriptFiles
    traces: TraceStore
    clock: Clock


@attrs.frozen(kw_only=True)
class ScanFailure:
    """A file the scan could not read (it is retried on the next scan)."""

    path: str
    reason: str


@attrs.frozen(kw_only=True)
class TraceScanReport:
    """``trace.scan``.

    Attributes:
        roots: The directories (or files) scanned.
        files: Transcript files found.
        skipped, tailed, rescanned: How each found file was handled (failures aside).
        sessions: Distinct sessions written.
        prompts_written: Prompt rows offered to the store (new ones only, on a tail).
        bytes_read: Bytes read from transcripts.
        pending_bytes: Bytes of half-written last lines left for the next scan.
        no_session: Files read that name no session: no prompts are kept for them, and they
            are read whole again when they change.
        records: The lines read, by what they were.
        failed: Files that could not be read.
    """

    roots: tuple[str, ...]
    files: int
    skipped: int
    tailed: int
    rescanned: int
    sessions: int
    prompts_written: int
    bytes_read: int
    pending_bytes: int
    no_session: int
    records: ScanCounts
    failed: tuple[ScanFailure, ...]


def default_transcript_roots(environ: Mapping[str, str], home: str) -> tuple[str, ...]:
    """Where the agents keep their sessions: Claude Code's ``projects/`` under
    ``$CLAUDE_CONFIG_DIR`` (default ``~/.claude``) and the Codex CLI's ``sessions/`` under
    ``$CODEX_HOME`` (default ``~/.codex``)."""
    home = home.rstrip("/") or "/"
    claude = environ.get(CLAUDE_CONFIG_ENV) or f"{home}/.claude"
    codex = environ.get(CODEX_HOME_ENV) or f"{home}/.codex"
    return (f"{claude.rstrip('/')}/projects", f"{codex.rstrip('/')}/sessions")


def existing_roots(files: TranscriptFiles, candidates: Sequence[str]) -> tuple[str, ...]:
    """The candidates that are directories."""
    return tuple(root for root in candidates if files.is_dir(root))


@attrs.frozen(kw_only=True)
class _Planned:
    file: TranscriptFile
    action: ScanAction
    mark: FileMark | None
    stored: FileExtract | None = None  # a tail's stored extract

    @property
    def start(self) -> int:
        return self.mark.watermark.byte_off if self.stored is not None and self.mark else 0


@attrs.define
class _Tally:
    skipped: int = 0
    tailed: int = 0
    rescanned: int = 0
    prompts: int = 0
    read: int = 0
    pending: int = 0
    no_session: int = 0
    records: ScanCounts = attrs.Factory(ScanCounts)
    sessions: set[str] = attrs.Factory(set)
    failed: list[ScanFailure] = attrs.Factory(list)


def scan_traces(
    ports: TraceScanPorts,
    roots: Sequence[str],
    *,
    progress: ProgressSink = NO_PROGRESS,
    chunk_bytes: int = CHUNK_BYTES,
) -> TraceScanReport:
    """Scan every transcript under ``roots`` into the trace plane.

    Progress is one ``scanning`` phase whose units are bytes to read. A file that cannot be
    read is reported in ``failed`` and left for the next scan; a storage failure stops the scan
    (what was written before it stays).

    Raises:
        StorageFailure: The trace plane cannot be read or written.
    """
    listing = ports.files.list_files(roots)
    tally = _Tally()
    tally.failed.extend(ScanFailure(path=u.path, reason=u.reason) for u in listing.unreadable)
    marks = ports.traces.file_marks([f.path for f in listing.files])
    plans = [_confirmed(ports, _plan(f, marks.get(f.path))) for f in listing.files]
    total = sum(p.file.size - p.start for p in plans if p.action != "skip")
    if total:
        progress.start(PHASE_SCANNING, total)
    try:
        for plan in plans:
            if plan.action == "skip":
                tally.skipped += 1
                continue
            try:
                _scan_one(ports, plan, tally, progress, chunk_bytes)
            except TranscriptUnreadable as error:
                logger.warning("could not read a transcript: %s", error.reason)
                tally.failed.append(ScanFailure(path=plan.file.path, reason=error.reason))
    finally:
        if total:
            progress.finish()
    return TraceScanReport(
        roots=tuple(roots),
        files=len(listing.files),
        skipped=tally.skipped,
        tailed=tally.tailed,
        rescanned=tally.rescanned,
        sessions=len(tally.sessions),
        prompts_written=tally.prompts,
        bytes_read=tally.read,
        pending_bytes=tally.pending,
        no_session=tally.no_session,
        records=tally.records,
        failed=tuple(tally.failed),
    )


def _plan(file: TranscriptFile, mark: FileMark | None) -> _Planned:
    stored = None if mark is None else mark.watermark
    action = plan_scan(stored, size=file.size, mtime_ms=file.mtime_ms)
    return _Planned(file=file, action=action, mark=mark)


def _confirmed(ports: TraceScanPorts, plan: _Planned) -> _Planned:
    """A tail with its stored extract; a rescan when the byte before the tail is not the
    newline the last scan consumed (the file was rewritten) or nothing is stored."""
    if plan.action != "tail" or plan.mark is None:
        return plan
    offset = plan.mark.watermark.byte_off
    try:
        before = b"".join(ports.files.read_range(plan.file.path, offset - 1, offset, chunk_bytes=1))
    except TranscriptUnreadable:
        before = b""  # the scan proper will read it again and report the failure
    stored = ports.traces.stored_extract(plan.file.path) if tail_confirmed(before) else None
    if stored is None:
        return attrs.evolve(plan, action="rescan")
    return attrs.evolve(plan, stored=stored)


def _scan_one(
    ports: TraceScanPorts,
    plan: _Planned,
    tally: _Tally,
    progress: ProgressSink,
    chunk_bytes: int,
) -> None:
    file, mark, stored, start = plan.file, plan.mark, plan.stored, plan.start
    scanner = TranscriptScanner(start)
    for chunk in ports.files.read_range(file.path, start, file.size, chunk_bytes=chunk_bytes):
        scanner.feed(chunk)
        tally.read += len(chunk)
        progress.advance(len(chunk))
    outcome = scanner.finish()
    extract = outcome.extract if stored is None else merge_extracts(stored, outcome.extract)
    prompts_from = 0 if stored is None else len(stored.prompts)
    # A file that names no session yet keeps no prompts (they have no session to belong to), so
    # its stored extract could not be tailed exactly: it is read whole again when it changes.
    consumed = outcome.end if extract.session_id is not None else 0
    at = instant_text(int(ports.clock.now().timestamp() * 1000))
    if at is None:
        raise ValueError("the clock is outside years 1-9999")
    ports.traces.persist(
        TraceWrite(
            file_path=file.path,
            extract=extract,
            watermark=Watermark(size=file.size, mtime_ms=file.mtime_ms, byte_off=consumed),
            prompts_from=prompts_from,
            previous_session_id=None if mark is None else mark.session_id,
            at=at,
        )
    )
    if stored is None:
        tally.rescanned += 1
    else:
        tally.tailed += 1
    tally.pending += outcome.pending
    tally.records = tally.records.plus(outcome.counts)
    if extract.session_id is None:
        tally.no_session += 1
    else:
        tally.sessions.add(extract.session_id)
        tally.prompts += len(extract.prompts) - prompts_from
