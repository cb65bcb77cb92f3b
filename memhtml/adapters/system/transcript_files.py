"""``FileTranscripts``: the ``TranscriptFiles`` port over the local file system."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from typing import Final

from memhtml.ports.transcript_files import (
    TranscriptFile,
    TranscriptListing,
    TranscriptUnreadable,
)

TRANSCRIPT_SUFFIX: Final = ".jsonl"


def _absolute(path: str) -> str:
    # Resolved, so a file reached through two roots (or a linked folder) has one watermark.
    return os.path.realpath(os.path.expanduser(path))


class FileTranscripts:
    """Lists and reads transcript files; never writes."""

    def is_dir(self, path: str) -> bool:
        """See ``TranscriptFiles.is_dir``."""
        return os.path.isdir(_absolute(path))

    def list_files(self, roots: Sequence[str]) -> TranscriptListing:
        """See ``TranscriptFiles.list_files``."""
        found: dict[str, TranscriptFile] = {}
        unreadable: list[TranscriptUnreadable] = []
        for root in roots:
            top = _absolute(root)
            candidates = self._walk(top, unreadable) if os.path.isdir(top) else iter((top,))
            for path in candidates:
                if path in found:
                    continue
                listed = _stat(path, unreadable)
                if listed is not None:
                    found[path] = listed
        return TranscriptListing(
            files=tuple(found[path] for path in sorted(found)), unreadable=tuple(unreadable)
        )

    def read_range(self, path: str, start: int, end: int, *, chunk_bytes: int) -> Iterator[bytes]:
        """See ``TranscriptFiles.read_range``."""
        try:
            with open(path, "rb") as handle:
                handle.seek(start)
                left = end - start
                while left > 0:
                    chunk = handle.read(min(chunk_bytes, left))
                    if not chunk:
                        return
                    left -= len(chunk)
                    yield chunk
        except OSError as error:
            raise TranscriptUnreadable(path, error.strerror or type(error).__name__) from error

    @staticmethod
    def _walk(top: str, unreadable: list[TranscriptUnreadable]) -> Iterator[str]:
        def failed(error: OSError) -> None:
            where = error.filename if isinstance(error.filename, str) else top
            unreadable.append(TranscriptUnreadable(where, error.strerror or "unreadable"))

        for folder, dirs, names in os.walk(top, onerror=failed, followlinks=False):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(TRANSCRIPT_SUFFIX):
                    yield _absolute(os.path.join(folder, name))


def _stat(path: str, unreadable: list[TranscriptUnreadable]) -> TranscriptFile | None:
    try:
        info = os.stat(path)
    except OSError as error:
        unreadable.append(TranscriptUnreadable(path, error.strerror or "unreadable"))
        return None
    if not stat.S_ISREG(info.st_mode):
        unreadable.append(TranscriptUnreadable(path, "not a regular file"))
        return None
    return TranscriptFile(path=path, size=info.st_size, mtime_ms=info.st_mtime_ns // 1_000_000)
