"""Whether a git lock file nobody claims may be removed.

A lock that a memhtml writer's journal names is that writer's, and its fate follows the
journal (see ``recovery``). Any other lock (``.git/index.lock``, a branch's ``.lock``) may
belong to a git command that is running right now: an interactive ``git commit`` holds the
index lock for as long as its editor is open. Git itself never removes such a lock; it tells
the user to. memhtml removes one only when both hold:

- it is older than ``STALE_LOCK_AGE_S``, so a command that has only just taken it is never
  raced, and
- no process whose name starts with ``git`` has its working directory inside the repository
  (read from ``/proc``; a process whose directory cannot be read counts as inside).

Without ``/proc`` only the age speaks, and it must be much older (``NO_PROC_AGE_S``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Final

import attrs

STALE_LOCK_AGE_S: Final = 60.0
NO_PROC_AGE_S: Final = 3600.0
_PROC: Final = Path("/proc")
_GIT_COMMAND_PREFIX: Final = b"git"


@attrs.frozen(kw_only=True)
class LockVerdict:
    """Whether an unclaimed lock may go, and why (for a finding or a refusal)."""

    stale: bool
    reason: str


def judge_unclaimed_lock(lock: Path, root: Path, *, now: float | None = None) -> LockVerdict:
    """Judge a lock file no live or dead memhtml writer claims (see the module docstring)."""
    try:
        age = (time.time() if now is None else now) - lock.lstat().st_mtime
    except FileNotFoundError:
        return LockVerdict(stale=True, reason="already gone")
    if not _PROC.is_dir():
        if age >= NO_PROC_AGE_S:
            return LockVerdict(stale=True, reason=f"{age:.0f} s old")
        return LockVerdict(stale=False, reason=f"{age:.0f} s old; a git command may hold it")
    holder = git_process_in(root)
    if holder is not None:
        return LockVerdict(stale=False, reason=f"git process {holder} is running here")
    if age < STALE_LOCK_AGE_S:
        return LockVerdict(
            stale=False, reason=f"only {age:.0f} s old; stale after {STALE_LOCK_AGE_S:.0f} s"
        )
    return LockVerdict(stale=True, reason=f"{age:.0f} s old and no git process is running here")


def git_process_in(root: Path) -> int | None:
    """The pid of a live ``git*`` process working inside ``root``, if any (``/proc`` only)."""
    real_root = os.path.realpath(root)
    try:
        entries = os.listdir(_PROC)
    except OSError:
        return None
    me = os.getpid()
    for entry in entries:
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            name = (_PROC / entry / "comm").read_bytes()
        except OSError:
            continue
        if not name.startswith(_GIT_COMMAND_PREFIX):
            continue
        try:
            cwd = os.readlink(_PROC / entry / "cwd")
        except FileNotFoundError:
            continue  # it exited while we looked
        except OSError:
            return int(entry)  # another user's git: cannot tell where it works, so assume here
        if cwd == real_root or cwd.startswith(real_root + os.sep):
            return int(entry)
    return None


def inode_of(path: Path) -> int | None:
    """The inode of ``path`` (not following a symlink), ``None`` when it does not exist."""
    try:
        return path.lstat().st_ino
    except FileNotFoundError:
        return None
