"""Where a helper lives: a private per-user folder and, per configuration, a socket, a lock
that names the helper's process, and its log.

The folder is ``$XDG_RUNTIME_DIR/memhtml`` when the session has one (Linux, cleared at logout),
else ``<temp>/memhtml-<uid>``. It must belong to this user and be closed to everyone else: a
socket in a shared folder would let another user answer our queries, so a folder that fails
the check disables the helper rather than being trusted.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Final, NamedTuple

# A socket path longer than this does not fit sockaddr_un on Linux (108) or macOS (104).
MAX_SOCKET_PATH: Final = 100


class UnsafePlace(Exception):
    """The helper folder cannot be made private to this user; the helper is not used."""


class HelperPlace(NamedTuple):
    """The files of one helper, named by the key of the configuration it serves.

    Attributes:
        socket: Where the helper listens.
        lock: Held (``flock``) by the live helper for its whole life; holds its pid.
        log: The helper's stderr, rewritten when a helper starts.
    """

    socket: Path
    lock: Path
    log: Path


def runtime_folder(environ: Mapping[str, str]) -> Path:
    """The per-user folder helpers live in (not created)."""
    runtime = environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "memhtml"
    return Path(tempfile.gettempdir()) / f"memhtml-{os.getuid()}"


def helper_place(key: str, environ: Mapping[str, str]) -> HelperPlace:
    """The private folder made ready and the helper's files in it.

    Raises:
        UnsafePlace: The folder belongs to someone else, is open to others and cannot be
            closed, is not a folder, or its socket path would be too long.
    """
    folder = runtime_folder(environ)
    try:
        folder.mkdir(mode=0o700, parents=False, exist_ok=True)
        info = folder.lstat()
    except OSError as e:
        raise UnsafePlace(f"cannot make {folder}: {e.strerror}") from e
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePlace(f"{folder} is not a folder")
    if info.st_uid != os.getuid():
        raise UnsafePlace(f"{folder} belongs to another user")
    if info.st_mode & 0o077:
        try:
            folder.chmod(0o700)
        except OSError as e:
            raise UnsafePlace(f"{folder} is open to other users: {e.strerror}") from e
    place = HelperPlace(
        socket=folder / f"embed-{key}.sock",
        lock=folder / f"embed-{key}.lock",
        log=folder / f"embed-{key}.log",
    )
    if len(os.fsencode(place.socket)) > MAX_SOCKET_PATH:
        raise UnsafePlace(f"socket path {place.socket} is too long for a Unix socket")
    return place
