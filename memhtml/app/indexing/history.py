"""Keeping the transaction-time spans beside the index (docs/index-schema.md §7).

``index rebuild`` walks HEAD's whole first-parent line; ``index update`` walks the commits since
the line's recorded tip. Each commit's spans come from its diff against its first parent and the
blobs the changed paths hold after it (``memhtml.domain.history.span_step``). When the recorded
tip is no longer on the line (history rewritten under the index), the spans are dropped and the
store says ``index rebuild`` rather than answer ``--known-at`` from a line that is not HEAD's.
"""

from __future__ import annotations

from typing import Final

from memhtml.domain.history import LineCommit, SpanStep, span_step
from memhtml.domain.paths import is_indexable_path
from memhtml.ports.git import CommitTime, GitPort
from memhtml.ports.history_store import HistoryStore

_WHOLE_TREE_OVER: Final = 256
"""Past this many changed paths one commit's tree is listed whole instead of path by path."""

_STEP_BATCH: Final = 200
"""Commits written per transaction."""


def rebuild_line(git: GitPort, history: HistoryStore) -> int:
    """Forget the spans and walk HEAD's whole first-parent line again; the commits walked."""
    history.reset_history()
    line = git.first_parents(None) or ()
    _extend(git, history, line, previous=None, first_seq=1, open_blobs={})
    return len(line)


def follow_line(git: GitPort, history: HistoryStore) -> int:
    """Extend the spans with the commits since the recorded tip; the commits walked.

    A store whose spans were never built is left alone (``index rebuild`` builds them); one whose
    tip left the line loses its spans, so ``--known-at`` refuses until the next rebuild.
    """
    state = history.history_state()
    if not state.built:
        return 0
    tip = state.tip
    line = git.first_parents(None if tip is None else tip.sha)
    if line is None:
        history.reset_history()
        return 0
    if not line:
        return 0
    first_seq = 1 if tip is None else tip.seq + 1
    previous = None if tip is None else tip.sha
    _extend(git, history, line, previous=previous, first_seq=first_seq, open_blobs=None)
    return len(line)


def _extend(
    git: GitPort,
    history: HistoryStore,
    line: tuple[CommitTime, ...],
    *,
    previous: str | None,
    first_seq: int,
    open_blobs: dict[str, str] | None,
) -> None:
    blobs = dict(history.open_blobs()) if open_blobs is None else open_blobs
    commits: list[LineCommit] = []
    steps: list[SpanStep] = []
    if not line:
        history.extend_history((), ())
        return
    for offset, entry in enumerate(line):
        seq = first_seq + offset
        step = span_step(blobs, seq, _changed_tree(git, previous, entry.sha))
        for path in step.closed:
            del blobs[path]
        blobs.update((span.path, span.blob_sha) for span in step.opened)
        commits.append(LineCommit(seq=seq, sha=entry.sha, at=entry.at))
        steps.append(step)
        previous = entry.sha
        if len(commits) >= _STEP_BATCH:
            history.extend_history(commits, steps)
            commits, steps = [], []
    if commits:
        history.extend_history(commits, steps)


def _changed_tree(git: GitPort, before: str | None, after: str) -> dict[str, str | None]:
    """For each memory path the commit may have changed, its blob after it (``None``: gone)."""
    changed: set[str] = set()
    for entry in git.diff(before, after):
        changed.add(entry.path)
        if entry.from_path is not None:
            changed.add(entry.from_path)
    paths = sorted(p for p in changed if is_indexable_path(p))
    if not paths:
        return {}
    listed = git.list_tree(after) if len(paths) > _WHOLE_TREE_OVER else git.list_tree(after, paths)
    held = {entry.path: entry.blob_sha for entry in listed}
    return {path: held.get(path) for path in paths}
