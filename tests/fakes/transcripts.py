"""``FakeTranscripts``: transcript files held in memory, with a settable clock of modification
times, and a record of which bytes each scan read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import attrs

from memhtml.ports.transcript_files import (
    TranscriptFile,
    TranscriptListing,
    TranscriptUnreadable,
)


@attrs.define
class FakeTranscripts:
    """A folder tree of JSONL files by absolute path.

    Attributes:
        files: Path → bytes.
        mtimes: Path → modification time (ms); bumped on every ``write``/``append``.
        unreadable: Paths whose reads fail.
        reads: ``(path, start, end)`` of every ``read_range`` call, in order.
    """

    files: dict[str, bytes] = attrs.Factory(dict)
    mtimes: dict[str, int] = attrs.Factory(dict)
    unreadable: set[str] = attrs.Factory(set)
    reads: list[tuple[str, int, int]] = attrs.Factory(list)
    tick: int = 1_757_000_000_000

    def write(self, path: str, data: bytes) -> None:
        """Create or replace a file."""
        self.tick += 1000
        self.files[path] = data
        self.mtimes[path] = self.tick

    def append(self, path: str, data: bytes) -> None:
        """Append to a file."""
        self.write(path, self.files.get(path, b"") + data)

    def is_dir(self, path: str) -> bool:
        """Whether some file lies under ``path``."""
        prefix = path.rstrip("/") + "/"
        return any(name.startswith(prefix) for name in self.files)

    def list_files(self, roots: Sequence[str]) -> TranscriptListing:
        """Every ``.jsonl`` file under a root (or a root that is a file), by path."""
        found = sorted(
            name
            for name in self.files
            if any(name == root or name.startswith(root.rstrip("/") + "/") for root in roots)
            and (name.endswith(".jsonl") or name in roots)
        )
        return TranscriptListing(
            files=tuple(
                TranscriptFile(path=name, size=len(self.files[name]), mtime_ms=self.mtimes[name])
                for name in found
            )
        )

    def read_range(self, path: str, start: int, end: int, *, chunk_bytes: int) -> Iterator[bytes]:
        """The bytes in chunks; unreadable paths fail when iterated."""
        self.reads.append((path, start, end))
        if path in self.unreadable or path not in self.files:
            raise TranscriptUnreadable(path, "Permission denied")
        data = self.files[path][start:end]
        for offset in range(0, len(data), chunk_bytes):
            yield data[offset : offset + chunk_bytes]
