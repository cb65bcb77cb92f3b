"""inotify's event records, decoded, and what each one means for status (no I/O here).

The kernel hands over a byte buffer of ``struct inotify_event`` records (a watch descriptor,
a mask, a cookie, a name length, then the name padded with NULs). ``decode_events`` reads
them; ``effect_of`` says what one event asks of status, given where its watch sits. Anything
this module cannot place is ``RESTART``: walk everything and watch afresh.
"""

from __future__ import annotations

import enum
import struct
from collections.abc import Callable
from typing import Final

import attrs

HEADER: Final = struct.Struct("iIII")

IN_MODIFY: Final = 0x00000002
IN_ATTRIB: Final = 0x00000004
IN_CLOSE_WRITE: Final = 0x00000008
IN_MOVED_FROM: Final = 0x00000040
IN_MOVED_TO: Final = 0x00000080
IN_CREATE: Final = 0x00000100
IN_DELETE: Final = 0x00000200
IN_DELETE_SELF: Final = 0x00000400
IN_MOVE_SELF: Final = 0x00000800
IN_UNMOUNT: Final = 0x00002000
IN_Q_OVERFLOW: Final = 0x00004000
IN_IGNORED: Final = 0x00008000
IN_ONLYDIR: Final = 0x01000000
IN_DONT_FOLLOW: Final = 0x02000000
IN_ISDIR: Final = 0x40000000

# What a watched directory reports: any change to an entry's bytes, metadata or name.
CHANGES: Final = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
WATCH_MASK: Final = CHANGES | IN_ONLYDIR | IN_DONT_FOLLOW
_MOVED: Final = IN_MOVED_FROM | IN_MOVED_TO
_STRUCTURE: Final = IN_CREATE | IN_DELETE | _MOVED
_LOST: Final = IN_Q_OVERFLOW | IN_UNMOUNT | IN_MOVE_SELF

# Names in the git directory that decide status (the index against HEAD); a ref moving is
# seen in the refs directories.
GIT_STATE_NAMES: Final = frozenset({b"index", b"HEAD", b"packed-refs"})
# Names whose change alters which files are ignored: walk everything, watch afresh.
RULE_NAMES: Final = frozenset({b".gitignore"})
GIT_RULE_NAMES: Final = frozenset({b"config", b"info"})
INFO_RULE_NAMES: Final = frozenset({b"exclude"})
GIT_DIR: Final = b".git"


@attrs.frozen(kw_only=True)
class WatchEvent:
    """One decoded ``struct inotify_event``."""

    wd: int
    mask: int
    cookie: int
    name: bytes


def decode_events(buffer: bytes) -> tuple[WatchEvent, ...]:
    """Every event record in ``buffer``, in order.

    Raises:
        ValueError: The buffer ends inside a record (the kernel only hands out whole ones).
    """
    events: list[WatchEvent] = []
    offset, size = 0, len(buffer)
    while offset < size:
        if offset + HEADER.size > size:
            raise ValueError("truncated inotify event header")
        wd, mask, cookie, length = HEADER.unpack_from(buffer, offset)
        start = offset + HEADER.size
        end = start + length
        if end > size:
            raise ValueError("truncated inotify event name")
        name = buffer[start:end].split(b"\x00", 1)[0]
        events.append(WatchEvent(wd=wd, mask=mask, cookie=cookie, name=name))
        offset = end
    return tuple(events)


def encode_event(event: WatchEvent, padding: int = 0) -> bytes:
    """The record the kernel would write for ``event``, its name NUL-padded by ``padding``."""
    name = event.name + b"\x00" * padding if event.name or padding else b""
    return HEADER.pack(event.wd, event.mask, event.cookie, len(name)) + name


class Area(enum.Enum):
    """What kind of directory a watch sits on."""

    TREE = "tree"
    GIT = "git"
    REFS = "refs"
    INFO = "info"


@attrs.frozen(kw_only=True)
class Place:
    """Where a watch sits: its area and its directory relative to the working tree's root."""

    area: Area
    relative: bytes


