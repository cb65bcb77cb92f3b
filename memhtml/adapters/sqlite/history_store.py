"""``SqliteHistoryStore``: the history store port over ``history_commits`` and ``file_spans``
(migration 0008; docs/index-schema.md §7)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Final

from memhtml.adapters.sqlite.connection import Database, Query, Write, WriteMany
from memhtml.domain.history import LineCommit, Span, SpanStep
from memhtml.ports.history_store import HistoryMoved, HistoryState

_BUILT_SETTING: Final = "history"
_OPEN_SQL: Final = "SELECT path, blob_sha FROM file_spans WHERE until_seq IS NULL"
_PATHS_PER_STATEMENT: Final = 500
_BUILT_VALUE: Final = "first-parent"

_COVERS: Final = "s.from_seq <= ?1 AND (s.until_seq IS NULL OR s.until_seq > ?1)"
_SPANS_AT_SQL: Final = (
    f"SELECT s.path, s.blob_sha, s.from_seq, s.until_seq FROM file_spans s WHERE {_COVERS} "
    "ORDER BY s.path"
)
_UNINDEXED_AT_SQL: Final = (
    f"SELECT s.path, s.blob_sha, s.from_seq, s.until_seq FROM file_spans s WHERE {_COVERS} "
    "AND NOT EXISTS (SELECT 1 FROM files f WHERE f.path = s.path AND f.blob_sha = s.blob_sha) "
    "ORDER BY s.path"
)


class SqliteHistoryStore:
    """The :class:`memhtml.ports.history_store.HistoryStore` port over one SQLite index."""

    def __init__(self, db: Database) -> None:
        """Read and write ``db``."""
        self._db = db

    def history_state(self) -> HistoryState:
        """See ``HistoryStore.history_state``."""
        op = "read history state"
        built = self._db.get(
            "SELECT 1 FROM index_settings WHERE name = ?", (_BUILT_SETTING,), operation=op
        )
        tip = self._db.get(
            "SELECT seq, sha, committed_at FROM history_commits ORDER BY seq DESC LIMIT 1",
            operation=op,
        )
        counts = self._db.get(
            "SELECT (SELECT count(*) FROM history_commits), (SELECT count(*) FROM file_spans)",
            operation=op,
        )
        commits, spans = (0, 0) if counts is None else (int(str(counts[0])), int(str(counts[1])))
        return HistoryState(
            built=built is not None,
            tip=None if tip is None else _commit(tip),
            commits=commits,
            spans=spans,
        )

    def reset_history(self) -> None:
        """See ``HistoryStore.reset_history``."""
        self._db.write_all(
            [
                ("DELETE FROM file_spans", ()),
                ("DELETE FROM history_commits", ()),
                ("DELETE FROM index_settings WHERE name = ?", (_BUILT_SETTING,)),
            ],
            operation="reset history",
        )

    def extend_history(self, commits: Sequence[LineCommit], steps: Sequence[SpanStep]) -> None:
        """See ``HistoryStore.extend_history``."""
        if len(commits) != len(steps):
            raise ValueError("one step per commit")
        seqs = [c.seq for c in commits]
        if seqs and seqs != list(range(seqs[0], seqs[0] + len(seqs))):
            raise ValueError("commit numbers must be consecutive")
        writes: list[Write | WriteMany] = []
        for commit, step in zip(commits, steps, strict=True):
            writes.append(
                (
                    "INSERT INTO history_commits(seq, sha, committed_at) VALUES (?, ?, ?)",
                    (commit.seq, commit.sha, commit.at),
                )
            )
            writes.append(
                WriteMany(
                    "UPDATE file_spans SET until_seq = ? WHERE path = ? AND until_seq IS NULL",
                    [(commit.seq, path) for path in step.closed],
                )
            )
            writes.append(
                WriteMany(
                    "INSERT INTO file_spans(path, blob_sha, from_seq) VALUES (?, ?, ?)",
                    [(s.path, s.blob_sha, s.from_seq) for s in step.opened],
                )
            )
        writes.append(
            (
                "INSERT OR REPLACE INTO index_settings(name, value) VALUES (?, ?)",
                (_BUILT_SETTING, _BUILT_VALUE),
            )
        )

        def plan(query: Query) -> list[Write | WriteMany]:
            # Checked inside the write transaction: two updates racing cannot both extend.
            row = query("SELECT max(seq) FROM history_commits", ())
            tip = row[0][0] if row and row[0][0] is not None else 0
            if seqs and seqs[0] != int(str(tip)) + 1:
                raise HistoryMoved
            return writes

        self._db.write_planned(plan, operation="extend history")

    def open_blobs(self, paths: Collection[str] | None = None) -> Mapping[str, str]:
        """See ``HistoryStore.open_blobs``: one statement, or one per ``_PATHS_PER_STATEMENT``
        of ``paths`` through the partial index on open spans."""
        if paths is None:
            rows = self._db.all(_OPEN_SQL, operation="read open spans")
            return {str(path): str(blob) for path, blob in rows}
        asked = sorted(set(paths))
        found: dict[str, str] = {}
        for start in range(0, len(asked), _PATHS_PER_STATEMENT):
            batch = asked[start : start + _PATHS_PER_STATEMENT]
            marks = ", ".join("?" * len(batch))
            rows = self._db.all(
                f"{_OPEN_SQL} AND path IN ({marks})", tuple(batch), operation="read open spans"
            )
            found.update((str(path), str(blob)) for path, blob in rows)
        return found

    def commit_known_at(self, epoch_seconds: int) -> LineCommit | None:
        """See ``HistoryStore.commit_known_at``."""
        row = self._db.get(
            "SELECT seq, sha, committed_at FROM history_commits WHERE committed_at <= ? "
            "ORDER BY seq DESC LIMIT 1",
            (epoch_seconds,),
            operation="read commit known at",
        )
        return None if row is None else _commit(row)

    def spans_at(self, seq: int) -> tuple[Span, ...]:
        """See ``HistoryStore.spans_at``."""
        return self._spans(_SPANS_AT_SQL, seq)

    def unindexed_at(self, seq: int) -> tuple[Span, ...]:
        """See ``HistoryStore.unindexed_at``."""
        return self._spans(_UNINDEXED_AT_SQL, seq)

    def _spans(self, sql: str, seq: int) -> tuple[Span, ...]:
        rows = self._db.all(sql, (seq,), operation="read spans")
        return tuple(
            Span(
                path=str(path),
                blob_sha=str(blob),
                from_seq=int(str(start)),
                until_seq=None if until is None else int(str(until)),
            )
            for path, blob, start, until in rows
        )


def _commit(row: Sequence[object]) -> LineCommit:
    seq, sha, at = row
    return LineCommit(seq=int(str(seq)), sha=str(sha), at=int(str(at)))
