"""``MemoryHistoryStore``: the history store port over ``MemoryTables`` (the twin of
``adapters/sqlite/history_store.py``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import attrs

from memhtml.adapters.memory.tables import MemoryTables
from memhtml.domain.history import LineCommit, Span, SpanStep, seq_known_at
from memhtml.ports.history_store import HistoryMoved, HistoryState


class MemoryHistoryStore:
    """The :class:`memhtml.ports.history_store.HistoryStore` port in memory."""

    def __init__(self, tables: MemoryTables) -> None:
        """Read and write ``tables``."""
        self._t = tables

    def history_state(self) -> HistoryState:
        """See ``HistoryStore.history_state``."""
        t = self._t
        tip = t.history_commits[max(t.history_commits)] if t.history_commits else None
        return HistoryState(
            built=t.history_built, tip=tip, commits=len(t.history_commits), spans=len(t.spans)
        )

    def reset_history(self) -> None:
        """See ``HistoryStore.reset_history``."""
        with self._t.transaction("reset history"):
            self._t.spans = {}
            self._t.history_commits = {}
            self._t.history_built = False

    def extend_history(self, commits: Sequence[LineCommit], steps: Sequence[SpanStep]) -> None:
        """See ``HistoryStore.extend_history``."""
        t = self._t
        if len(commits) != len(steps):
            raise ValueError("one step per commit")
        seqs = [c.seq for c in commits]
        if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
            raise ValueError("commit numbers must be consecutive")
        if seqs and seqs[0] != max(t.history_commits, default=0) + 1:
            raise HistoryMoved
        with t.transaction("extend history"):
            spans, line = dict(t.spans), dict(t.history_commits)
            open_at = {s.path: key for key, s in spans.items() if s.until_seq is None}
            for commit, step in zip(commits, steps, strict=True):
                line[commit.seq] = commit
                for path in step.closed:
                    key = open_at.pop(path, None)
                    if key is not None:
                        spans[key] = attrs.evolve(spans[key], until_seq=commit.seq)
                for span in step.opened:
                    key = (span.path, span.from_seq)
                    if key in spans or span.path in open_at:
                        raise ValueError("a path holds one open span")
                    spans[key] = span
                    open_at[span.path] = key
            t.spans, t.history_commits, t.history_built = spans, line, True

    def open_blobs(self, paths: Collection[str] | None = None) -> Mapping[str, str]:
        """See ``HistoryStore.open_blobs``."""
        wanted = None if paths is None else set(paths)
        return {
            s.path: s.blob_sha
            for s in self._t.spans.values()
            if s.until_seq is None and (wanted is None or s.path in wanted)
        }

    def commit_known_at(self, epoch_seconds: int) -> LineCommit | None:
        """See ``HistoryStore.commit_known_at``."""
        return seq_known_at(self._t.history_commits.values(), epoch_seconds)

    def spans_at(self, seq: int) -> tuple[Span, ...]:
        """See ``HistoryStore.spans_at``."""
        return tuple(sorted((s for s in self._t.spans.values() if s.covers(seq)), key=_path))

    def unindexed_at(self, seq: int) -> tuple[Span, ...]:
        """See ``HistoryStore.unindexed_at``."""
        files = self._t.files
        return tuple(
            span
            for span in self.spans_at(seq)
            if span.path not in files or files[span.path].blob_sha != span.blob_sha
        )


def _path(span: Span) -> str:
    return span.path