class Action(enum.Enum):
    """What an event asks of status."""

    NOTHING = "nothing"
    TOUCH = "touch"  # re-check ``path`` (a file, or a directory and all below it)
    NEW_DIRECTORY = "new-directory"  # watch ``path``, list it, re-check what it holds
    GONE_DIRECTORY = "gone-directory"  # this watch's directory is deleted; re-check ``path``
    GIT_STATE = "git-state"  # re-read the index, HEAD and the staged changes
    RESTART = "restart"  # walk everything and watch afresh


@attrs.frozen(kw_only=True)
class Effect:
    """An action, and the root-relative path it concerns (empty when none)."""

    action: Action
    path: bytes = b""


NOTHING: Final = Effect(action=Action.NOTHING)
RESTART: Final = Effect(action=Action.RESTART)
GIT_STATE: Final = Effect(action=Action.GIT_STATE)


def join(relative: bytes, name: bytes) -> bytes:
    """``name`` inside the root-relative directory ``relative``."""
    return relative + b"/" + name if relative else name


def effect_of(
    event: WatchEvent, place: Place | None, *, retired: bool, prune: Callable[[bytes], bool]
) -> Effect:
    """What ``event`` asks of status.

    Args:
        event: The decoded event.
        place: Where its watch sits; ``None`` when the descriptor is not (or no longer) mapped.
        retired: The descriptor belongs to a watch this watcher dropped on purpose (its
            directory was deleted), whose last events may still be queued.
        prune: Whether a root-relative directory is outside what status walks (ignored).
    """
    mask = event.mask
    if mask & IN_Q_OVERFLOW:
        return RESTART
    if place is None:
        return NOTHING if retired else RESTART
    if mask & IN_IGNORED:
        # The kernel dropped a watch we still hold: its directory is gone or unmounted.
        return RESTART
    if mask & _LOST:
        return RESTART
    if place.area is Area.TREE:
        return _tree_effect(event, place.relative, prune)
    if place.area is Area.GIT:
        if event.name in GIT_STATE_NAMES:
            return GIT_STATE
        if event.name in GIT_RULE_NAMES or mask & IN_DELETE_SELF:
            return RESTART
        if event.name == b"refs" and mask & _STRUCTURE:
            return RESTART
        return NOTHING
    if place.area is Area.INFO:
        if event.name in INFO_RULE_NAMES or mask & IN_DELETE_SELF:
            return RESTART
        return NOTHING
    # A ref file written, renamed into place or removed; a new ref directory needs a watch.
    if (mask & IN_ISDIR and mask & (IN_CREATE | _MOVED)) or mask & IN_DELETE_SELF:
        return RESTART
    return GIT_STATE


def _tree_effect(event: WatchEvent, relative: bytes, prune: Callable[[bytes], bool]) -> Effect:
    mask, name = event.mask, event.name
    if not name:
        # An event on the watched directory itself: only its deletion matters here.
        if mask & IN_DELETE_SELF:
            # The root itself gone: nothing of the baseline can be amended.
            return Effect(action=Action.GONE_DIRECTORY, path=relative) if relative else RESTART
        return NOTHING
    path = join(relative, name)
    if name == GIT_DIR:
        # A nested repository appearing or going changes what status walks; the root's own
        # git directory is watched apart, and its metadata changes say nothing.
        return RESTART if mask & _STRUCTURE else NOTHING
    if name in RULE_NAMES:
        return RESTART
    if not mask & IN_ISDIR:
        return Effect(action=Action.TOUCH, path=path)
    if prune(path):
        return NOTHING
    if mask & _MOVED:
        # A directory renamed keeps its watches under the old names: safer to start over.
        return RESTART
    if mask & IN_CREATE:
        return Effect(action=Action.NEW_DIRECTORY, path=path)
    if mask & IN_DELETE:
        return Effect(action=Action.TOUCH, path=path)
    return NOTHING
