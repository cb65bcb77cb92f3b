"""state export (byte-stable, commits only on change) and import (merge, torn lines counted)."""

from __future__ import annotations

from memhtml.app.use_cases.state_ops import SIDECAR_PATH, export_with, import_with
from tests.fakes.git import FakeGit
from tests.fakes.read_plane import FakeStatePlane
from tests.fakes.write_plane import RecordingWriter

ROW = (
    '{"path":"areas/a.html","accessCount":2,"reinforcementCount":1,"outcomeScore":-1,'
    '"lastAccessedAt":"2026-01-01T00:00:00Z","lastReinforcedAt":"2026-01-01T00:00:00Z",'
    '"updatedAt":"2026-01-01T00:00:00Z"}\n'
)


def test_export_commits_once_and_then_not_again() -> None:
    """The first export commits the sidecar; the same bytes again commit nothing."""
    git = FakeGit()
    writer = RecordingWriter(git)
    plane = FakeStatePlane(text=ROW)
    first = export_with(plane, git, writer)
    second = export_with(plane, git, writer)
    assert (True, 1, len(ROW.encode())) == (first.written, first.rows, first.bytes)
    assert (False, None) == (second.written, second.commit_sha)
    assert 1 == len(writer.landed)
    changes, message = writer.landed[0]
    assert "memhtml(state): export 1 access rows to the committed sidecar\n" == message
    assert (SIDECAR_PATH,) == tuple(w.path for w in changes.writes)


def test_export_commits_again_when_the_table_changed() -> None:
    """A changed table is a changed sidecar and a second commit."""
    git = FakeGit()
    writer = RecordingWriter(git)
    export_with(FakeStatePlane(text=""), git, writer)
    again = export_with(FakeStatePlane(text=ROW), git, writer)
    assert (True, 2) == (again.written, len(writer.landed))


def test_import_counts_rows_and_torn_lines() -> None:
    """A torn last line is skipped and counted; the whole rows are restored."""
    plane = FakeStatePlane()
    result = import_with(plane, (ROW + '{"path":"areas/b.ht').encode(), has_state=True)
    assert (1, 1, 1, True) == (result.rows, result.restored, result.skipped, result.has_state)
    assert 1 == len(plane.imported)
