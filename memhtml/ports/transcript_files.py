"""Where agent transcripts are read from: listing JSONL files with their stat, and reading
byte ranges of them in chunks."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

import attrs

from memhtml.ports.errors import PortError


class TranscriptUnreadable(PortError):
    """A transcript file vanished or cannot be read; a scan skips it and says so."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"cannot read transcript: {reason}")


@attrs.frozen(kw_only=True)
class TranscriptFile:
    """One transcript file as listed.

    Attributes:
        path: Absolute, normalised path (the watermark's key).
        size: Bytes, at listing time.
        mtime_ms: Modification time, epoch milliseconds.
    """

    path: str
    size: int
    mtime_ms: int


@attrs.frozen(kw_only=True)
class TranscriptListing:
    """The files found under some roots, and the entries that could not be looked at."""

    files: tuple[TranscriptFile, ...]
    unreadable: tuple[TranscriptUnreadable, ...] = ()


class TranscriptFiles(Protocol):
    """The file system as the trace scan sees it."""

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` (``~`` expanded) is a directory."""
        ...

    def list_files(self, roots: Sequence[str]) -> TranscriptListing:
        """Every ``*.jsonl`` regular file under ``roots`` (directories walked without following
        links; a root that is a file is listed whatever its name), each once, by path."""
        ...

    def read_range(self, path: str, start: int, end: int, *, chunk_bytes: int) -> Iterator[bytes]:
        """The bytes ``[start, end)`` of ``path`` in chunks of at most ``chunk_bytes``; fewer
        when the file is shorter now.

        Raises:
            TranscriptUnreadable: The file cannot be opened or read (raised while iterating).
        """
        ...
