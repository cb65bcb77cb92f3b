"""Repairing what a killed command or a damaged file left, as a store opens (issue 14).

Storage moves a damaged file aside itself when it opens (``StorageOpener``); this module does
the rest through ports: it finishes or undoes a commit a killed writer left (``GitWriter``),
and fills a new state plane from the committed sidecar. The mutation frame calls
:func:`repair_before_writing`, so a long-lived process (the library, the MCP server) repairs a
crash that happened after it opened the store.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import PurePosixPath
from typing import Final

from memhtml.domain.sidecar import SIDECAR_PATH, parse_sidecar
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import (
    FOUND_INTERRUPTED_COMMIT,
    GitLocked,
    GitWriter,
    RecoveryFinding,
)
from memhtml.ports.state_plane import StatePlane
from memhtml.ports.storage import FOUND_STATE_CORRUPT, OpenedStorage

logger = logging.getLogger("memhtml.recovery")

LOST: Final = "access counts, reinforcements and outcomes"


def recover_store(
    *,
    opened: OpenedStorage,
    writer: GitWriter,
    git: GitPort,
    lock_if_free: Callable[[], AbstractContextManager[bool]],
    heal: bool,
    sweep: bool,
) -> tuple[RecoveryFinding, ...]:
    """Finish or undo a killed writer's commit, and restore a moved-aside state plane.

    Never waits for a live writer: when the writers' lock is taken, that writer (or the next
    one) repairs what it finds before it commits.

    Args:
        opened: The storage and what opening it found.
        writer: The repository's writer (it knows its own journal).
        git: Reads the sidecar from the working tree.
        lock_if_free: The writers' lock, taken only when nobody holds it.
        heal: Repair; otherwise only look (plain ``doctor``).
        sweep: Look through the whole repository (``doctor``), not only what a journal names.
    """
    found = list(opened.findings)
    if not heal:
        found.extend(writer.inspect(sweep=sweep))
    elif sweep or writer.needs_recovery():
        with lock_if_free() as held:
            if held:
                found.extend(writer.recover(sweep=sweep))
    if opened.state_aside is not None:
        found.append(restore_state(opened.storage.state, git, opened.state_aside))
        opened.restored()
    elif opened.state_new:
        fill_new_state(opened.storage.state, git)
        opened.restored()
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


def fill_new_state(plane: StatePlane, git: GitPort) -> int:
    """Fill a state plane created just now from the committed sidecar; the rows merged.

    Not a repair (nothing was lost), so no finding: a fresh clone's first command, or a store
    whose ``state.db`` was deleted, starts from the counts the store committed.
    """
    try:
        sidecar = git.read_working_file(SIDECAR_PATH)
    except GitFailure:
        return 0  # nothing was ever exported: a new store
    merged = plane.import_access(sidecar.decode("utf-8", errors="replace")).merged
    logger.info("state.db created: %d access rows filled from %s", merged, SIDECAR_PATH)
    return merged


def restore_state(plane: StatePlane, git: GitPort, aside: str) -> RecoveryFinding:
    """Fill the new state plane from the committed sidecar; say what could not come back."""
    name = PurePosixPath(aside).name
    try:
        sidecar: bytes | None = git.read_working_file(SIDECAR_PATH)
    except GitFailure:
        sidecar = None
    if sidecar is None:
        detail = (
            f"state.db could not be read and was moved aside to {name}; no sidecar was "
            f"ever exported ({SIDECAR_PATH}), so every one of its {LOST} is lost"
        )
    else:
        text = sidecar.decode("utf-8", errors="replace")
        merged = plane.import_access(text)
        newest = max((row.updated_at for row in parse_sidecar(text).rows), default=None)
        detail = (
            f"state.db could not be read and was moved aside to {name}; restored "
            f"{merged.merged} access rows from {SIDECAR_PATH}; {LOST} recorded after its "
            f"last export (newest row {newest or 'none'}) could not be recovered"
        )
    logger.warning("%s", detail)
    return RecoveryFinding(kind=FOUND_STATE_CORRUPT, detail=detail, repaired=True, path=aside)
