"""A transcript file's stat watermark, and the rule that turns it into skip, tail or rescan.

Agents append to their session files and never edit a line in place, so a file's size and
modification time say whether anything new is there without opening it. ``byte_off`` is one
past the last complete line consumed: a half-written last line stays unread until the writer
finishes it.
"""

from __future__ import annotations

from typing import Final, Literal

import attrs

ScanAction = Literal["skip", "tail", "rescan"]
SCAN_ACTIONS: Final[tuple[ScanAction, ...]] = ("skip", "tail", "rescan")
NEWLINE: Final = b"\n"


def _not_negative(_: object, attribute: attrs.Attribute[int], value: int) -> None:
    if value < 0:
        raise ValueError(f"{attribute.name} must not be negative")


@attrs.frozen(kw_only=True)
class Watermark:
    """What the last scan saw of one file.

    Attributes:
        size: The file's size in bytes when it was scanned.
        mtime_ms: Its modification time, epoch milliseconds.
        byte_off: One past the last byte consumed (the end of the last complete line); the
            next tail starts here.
    """

    size: int = attrs.field(validator=_not_negative)
    mtime_ms: int
    byte_off: int = attrs.field(validator=_not_negative)


def plan_scan(stored: Watermark | None, *, size: int, mtime_ms: int) -> ScanAction:
    """What a scan does with a file of ``size`` bytes modified at ``mtime_ms``.

    - never scanned, or nothing consumed yet → ``rescan`` (read it all);
    - same size and modification time → ``skip`` (not opened, nothing written);
    - grown → ``tail`` (read from ``byte_off`` and merge into the stored extract);
    - shrunk, or the same size with a new modification time (rewritten in place) → ``rescan``.
    """
    if stored is None:
        return "rescan"
    if size == stored.size and mtime_ms == stored.mtime_ms:
        return "skip"
    if size > stored.size and stored.byte_off > 0:
        return "tail"
    return "rescan"


def tail_confirmed(byte_before: bytes) -> bool:
    """Whether the byte just before a tail's start is the newline the last scan consumed.

    A file rewritten and grown past its old size passes the stat test; the newline check
    catches most such rewrites for the price of one byte, and a failed check rescans.
    """
    return byte_before == NEWLINE
