"""``state export`` and ``state import``: the access table's committed copy
(docs/cli-contract.md §3.5).

state.db is what git cannot rebuild, so its durable form is ``.memhtml/state/access.jsonl``:
exported byte-stably and committed only when the bytes change, replayed with a merge
(docs/decisions.md §16) that never loses a count, a stamp or a negative outcome.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

import attrs

from memhtml.app.use_cases.collaborators import COMMIT_ATTEMPTS
from memhtml.app.use_cases.mutation import FIRST_PAUSE_S, PAUSE_JITTER
from memhtml.domain.commit_messages import commit_message
from memhtml.domain.errors import NotFound
from memhtml.domain.sidecar import SIDECAR_PATH as SIDECAR_PATH
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import GitPort
from memhtml.ports.git_writer import ChangeSet, FileWrite, GitWriter, HeadMoved
from memhtml.ports.state_plane import StatePlane

OP_STATE: Final = "state"


@attrs.frozen(kw_only=True)
class StateExportResult:
    """``state.export``.

    Attributes:
        path: The sidecar's repo path.
        rows: Access rows written.
        bytes: The sidecar's size.
        written: A commit landed (the bytes differed from HEAD's).
        commit_sha: That commit, else None.
    """

    path: str
    rows: int
    bytes: int
    written: bool
    commit_sha: str | None


@attrs.frozen(kw_only=True)
class StateImportResult:
    """``state.import``.

    Attributes:
        path: The sidecar's repo path.
        rows: Lines the sidecar holds that parsed as access rows.
        restored: Rows merged into the state plane.
        skipped: Torn or malformed lines, skipped.
        has_state: The state plane is attached.
    """

    path: str
    rows: int
    restored: int
    skipped: int
    has_state: bool


def export_subject(rows: int) -> str:
    """The commit subject after ``memhtml(state):``."""
    return f"export {rows} access rows to the committed sidecar"


def export_with(
    plane: StatePlane,
    git: GitPort,
    writer: GitWriter,
    *,
    attempts: int = COMMIT_ATTEMPTS,
    pause: Callable[[float], None] | None = None,
) -> StateExportResult:
    """Render the sidecar and commit it unless HEAD already holds exactly these bytes.

    Compared with HEAD rather than the working file, so an export after a hand edit of the
    sidecar still restores the committed copy to the table's truth.

    Raises:
        StorageFailure: The state plane cannot be read.
        HeadMoved: Other writers won every retry.
        GitFailure: The commit failed.
    """
    data = plane.export_access().encode("utf-8")
    rows = data.count(b"\n")
    message = commit_message(OP_STATE, export_subject(rows))
    tries = max(1, attempts)
    for attempt in range(tries):
        head = git.head()
        if head is not None and _committed(git, head) == data:
            return StateExportResult(
                path=SIDECAR_PATH, rows=rows, bytes=len(data), written=False, commit_sha=None
            )
        changes = ChangeSet(writes=(FileWrite(path=SIDECAR_PATH, data=data),))
        try:
            sha = writer.commit(changes, message, expected_head=head)
        except HeadMoved:
            if attempt == tries - 1:
                raise
            if pause is not None:
                pause(FIRST_PAUSE_S * 2**attempt * random.uniform(*PAUSE_JITTER))
            continue
        return StateExportResult(
            path=SIDECAR_PATH, rows=rows, bytes=len(data), written=True, commit_sha=sha
        )
    raise AssertionError("unreachable: the last attempt returns or raises")


def import_with(plane: StatePlane, sidecar: bytes, *, has_state: bool) -> StateImportResult:
    """Replay ``sidecar`` into the plane: counts and stamps by max, outcome from the later
    reinforcement, torn lines counted and skipped. No commit: nothing in git changes.

    Raises:
        StorageFailure: The state plane is missing or cannot be written.
    """
    text = sidecar.decode("utf-8", errors="replace")
    merged = plane.import_access(text)
    return StateImportResult(
        path=SIDECAR_PATH,
        rows=merged.merged,
        restored=merged.merged,
        skipped=merged.skipped,
        has_state=has_state,
    )


def _committed(git: GitPort, head: str) -> bytes | None:
    entries = git.list_tree(head, (SIDECAR_PATH,))
    match = [entry for entry in entries if entry.path == SIDECAR_PATH]
    if not match:
        return None
    return git.read_blobs((match[0].blob_sha,))[match[0].blob_sha]


def read_sidecar(git: GitPort) -> bytes:
    """The working-tree sidecar (what a checkout or a pull left there).

    Raises:
        NotFound: There is none yet: nothing was ever exported.
    """
    try:
        return git.read_working_file(SIDECAR_PATH)
    except GitFailure as error:
        raise NotFound(f"no sidecar at {SIDECAR_PATH}; run `memhtml state export` first") from error
