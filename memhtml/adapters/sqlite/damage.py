"""Damaged database files: telling them from other failures, naming which file, checking pages.

SQLite reports a file that is not a usable database with three primary codes: damaged pages or
header (``SQLITE_CORRUPT``), not a database at all (``SQLITE_NOTADB``), or a path that cannot
be opened as one, such as a directory (``SQLITE_CANTOPEN``). Each becomes ``StorageCorrupt``,
or while opening, ``IndexCorrupt``/``StateCorrupt`` naming the file, so the application can
move that file aside and rebuild or restore it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from os import PathLike
from typing import Final, Protocol

from memhtml.ports.errors import StorageCorrupt, StorageFailure

_SQLITE_CANTOPEN: Final = 14
_SQLITE_CORRUPT: Final = 11
_SQLITE_NOTADB: Final = 26
_DAMAGED_CODES: Final = frozenset({_SQLITE_CANTOPEN, _SQLITE_CORRUPT, _SQLITE_NOTADB})
_PRIMARY_CODE_MASK: Final = 0xFF
# How often (in SQLite virtual-machine steps) an integrity check looks at its time budget.
_CHECK_POLL_STEPS: Final = 10_000
_IN_MEMORY: Final = ":memory:"
DAMAGE_MARK_SUFFIX: Final = "-damaged"
"""``index.db-damaged``: left when a statement met a damaged page of either file, so the next
open checks both files' pages and moves the damaged one aside (the opener removes it)."""
CHECK_OK: Final = "ok"
CHECK_INCOMPLETE: Final = "incomplete"


class _Checkable(Protocol):
    def set_progress_handler(self, handler: object, n: int) -> None: ...

    def execute(self, sql: str) -> _Rows: ...


class _Rows(Protocol):
    def fetchall(self) -> list[tuple[object, ...]]: ...


def is_damage(error: BaseException | None) -> bool:
    """Whether a driver error says the database file itself is unusable."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & _PRIMARY_CODE_MASK in _DAMAGED_CODES


def refuse_empty(path: str | PathLike[str], damaged: StorageCorrupt) -> None:
    """Raise ``damaged`` when ``path`` is an existing file of zero bytes.

    SQLite would open it as a new, empty database: for state.db that is every count lost
    without a word. A store's files are never empty once opened (the migrations write them).
    """
    if str(path) == _IN_MEMORY:
        return
    try:
        empty = os.stat(path).st_size == 0 and os.path.isfile(path)
    except OSError:
        return
    if empty:
        raise damaged


@contextlib.contextmanager
def damage_as(kind: type[StorageCorrupt]) -> Iterator[None]:
    """Re-raise a damaged-file failure of this block as ``kind``, naming which file it was."""
    try:
        yield
    except StorageFailure as failure:
        if isinstance(failure, kind):
            raise
        if isinstance(failure, StorageCorrupt) or is_damage(failure.__cause__):
            raise kind(failure.operation) from failure.__cause__
        raise


def quick_check(
    connection: _Checkable,
    schema: str,
    *,
    budget_s: float,
    driver: tuple[type[BaseException], ...],
) -> str:
    """SQLite's ``quick_check`` of one schema, stopped after ``budget_s`` seconds.

    ``quick_check`` reads every page once (0.14 s for a 10,000-memory index on an idle core)
    but skips the index-content cross-checks of ``integrity_check``; the budget keeps
    ``doctor`` from hanging on a huge or slow store.

    Args:
        connection: The driver connection.
        schema: ``main`` or ``state``.
        budget_s: Seconds the check may take.
        driver: The driver's exception classes.

    Returns:
        ``CHECK_OK``, ``CHECK_INCOMPLETE`` when the budget ran out, else SQLite's first
        complaint.
    """
    deadline = time.monotonic() + budget_s

    def over_budget() -> int:
        return 1 if time.monotonic() > deadline else 0

    connection.set_progress_handler(over_budget, _CHECK_POLL_STEPS)
    try:
        rows = connection.execute(f"PRAGMA {schema}.quick_check(1)").fetchall()
    except driver as error:
        if time.monotonic() > deadline and not is_damage(error):
            return CHECK_INCOMPLETE
        return f"unreadable ({type(error).__name__})"
    finally:
        connection.set_progress_handler(None, 0)
    first = str(rows[0][0]) if rows else CHECK_OK
    return CHECK_OK if first == CHECK_OK else first
