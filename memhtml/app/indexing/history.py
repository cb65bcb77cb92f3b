"""Keeping the transaction-time spans beside the index (docs/index-schema.md §7).

``index rebuild`` walks HEAD's whole first-parent line; ``index update`` walks the commits since
the line's recorded tip. Each commit's spans come from the blobs its diff against its first
parent changed (``memhtml.domain.history.span_step``), read for the whole walk in one pass over
the repository. When the recorded tip is no longer on the line (history rewritten under the
index), the spans are dropped and the store says ``index rebuild`` rather than answer
``--known-at`` from a line that is not HEAD's.
"""

from __future__ import annotations

from typing import Final

from memhtml.domain.history import LineCommit, SpanStep, span_step
from memhtml.domain.paths import is_indexable_path
from memhtml.ports.git import GitPort, LineStep
from memhtml.ports.history_store import HistoryMoved, HistoryStore

_STEP_BATCH: Final = 500
"""Commits written per transaction."""


def rebuild_line(git: GitPort, history: HistoryStore) -> int:
    """Forget the spans and walk HEAD's whole first-parent line again; the commits walked."""
    line = git.first_parent_changes(None) or ()
    history.reset_history()
    try:
        _extend(history, line, first_seq=1, blobs={})
    except HistoryMoved:
        return 0  # an update in another process went on from a batch already written
    return len(line)


def follow_line(git: GitPort, history: HistoryStore, head: str | None = None) -> int:
    """Extend the spans with the commits since the recorded tip; the commits walked.

    A store whose spans were never built is left alone (``index rebuild`` builds them); one whose
    tip left the line loses its spans, so ``--known-at`` refuses until the next rebuild.
    ``head`` is HEAD as the caller just read it: when the tip is that commit, git is not asked
    again (a later commit is followed by the next update).
    """
    state = history.history_state()
    if not state.built:
        return 0
    tip = state.tip
    if head is not None and tip is not None and tip.sha == head:
        return 0
    line = git.first_parent_changes(None if tip is None else tip.sha)
    if line is None:
        history.reset_history()
        return 0
    if not line:
        return 0
    first_seq = 1 if tip is None else tip.seq + 1
    # A step reads the open blob of the paths it changes only (``span_step``).
    changed = {path for entry in line for path, _ in entry.changes if is_indexable_path(path)}
    try:
        _extend(history, line, first_seq=first_seq, blobs=dict(history.open_blobs(changed)))
    except HistoryMoved:
        return 0  # another process extended it first; the next update follows on from there
    return len(line)


def _extend(
    history: HistoryStore, line: tuple[LineStep, ...], *, first_seq: int, blobs: dict[str, str]
) -> None:
    if not line:
        history.extend_history((), ())
        return
    commits: list[LineCommit] = []
    steps: list[SpanStep] = []
    for offset, entry in enumerate(line):
        seq = first_seq + offset
        changed = {path: blob for path, blob in entry.changes if is_indexable_path(path)}
        step = span_step(blobs, seq, changed)
        for path in step.closed:
            del blobs[path]
        blobs.update((span.path, span.blob_sha) for span in step.opened)
        commits.append(LineCommit(seq=seq, sha=entry.sha, at=entry.at))
        steps.append(step)
        if len(commits) >= _STEP_BATCH:
            history.extend_history(commits, steps)
            commits, steps = [], []
    if commits:
        history.extend_history(commits, steps)
