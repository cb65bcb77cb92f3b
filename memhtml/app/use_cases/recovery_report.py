"""What ``doctor`` says about the store's recovery (issue 14): each condition a killed command
or a damaged file left, and the command that repairs it."""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.ports.git_writer import (
    FOUND_COMMIT_IN_PROGRESS,
    FOUND_HELD_LOCK,
    FOUND_INTERRUPTED_COMMIT,
    GitWriter,
    RecoveryFinding,
)
from memhtml.ports.indexer import Indexer
from memhtml.ports.storage import FOUND_CHECK_INCOMPLETE, FOUND_INDEX_CORRUPT, FOUND_STATE_CORRUPT

FOUND_INDEX_INCOMPLETE: Final = "index-incomplete"
"""A rebuild died and left the index partial; the next read or write resumes it."""
FOUND_INDEX_REBUILDING: Final = "index-rebuilding"
"""Another process is rebuilding the index right now."""
DOCTOR_FIX: Final = "memhtml doctor --fix"
FIXES: Final[dict[str, str | None]] = {
    FOUND_INDEX_CORRUPT: DOCTOR_FIX,
    FOUND_STATE_CORRUPT: DOCTOR_FIX,
    FOUND_INDEX_INCOMPLETE: "memhtml index rebuild",
    FOUND_INTERRUPTED_COMMIT: DOCTOR_FIX,
    FOUND_HELD_LOCK: "wait for the git command holding the lock to finish",
}
"""The command that repairs each kind; ``doctor --fix`` for the rest (``None``: nothing to do)."""
INFORMATIONAL: Final = frozenset(
    {FOUND_CHECK_INCOMPLETE, FOUND_COMMIT_IN_PROGRESS, FOUND_HELD_LOCK, FOUND_INDEX_REBUILDING}
)
"""Kinds that describe something in progress, not something wrong: ``healthy`` ignores them."""
_NOTHING_TO_DO: Final = INFORMATIONAL - {FOUND_HELD_LOCK}


@attrs.frozen(kw_only=True)
class StoreFinding:
    """One thing a killed command or a damaged file left, as ``doctor`` reports it.

    Attributes:
        kind: What (``interrupted-commit``, ``stale-lock``, ``index-corrupt``…).
        detail: Which files or commits, and what was or will be done.
        fix: The command that repairs it; ``None`` when nothing needs doing.
    """

    kind: str
    detail: str
    fix: str | None


def described(findings: tuple[RecoveryFinding, ...]) -> tuple[StoreFinding, ...]:
    """Findings as ``doctor`` reports them, each with the command that repairs it."""
    return tuple(
        StoreFinding(
            kind=f.kind,
            detail=f.detail,
            fix=None if f.repaired or f.kind in _NOTHING_TO_DO else FIXES.get(f.kind, DOCTOR_FIX),
        )
        for f in findings
    )


def doctor_findings(
    opened: tuple[RecoveryFinding, ...],
    writer: GitWriter,
    indexer: Indexer,
    *,
    after_fix: bool,
) -> tuple[StoreFinding, ...]:
    """What is left to repair: after ``--fix`` a fresh look, otherwise what opening saw
    (``opened``), plus an index a died rebuild left partial."""
    found = list(writer.inspect(sweep=True)) if after_fix else [f for f in opened if not f.repaired]
    state = indexer.index_state()
    if state is not None and state.head_sha is None:
        if indexer.rebuild_in_progress():
            found.append(
                RecoveryFinding(
                    kind=FOUND_INDEX_REBUILDING,
                    detail="another process is rebuilding the index",
                    repaired=False,
                )
            )
        else:
            found.append(
                RecoveryFinding(
                    kind=FOUND_INDEX_INCOMPLETE,
                    detail="a rebuild died and left the index partial; the next read or "
                    "write rebuilds it",
                    repaired=False,
                )
            )
    return described(tuple(found))


def needs_attention(findings: tuple[StoreFinding, ...]) -> bool:
    """Whether any finding is a problem rather than work in progress."""
    return any(f.kind not in INFORMATIONAL for f in findings)
