"""Opening ``index.db`` and ``state.db`` when a killed command or a damaged file left them
unreadable (issue 14).

A file SQLite calls damaged (or that is empty, or is not a database) is moved aside as
``<name>-corrupt-<stamp>`` and a new one begun: the index is rebuilt from git by the next pass
that needs it, and the state plane is restored from the committed sidecar by the application
(``memhtml.app.recovery``), which this module tells where the old file went. With ``heal`` off
(plain ``doctor``) nothing is moved: an empty in-memory index stands in for a damaged one, and
a damaged state plane is left unattached, so the report can still be made.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Final

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.damage import DAMAGE_MARK_SUFFIX
from memhtml.adapters.sqlite.storage import sqlite_storage
from memhtml.faults import fault_point
from memhtml.ports.errors import IndexCorrupt, StateCorrupt, StorageFailure
from memhtml.ports.git_writer import RecoveryFinding
from memhtml.ports.storage import (
    FOUND_CHECK_INCOMPLETE,
    FOUND_INDEX_CORRUPT,
    FOUND_STATE_CORRUPT,
    OpenedStorage,
    StorageLocation,
)

logger = logging.getLogger("memhtml.recovery")

RESTORE_PENDING_SUFFIX: Final = "-restore-pending"
"""``state.db-restore-pending`` names the moved-aside state file until the new one is restored
from the sidecar, so a restore that is itself killed is run again by the next open (the merge
is by max, so running it twice changes nothing). Empty, it marks a state plane this open is
about to create, to be filled from the sidecar the same way (``OpenedStorage.state_new``)."""
CORRUPT_INFIX: Final = "-corrupt-"
"""``index.db-corrupt-<stamp>``: a dash, so every store's ``.gitignore`` (``index.db-*``)
already ignores the kept copy."""
INTEGRITY_BUDGET_S: Final = 10.0
"""Seconds each database's integrity check may take in ``doctor`` (0.14 s at 10,000
memories on an idle core)."""
_CHECK_OK: Final = "ok"
_CHECK_INCOMPLETE: Final = "incomplete"
_IN_MEMORY: Final = ":memory:"
_ATTEMPTS: Final = 3

Exclusive = Callable[[], AbstractContextManager[None]]


def open_sqlite_storage(
    location: StorageLocation,
    *,
    heal: bool = True,
    verify: bool = False,
    exclusive: Exclusive = nullcontext,
) -> OpenedStorage:
    """The SQLite storage of one store, a damaged file moved aside (``heal``) or around.

    Raises:
        StorageFailure: The files cannot be opened for a reason that is not damage (a full
            disk, permissions), or a damaged file cannot be moved aside.
    """
    index_path, state_path = Path(location.index_path), Path(location.state_path)
    index_path.parent.mkdir(parents=True, exist_ok=True)
    mark = index_path.with_name(index_path.name + DAMAGE_MARK_SUFFIX)
    # A statement met a damaged page last time: look at every page now (and heal).
    verify = verify or mark.exists()
    findings: list[RecoveryFinding] = []
    index: Path | str = index_path
    state: Path | None = state_path
    marker = _restore_marker(state_path)
    if not os.path.lexists(state_path) and not marker.exists():
        # Written before the file exists, so a fill killed at any point is redone.
        marker.write_text("", encoding="utf-8")
    for _ in range(_ATTEMPTS):
        seen = (_inode(index_path), _inode(state_path))
        try:
            db = Database.open(index, state_path=state, fts_tokenizer=location.fts_tokenizer)
        except (IndexCorrupt, StateCorrupt) as error:
            is_index = isinstance(error, IndexCorrupt)
            target = index_path if is_index else state_path
            if heal:
                _heal(target, is_index, error.operation, seen, findings, exclusive)
            elif is_index:
                findings.append(_seen(FOUND_INDEX_CORRUPT, index_path, error.operation))
                index = _IN_MEMORY
            else:
                findings.append(_seen(FOUND_STATE_CORRUPT, state_path, error.operation))
                state = None
            continue
        damage = _verified(db, findings) if verify else None
        if damage is None:
            if heal:
                mark.unlink(missing_ok=True)
            pending = _pending(marker) if heal and db.has_state else None
            return OpenedStorage(
                storage=sqlite_storage(db),
                findings=tuple(findings),
                state_aside=pending or None,
                state_new=pending == "",
                restored=functools.partial(marker.unlink, missing_ok=True),
            )
        db.close()
        schema, complaint = damage
        is_index = schema == "main"
        if heal:
            target = index_path if is_index else state_path
            _heal(target, is_index, complaint, seen, findings, exclusive)
        elif is_index:
            findings.append(_seen(FOUND_INDEX_CORRUPT, index_path, complaint))
            index = _IN_MEMORY
        else:
            findings.append(_seen(FOUND_STATE_CORRUPT, state_path, complaint))
            state = None
    raise StorageFailure("open databases (still damaged after moving them aside)")


def _heal(
    path: Path,
    is_index: bool,
    why: str,
    seen: tuple[int | None, int | None],
    into: list[RecoveryFinding],
    exclusive: Exclusive,
) -> None:
    """Move the damaged file aside; the index's finding is recorded now, the state's once
    it is restored (it then says how much came back)."""
    if is_index:
        aside = _move_aside(path, seen[0], exclusive)
        detail = (
            f"index.db could not be read ({why}) and was moved aside to {aside.name}; "
            "the index is rebuilt from git by the next command that needs it"
        )
        logger.warning("%s", detail)
        into.append(
            RecoveryFinding(kind=FOUND_INDEX_CORRUPT, detail=detail, repaired=True, path=str(aside))
        )
    else:
        _move_aside(path, seen[1], exclusive, restore=True)


def _seen(kind: str, path: Path, why: str) -> RecoveryFinding:
    fix = "rebuilt from git" if kind == FOUND_INDEX_CORRUPT else "restored from the sidecar"
    detail = f"{path.name} cannot be read ({why}); `memhtml doctor --fix` moves it aside, {fix}"
    return RecoveryFinding(kind=kind, detail=detail, repaired=False, path=str(path))


def _verified(db: Database, findings: list[RecoveryFinding]) -> tuple[str, str] | None:
    """The first damaged schema and SQLite's complaint, or ``None``; a check that ran out
    of time is recorded as a finding and counts as passed."""
    schemas = ("main", "state") if db.has_state else ("main",)
    for schema in schemas:
        result = db.integrity(schema, budget_s=INTEGRITY_BUDGET_S)
        if result == _CHECK_INCOMPLETE:
            findings.append(
                RecoveryFinding(
                    kind=FOUND_CHECK_INCOMPLETE,
                    detail=f"the {schema} database's check stopped after {INTEGRITY_BUDGET_S} s",
                    repaired=False,
                )
            )
        elif result != _CHECK_OK:
            return schema, f"integrity check: {result}"
    return None


def _restore_marker(state_path: Path) -> Path:
    return state_path.with_name(state_path.name + RESTORE_PENDING_SUFFIX)


def _pending(marker: Path) -> str | None:
    """The marker's text (``""``: a new plane to fill), or ``None`` when there is none (another
    process may have finished the fill and removed it a moment ago)."""
    try:
        return marker.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _inode(path: Path) -> int | None:
    try:
        return path.lstat().st_ino
    except FileNotFoundError:
        return None


def _move_aside(
    path: Path, seen: int | None, exclusive: Exclusive, *, restore: bool = False
) -> Path:
    """Rename a damaged database (and its WAL and shared-memory files) out of the way.

    Under ``exclusive`` (the writers' lock), and only if the file is still the one that failed
    (``seen``, its inode): two processes healing at once must not move each other's new file.

    Raises:
        StorageFailure: The file cannot be renamed.
    """
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}{CORRUPT_INFIX}{stamp}")
    with exclusive():
        if _inode(path) != seen:
            return aside
        if restore:
            _restore_marker(path).write_text(str(aside), encoding="utf-8")
        try:
            os.replace(path, aside)
        except OSError as error:
            raise StorageFailure(f"move aside {path.name}") from error
        for suffix in ("-wal", "-shm"):
            sibling = path.with_name(path.name + suffix)
            if sibling.exists():
                # A WAL left beside a new database would be replayed into it.
                os.replace(sibling, aside.with_name(aside.name + suffix))
        fault_point("heal.moved")
    return aside
