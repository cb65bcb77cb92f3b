"""The crash hook of the fault-injection suite (docs/faults.md): :func:`fault_point`.

The one module every adapter and the application may import whatever their layer (the import
rule names it): the git writer, the index passes and the recovery code all mark their steps
with it, so the suite can kill a real process at each of them.
"""

from __future__ import annotations

import os
import signal
from typing import Final

from memhtml.domain.errors import InvalidInput

ENV_FAULT_AT: Final = "MEMHTML_FAULT_AT"
"""``<step>`` or ``<step>:<n>``: the process kills itself (SIGKILL) at the n-th (default first)
time it reaches the named step. For the fault-injection tests only; see docs/faults.md."""

FAULT_STEPS: Final = frozenset(
    {
        # The git commit window (adapters/git/dulwich_writer.py), in order.
        "commit.locked",
        "commit.objects",
        "commit.prepared",
        "commit.ref",
        "commit.worktree",
        "commit.index",
        # A sync moving the branch to the merged or fetched commit
        # (adapters/git/dulwich_landing.py), in order.
        "advance.prepared",
        "advance.ref",
        "advance.index",
        # Finishing an interrupted commit (adapters/git/recovery.py).
        "recover.worktree",
        "recover.index",
        # The index passes (app/indexing) and the state import (adapters/sqlite).
        "rebuild.truncated",
        "rebuild.batch",
        "rebuild.projected",
        "rebuild.embedded",
        "update.batch",
        "update.projected",
        "embed.slice",
        "state.batch",
        # The application's own steps (app/).
        "mutation.committed",
        "heal.moved",
        "doctor.repaired",
        # A sync's own steps (app/use_cases/sync.py), in order.
        "sync.fetched",
        "sync.merged",
        "sync.pushed",
        "sync.indexed",
    }
)
"""Every step name the code reaches; a value of ``MEMHTML_FAULT_AT`` outside it is refused."""


class FaultSpecInvalid(InvalidInput):
    """``MEMHTML_FAULT_AT`` names no step, or its count is not a positive integer: a bad
    environment value (``ERR_INVALID_FLAG``), so a stray setting fails loudly instead of arming
    nothing or something else."""


def _parse(raw: str | None) -> tuple[str, int] | None:
    if raw is None or not raw.strip():
        return None
    step, _, count = raw.strip().partition(":")
    if step not in FAULT_STEPS or (count and not (count.isdigit() and int(count) > 0)):
        raise FaultSpecInvalid(f"{ENV_FAULT_AT}={raw!r} names no fault step")
    return step, int(count or "1")


# Read once, at import: when the variable is unset (always, outside the fault suite) every
# fault point costs one global read and a comparison with None.
_ARMED: Final = _parse(os.environ.get(ENV_FAULT_AT))
_hits: dict[str, int] = {}


def fault_point(step: str) -> None:
    """Die here, as ``kill -9`` would, if ``MEMHTML_FAULT_AT`` names this step and hit count.

    Nothing runs after the signal: no ``finally``, no ``atexit``, no buffered write, and pool
    workers are orphaned exactly as a real kill would orphan them.
    """
    if _ARMED is None:
        return
    target, count = _ARMED
    if step != target:
        return
    _hits[step] = _hits.get(step, 0) + 1
    if _hits[step] == count:
        os.kill(os.getpid(), signal.SIGKILL)
