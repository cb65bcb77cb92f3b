"""Bytes of a transcript file → its extract, a chunk at a time, in bounded memory.

The caller feeds the bytes from some offset onwards in chunks of any size; only complete
(newline-terminated) lines are consumed. A half-written last line is left for the next scan:
``end`` stops before it. A line longer than ``max_line_bytes`` is dropped as it streams past
(counted as ``oversized``), so memory stays bounded by the chunk size plus that cap.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.domain.trace_extract import ExtractBuilder, FileExtract
from memhtml.domain.trace_records import RecordKind, parse_line

MAX_LINE_BYTES: Final = 16 * 1024 * 1024
_NEWLINE: Final = b"\n"
_CARRIAGE_RETURN: Final = b"\r"


@attrs.frozen(kw_only=True)
class ScanCounts:
    """Lines read and what they were; ``plus`` adds two counts field by field."""

    lines: int = 0
    prompts: int = 0
    assistant: int = 0
    tool_calls: int = 0
    tool_results: int = 0
    titles: int = 0
    context: int = 0
    skipped: int = 0
    unknown: int = 0
    malformed: int = 0
    oversized: int = 0

    def plus(self, other: ScanCounts) -> ScanCounts:
        """The field-wise sum."""
        return ScanCounts(
            **{
                field.name: getattr(self, field.name) + getattr(other, field.name)
                for field in attrs.fields(ScanCounts)
            }
        )


_FIELD_OF: Final[dict[RecordKind, str]] = {
    "prompt": "prompts",
    "assistant": "assistant",
    "tool_call": "tool_calls",
    "tool_result": "tool_results",
    "title": "titles",
    "context": "context",
    "skipped": "skipped",
    "unknown": "unknown",
    "malformed": "malformed",
}


@attrs.frozen(kw_only=True)
class ScanOutcome:
    """What one pass over a file's bytes produced.

    Attributes:
        extract: The extract of the consumed lines.
        end: One past the last consumed byte (the next tail's start).
        pending: Bytes after ``end`` that were read but not consumed (a half-written line).
        counts: The lines consumed, by record kind.
    """

    extract: FileExtract
    end: int
    pending: int
    counts: ScanCounts


class TranscriptScanner:
    """Feed it a file's bytes from ``start`` on; ``finish`` says what they held.

    Args:
        start: The absolute offset of the first byte fed (Codex prompt ids are offsets).
        max_line_bytes: Longer lines are dropped unread and counted as ``oversized``.
    """

    def __init__(self, start: int = 0, *, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self._builder = ExtractBuilder()
        self._counts: dict[str, int] = dict.fromkeys(
            (field.name for field in attrs.fields(ScanCounts)), 0
        )
        self._max = max_line_bytes
        self._line_start = start  # absolute offset of the line being assembled
        self._parts: list[bytes] = []
        self._part_bytes = 0
        self._dropping = False

    def feed(self, chunk: bytes) -> None:
        """Consume every line ``chunk`` completes; keep the unfinished rest."""
        position = 0
        while True:
            newline = chunk.find(_NEWLINE, position)
            if newline < 0:
                self._hold(chunk[position:])
                return
            self._hold(chunk[position:newline])
            self._end_line()
            position = newline + 1

    def finish(self) -> ScanOutcome:
        """The outcome; bytes after the last newline stay pending."""
        counts = ScanCounts(**self._counts)
        return ScanOutcome(
            extract=self._builder.build(),
            end=self._line_start,
            pending=self._part_bytes,
            counts=counts,
        )

    def _hold(self, piece: bytes) -> None:
        if not piece:
            return
        self._part_bytes += len(piece)
        if self._dropping:
            return
        if self._part_bytes > self._max:
            self._dropping = True
            self._parts.clear()
            return
        self._parts.append(piece)

    def _end_line(self) -> None:
        offset = self._line_start
        self._line_start += self._part_bytes + len(_NEWLINE)
        self._part_bytes = 0
        if self._dropping:
            self._dropping = False
            self._counts["lines"] += 1
            self._counts["oversized"] += 1
            return
        raw = self._parts[0] if len(self._parts) == 1 else b"".join(self._parts)
        self._parts.clear()
        if raw.endswith(_CARRIAGE_RETURN):
            raw = raw[:-1]
        if not raw.strip():
            return  # a blank line is not a record
        self._counts["lines"] += 1
        record = parse_line(raw, offset)
        self._counts[_FIELD_OF[record.kind]] += 1
        self._builder.add(record)
