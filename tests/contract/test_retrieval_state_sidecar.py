"""The state plane's sidecar: byte-stable export, and an import merge equal to its twin."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.state_sidecar import SqliteStatePlane, access_rows, merge_access_rows
from memhtml.domain.reinforce import AccessRow, merge_access
from memhtml.domain.sidecar import render_sidecar
from memhtml.ports.errors import StorageFailure
from memhtml.ports.state_plane import StateImport
from tests.fakes.retrieval_rows import access_write, open_index
from tests.strategies import access_rows as access_row_values

planes = st.lists(access_row_values, unique_by=lambda row: row.path, max_size=8)


@settings(max_examples=100, deadline=None)
@given(rows=planes)
def test_export_renders_the_table_sorted_and_byte_stable(rows: list[AccessRow]) -> None:
    """The export is the domain rendering of the rows; exporting twice gives the same bytes."""
    db = open_index()
    db.write_all([access_write(row) for row in rows])
    plane = SqliteStatePlane(db)
    expected = render_sidecar(rows)
    assert expected == plane.export_access()
    assert expected == plane.export_access()


@settings(max_examples=200, deadline=None)
@given(existing=planes, imported=st.lists(access_row_values, max_size=8))
@example(
    existing=[
        AccessRow(path="a", outcome_score=-1.0, last_reinforced_at="2027-01-01", updated_at="x")
    ],
    imported=[
        AccessRow(path="a", outcome_score=1.0, last_reinforced_at=None, updated_at="x"),
        AccessRow(path="a", outcome_score=0.3, last_reinforced_at="2027-01-01", updated_at="y"),
    ],
)
def test_import_merge_equals_the_twin(existing: list[AccessRow], imported: list[AccessRow]) -> None:
    """Counts and stamps by max, the outcome from the later reinforcement, imported on a tie."""
    db = open_index()
    db.write_all([access_write(row) for row in existing])
    merge_access_rows(db, imported)
    plane = {row.path: row for row in existing}
    for row in imported:
        plane[row.path] = merge_access(plane.get(row.path), row)
    assert tuple(sorted(plane.values(), key=lambda row: row.path)) == access_rows(db)


@settings(max_examples=100, deadline=None)
@given(rows=planes)
def test_a_round_trip_through_the_sidecar_is_a_fixed_point(rows: list[AccessRow]) -> None:
    """Export, import into an empty plane, export again: the same bytes."""
    source = open_index()
    source.write_all([access_write(row) for row in rows])
    text = SqliteStatePlane(source).export_access()
    target = SqliteStatePlane(open_index())
    assert StateImport(merged=len(rows), skipped=0) == target.import_access(text)
    assert text == target.export_access()


def test_torn_lines_are_skipped_and_counted() -> None:
    """A truncated line and a stray word cost one row each; the readable rows still merge."""
    good = render_sidecar([AccessRow(path="a.html", access_count=2, updated_at="2026-01-01")])
    text = good + '{"path":"b.html","accessCo\nnot json\n\n'
    plane = SqliteStatePlane(open_index())
    assert StateImport(merged=1, skipped=2) == plane.import_access(text)
    assert good == plane.export_access()


def test_a_plane_that_is_not_attached_is_a_storage_failure() -> None:
    """Without state.db there is nothing to export into or import from."""
    plane = SqliteStatePlane(open_index(state=False))
    with pytest.raises(StorageFailure):
        plane.export_access()
    with pytest.raises(StorageFailure):
        plane.import_access("")
