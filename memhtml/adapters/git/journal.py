"""The commit journal: the commit a writer is landing, so whoever comes next can finish or undo it.

A commit writes one small file in ``.git/`` (``memhtml-commit-<pid>-<thread>.journal``) just
before it takes ``.git/index.lock``, rewrites it with the new commit's id and the lock's inode
just before the branch moves, and deletes it once the index is in place. A journal whose
writer is gone therefore says exactly where the writer died: before the branch moved (undo),
or after (finish the working tree and the index). Each writer has its own file, so writers
that race without the store's lock (threads in one process, tests) never delete each other's
journal.

A writer is named by its pid, the process's start time (so a recycled pid is not mistaken for
it) and its thread; "alive" is read from ``/proc`` where there is one.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Final

import attrs

JOURNAL_PREFIX: Final = "memhtml-commit-"
JOURNAL_SUFFIX: Final = ".journal"
_TEMPORARY_SUFFIX: Final = ".tmp"
_VERSION: Final = 1
_PROC: Final = Path("/proc")
# Field 22 of /proc/<pid>/stat (start time in clock ticks), counted after the ")" that ends the
# command name, which may itself hold spaces and parentheses.
_START_FIELD_AFTER_NAME: Final = 19
_STATE_FIELD_AFTER_NAME: Final = 0
_ZOMBIE: Final = b"Z"
# File times and the journal's clock may disagree by a filesystem's timestamp granularity.
_CLOCK_SLACK_NS: Final = 20_000_000


@attrs.frozen(kw_only=True)
class Owner:
    """The writer that wrote a journal.

    Attributes:
        pid: Its process id.
        start: The process's start time in clock ticks since boot; ``None`` without ``/proc``.
        thread: The writing thread's identifier.
    """

    pid: int
    start: int | None
    thread: int


@attrs.frozen(kw_only=True)
class Journal:
    """One in-flight commit.

    Attributes:
        path: The journal file (not stored in it).
        owner: The writer.
        ref: The ref the commit moves: the branch HEAD names, or ``HEAD`` when detached.
        old: The commit the branch held before (``None``: unborn).
        new: The new commit once its objects are written; ``None`` before.
        lock_inode: The inode of the ``.git/index.lock`` the writer created, which tells its
            own lock apart from one a git command took after it.
        started_ns: When the journal was first written (``time.time_ns``); objects and lock
            files the writer left are no older than this.
    """

    path: Path
    owner: Owner
    ref: str
    old: str | None
    new: str | None
    lock_inode: int | None
    started_ns: int


@attrs.frozen(kw_only=True)
class UnreadableJournal:
    """A journal file that does not parse (written by hand, or by another version)."""

    path: Path


def claims_lock(journal: Journal, lock: Path, index: Path) -> bool:
    """Whether ``lock`` (``.git/index.lock``) is the one ``journal``'s writer created.

    With its inode recorded: that inode, unless it has become the index itself (the writer's
    lock, renamed into place). Before the inode could be recorded (the journal is written just
    before the lock is taken): a lock no older than the journal.
    """
    try:
        info = lock.lstat()
    except FileNotFoundError:
        return False
    if journal.lock_inode is not None:
        try:
            index_inode = index.lstat().st_ino
        except FileNotFoundError:
            index_inode = None
        return info.st_ino == journal.lock_inode and index_inode != info.st_ino
    return info.st_ctime_ns >= journal.started_ns - _CLOCK_SLACK_NS


def current_owner() -> Owner:
    """The calling thread of this process."""
    pid = os.getpid()
    return Owner(pid=pid, start=_start_ticks(pid), thread=threading.get_ident())


def journal_path(git_dir: Path, owner: Owner) -> Path:
    """Where ``owner`` keeps its journal."""
    return git_dir / f"{JOURNAL_PREFIX}{owner.pid}-{owner.thread}{JOURNAL_SUFFIX}"


def begin(git_dir: Path, *, ref: str, old: str | None) -> Journal:
    """Write the journal of a commit about to take the index lock.

    Written before the lock, so no instant exists at which the writer holds a lock no journal
    accounts for: until the lock's inode is recorded, ``claims_lock`` recognises it by time.
    """
    owner = current_owner()
    journal = Journal(
        path=journal_path(git_dir, owner),
        owner=owner,
        ref=ref,
        old=old,
        new=None,
        lock_inode=None,
        started_ns=time.time_ns(),
    )
    write(journal)
    return journal


def write(journal: Journal, *, durable: bool = False) -> None:
    """Replace the journal file with ``journal`` in one rename (never a torn journal).

    Args:
        journal: What to record.
        durable: ``fsync`` the file before the rename: the record that must survive a power
            cut ahead of the branch move it announces (dulwich fsyncs the ref it writes).
    """
    body = {
        "version": _VERSION,
        "pid": journal.owner.pid,
        "start": journal.owner.start,
        "thread": journal.owner.thread,
        "ref": journal.ref,
        "old": journal.old,
        "new": journal.new,
        "lockInode": journal.lock_inode,
        "startedNs": journal.started_ns,
    }
    temporary = journal.path.with_name(journal.path.name + _TEMPORARY_SUFFIX)
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(body, sort_keys=True))
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    os.replace(temporary, journal.path)


def remove(journal: Journal | UnreadableJournal) -> None:
    """Delete a journal (and a temporary copy a crash may have left beside it)."""
    journal.path.unlink(missing_ok=True)
    journal.path.with_name(journal.path.name + _TEMPORARY_SUFFIX).unlink(missing_ok=True)


def any_journal(git_dir: Path) -> bool:
    """Whether any journal file (or a crash's temporary one) is present; a directory listing."""
    try:
        names = os.listdir(git_dir)
    except OSError:
        return False
    return any(name.startswith(JOURNAL_PREFIX) for name in names)


def read_all(git_dir: Path) -> list[Journal | UnreadableJournal]:
    """Every journal in ``git_dir``, oldest first; a crash's temporary copies are removed."""
    found: list[Journal | UnreadableJournal] = []
    for name in sorted(os.listdir(git_dir)):
        if not name.startswith(JOURNAL_PREFIX):
            continue
        path = git_dir / name
        if name.endswith(JOURNAL_SUFFIX + _TEMPORARY_SUFFIX):
            # Written but never renamed into place: its writer died before the rename, and
            # the journal it was replacing (if any) is still beside it.
            with contextlib.suppress(FileNotFoundError):
                if not _owner_alive(_owner_from_name(name)):
                    path.unlink()
            continue
        if name.endswith(JOURNAL_SUFFIX):
            entry = _read(path)
            if entry is not None:
                found.append(entry)
    return sorted(found, key=lambda j: j.started_ns if isinstance(j, Journal) else 0)


def unchanged(journal: Journal | UnreadableJournal) -> bool:
    """Whether ``journal``'s file still holds what was read (its writer did not move on).

    Recovery lists the journals, then asks whether each writer is alive. A writer that finishes
    in between removes its journal and exits, and then looks dead: reading the file again
    *after* the liveness check tells a writer that died inside its commit (the file is still
    there, as it was) from one that simply finished (the file is gone or rewritten).
    """
    again = _read(journal.path)
    if isinstance(journal, UnreadableJournal):
        return isinstance(again, UnreadableJournal)
    return isinstance(again, Journal) and again == journal


def is_alive(owner: Owner) -> bool:
    """Whether the writer may still be inside its commit.

    The calling thread itself counts as gone: it is recovering, so it is not committing, and
    a journal it left (a commit whose working files failed to land) is for it to finish.
    """
    return _owner_alive(owner)


def _owner_alive(owner: Owner | None) -> bool:
    if owner is None:
        return False
    if owner.pid == os.getpid():
        if owner.thread == threading.get_ident():
            return False
        return owner.thread in {thread.ident for thread in threading.enumerate()}
    if _PROC.is_dir():
        stat = _proc_stat(owner.pid)
        if stat is None or stat[_STATE_FIELD_AFTER_NAME] == _ZOMBIE:
            return False
        return owner.start is None or int(stat[_START_FIELD_AFTER_NAME]) == owner.start
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _proc_stat(pid: int) -> list[bytes] | None:
    try:
        data = (_PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return None
    return data[data.rindex(b")") + 2 :].split()


def _start_ticks(pid: int) -> int | None:
    stat = _proc_stat(pid)
    return None if stat is None else int(stat[_START_FIELD_AFTER_NAME])


def _owner_from_name(name: str) -> Owner | None:
    """The pid and thread a journal's file name carries (start time unknown)."""
    stem = name[len(JOURNAL_PREFIX) :].split(".", 1)[0]
    pid, _, thread = stem.partition("-")
    if not (pid.isdigit() and thread.isdigit()):
        return None
    return Owner(pid=int(pid), start=None, thread=int(thread))


def _read(path: Path) -> Journal | UnreadableJournal | None:
    """The journal at ``path``; ``None`` when the file is gone (its writer finished)."""
    try:
        body = json.loads(path.read_text(encoding="utf-8"))
        owner = Owner(pid=int(body["pid"]), start=body["start"], thread=int(body["thread"]))
        return Journal(
            path=path,
            owner=owner,
            ref=str(body["ref"]),
            old=_sha(body["old"]),
            new=_sha(body["new"]),
            lock_inode=None if body["lockInode"] is None else int(body["lockInode"]),
            started_ns=int(body["startedNs"]),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return UnreadableJournal(path=path)


def _sha(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and len(value) == 40 and all(c in "0123456789abcdef" for c in value):
        return value
    raise ValueError("not a commit id")
