"""Opening a store that a killed command or a damaged file left behind (issue 14).

Every command opens the store through two calls of the composition root:

- :func:`open_databases` opens index.db and state.db. A file SQLite calls damaged (or that
  is empty, or is not a database) is moved aside as ``<name>-corrupt-<stamp>`` and a new one
  is made: index.db is then rebuilt from git by the next pass that needs it, and state.db is
  restored from the committed sidecar by :func:`recover_store`. ``inspect`` mode (plain
  ``doctor``) moves nothing: it opens what it can and reports the rest.
- :func:`recover_store` finishes or undoes a commit a killed writer left (``GitWriter``), and
  restores a moved-aside state plane.

The mutation frame adds :func:`repair_before_writing`, so a long-lived process (the library,
the MCP server) repairs a crash that happened after it opened the store.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

import attrs

from memhtml.adapters import fault_point
from memhtml.domain.sidecar import parse_sidecar
from memhtml.ports.errors import IndexCorrupt, StateCorrupt, StorageFailure
from memhtml.ports.git_writer import (
    FOUND_INTERRUPTED_COMMIT,
    GitLocked,
    GitWriter,
    RecoveryFinding,
)

if TYPE_CHECKING:
    from memhtml.adapters.sqlite.connection import Database
    from memhtml.app.bootstrap import Services, Settings

logger = logging.getLogger("memhtml.recovery")

FOUND_INDEX_CORRUPT: Final = "index-corrupt"
"""index.db could not be read; it is a cache, rebuilt from git."""
FOUND_STATE_CORRUPT: Final = "state-corrupt"
"""state.db could not be read; it is restored from the committed sidecar."""
FOUND_CHECK_INCOMPLETE: Final = "integrity-check-incomplete"
"""The integrity check ran out of its time budget; nothing is known to be wrong."""
RESTORE_PENDING_SUFFIX: Final = "-restore-pending"
"""``state.db-restore-pending`` names the moved-aside state file until the new one is restored
from the sidecar, so a restore that is itself killed is run again by the next open (the merge
is by max, so running it twice changes nothing)."""
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


@attrs.frozen(kw_only=True)
class OpenedDatabases:
    """The open databases and what opening them found.

    Attributes:
        db: The connection (index as ``main``, state as ``state`` when attached).
        findings: Damaged files, moved aside (``repaired``) or only seen.
        state_aside: Where a damaged state.db went, when a new one must be restored.
    """

    db: Database
    findings: tuple[RecoveryFinding, ...]
    state_aside: Path | None = None


def open_databases(settings: Settings, *, heal: bool, verify: bool) -> OpenedDatabases:
    """Open index.db and state.db, moving a damaged one aside (``heal``) or around it.

    Args:
        settings: Where the files are, and the tokenizer a new index gets.
        heal: Move a damaged file aside and start a new one; otherwise (plain ``doctor``)
            open an empty in-memory index in place of a damaged one, or no state plane.
        verify: Run SQLite's page check on both files (bounded, ``INTEGRITY_BUDGET_S``),
            which finds damage that opening does not touch.

    Raises:
        StorageFailure: The files cannot be opened for a reason that is not damage (a full
            disk, permissions), or a damaged file cannot be moved aside.
    """
    from memhtml.adapters.sqlite.connection import Database
    from memhtml.adapters.sqlite.damage import DAMAGE_MARK_SUFFIX

    mark = settings.index_path.with_name(settings.index_path.name + DAMAGE_MARK_SUFFIX)
    # A statement met a damaged page last time: look at every page now (and heal).
    verify = verify or mark.exists()
    findings: list[RecoveryFinding] = []
    index: Path | str = settings.index_path
    state: Path | None = settings.state_path
    for _ in range(_ATTEMPTS):
        seen = (_inode(settings.index_path), _inode(settings.state_path))
        try:
            db = Database.open(index, state_path=state, fts_tokenizer=settings.fts_tokenizer)
        except (IndexCorrupt, StateCorrupt) as error:
            is_index = isinstance(error, IndexCorrupt)
            if heal:
                _heal(settings, is_index=is_index, why=error.operation, seen=seen, into=findings)
            elif is_index:
                findings.append(_seen(FOUND_INDEX_CORRUPT, settings.index_path, error.operation))
                index = _IN_MEMORY
            else:
                findings.append(_seen(FOUND_STATE_CORRUPT, settings.state_path, error.operation))
                state = None
            continue
        damage = _verified(db, findings) if verify else None
        if damage is None:
            if heal:
                mark.unlink(missing_ok=True)
            marker = _restore_marker(settings)
            aside = Path(marker.read_text(encoding="utf-8")) if marker.is_file() else None
            pending = aside if heal and db.has_state else None
            return OpenedDatabases(db=db, findings=tuple(findings), state_aside=pending)
        db.close()
        schema, complaint = damage
        if heal:
            _heal(settings, is_index=schema == "main", why=complaint, seen=seen, into=findings)
        elif schema == "main":
            findings.append(_seen(FOUND_INDEX_CORRUPT, settings.index_path, complaint))
            index = _IN_MEMORY
        else:
            findings.append(_seen(FOUND_STATE_CORRUPT, settings.state_path, complaint))
            state = None
    raise StorageFailure("open databases (still damaged after moving them aside)")


def _heal(
    settings: Settings,
    *,
    is_index: bool,
    why: str,
    seen: tuple[int | None, int | None],
    into: list[RecoveryFinding],
) -> None:
    """Move the damaged file aside; the index's finding is recorded now, the state's once
    it is restored (it then says how much came back)."""
    if is_index:
        aside = _move_aside(settings, settings.index_path, seen[0])
        detail = (
            f"index.db could not be read ({why}) and was moved aside to {aside.name}; "
            "the index is rebuilt from git by the next command that needs it"
        )
        logger.warning("%s", detail)
        into.append(
            RecoveryFinding(kind=FOUND_INDEX_CORRUPT, detail=detail, repaired=True, path=str(aside))
        )
    else:
        _move_aside(settings, settings.state_path, seen[1], restore=True)


def recover_store(
    services: Services, opened: OpenedDatabases, *, heal: bool, sweep: bool
) -> tuple[RecoveryFinding, ...]:
    """Finish or undo a killed writer's commit, and restore a moved-aside state plane.

    Never waits for a live writer: when the writers' lock is taken, that writer (or the next
    one) repairs what it finds before it commits.

    Args:
        services: The store, wired.
        opened: What :func:`open_databases` found.
        heal: Repair; otherwise only look (plain ``doctor``).
        sweep: Look through the whole repository (``doctor``), not only what a journal names.
    """
    found = list(opened.findings)
    writer = services.writer
    if not heal:
        found.extend(writer.inspect(sweep=sweep))
    elif sweep or writer.needs_recovery():
        with services.write_lock.held_if_free() as held:
            if held:
                found.extend(writer.recover(sweep=sweep))
    if opened.state_aside is not None:
        found.append(restore_state(services, opened.state_aside))
        _restore_marker(services.settings).unlink(missing_ok=True)
    return tuple(found)


def repair_before_writing(writer: GitWriter) -> tuple[RecoveryFinding, ...]:
    """Repair what a killed writer left before a mutation plans (the writers' lock is held).

    A git lock that merely is held (a git command at work) is left to the commit, which
    retries on it; only a killed commit that cannot be finished refuses the mutation, so the
    plan never builds on a working tree half-way to a commit.

    Raises:
        GitLocked: A killed commit waits for a git lock something alive holds; nothing is
            written until it is released.
    """
    if not writer.needs_recovery():
        return ()
    found = writer.recover()
    for finding in found:
        if finding.kind == FOUND_INTERRUPTED_COMMIT and not finding.repaired and finding.path:
            raise GitLocked(finding.path, finding.detail)
    return found


def restore_state(services: Services, aside: Path) -> RecoveryFinding:
    """Fill the new state plane from the committed sidecar; say what could not come back."""
    from memhtml.adapters.sqlite.state_sidecar import SqliteStatePlane
    from memhtml.app.use_cases.state_ops import SIDECAR_PATH

    sidecar = services.settings.root / SIDECAR_PATH
    lost = "access counts, reinforcements and outcomes"
    if not sidecar.is_file():
        detail = (
            f"state.db could not be read and was moved aside to {aside.name}; no sidecar was "
            f"ever exported ({SIDECAR_PATH}), so every one of its {lost} is lost"
        )
    else:
        text = sidecar.read_bytes().decode("utf-8", errors="replace")
        merged = SqliteStatePlane(services.db).import_access(text)
        newest = max((row.updated_at for row in parse_sidecar(text).rows), default=None)
        detail = (
            f"state.db could not be read and was moved aside to {aside.name}; restored "
            f"{merged.merged} access rows from {SIDECAR_PATH}; {lost} recorded after its "
            f"last export (newest row {newest or 'none'}) could not be recovered"
        )
    logger.warning("%s", detail)
    return RecoveryFinding(kind=FOUND_STATE_CORRUPT, detail=detail, repaired=True, path=str(aside))


def _seen(kind: str, path: Path, why: str) -> RecoveryFinding:
    name = path.name
    fix = "rebuilt from git" if kind == FOUND_INDEX_CORRUPT else "restored from the sidecar"
    detail = f"{name} cannot be read ({why}); `memhtml doctor --fix` moves it aside, {fix}"
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


def _restore_marker(settings: Settings) -> Path:
    return settings.state_path.with_name(settings.state_path.name + RESTORE_PENDING_SUFFIX)


def _inode(path: Path) -> int | None:
    try:
        return path.lstat().st_ino
    except FileNotFoundError:
        return None


def _move_aside(settings: Settings, path: Path, seen: int | None, *, restore: bool = False) -> Path:
    """Rename a damaged database (and its WAL and shared-memory files) out of the way.

    Under the writers' lock, and only if the file is still the one that failed (``seen``,
    its inode): two processes healing at once must not move each other's new file.

    Raises:
        StorageFailure: The file cannot be renamed.
    """
    from memhtml.adapters.git.write_lock import RepositoryWriteLock

    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    aside = path.with_name(f"{path.name}{CORRUPT_INFIX}{stamp}")
    with RepositoryWriteLock(settings.write_lock_path).held():
        if _inode(path) != seen:
            return aside
        if restore:
            _restore_marker(settings).write_text(str(aside), encoding="utf-8")
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
