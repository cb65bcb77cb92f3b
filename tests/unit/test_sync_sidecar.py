"""Merging two machines' access sidecars in a sync (docs/sync.md §4): the ``state import`` rule,
path by path, with nothing either side knew lost."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.reinforce import AccessRow, merge_access
from memhtml.domain.sidecar import parse_sidecar, render_sidecar
from memhtml.domain.sync_sidecar import merge_sidecars
from tests.strategies import access_rows

row_sets = st.lists(access_rows, max_size=6).map(lambda rows: {r.path: r for r in rows})


@given(row_sets, row_sets)
def test_every_path_of_either_side_is_kept_with_the_import_rule(
    earlier: dict[str, AccessRow], later: dict[str, AccessRow]
) -> None:
    """Each path's merged row is ``merge_access(earlier row, later row)``; paths of one side only
    keep their row (as the sidecar renders it)."""
    merged = merge_sidecars(render_sidecar(earlier.values()), render_sidecar(later.values()))
    first = {r.path: r for r in parse_sidecar(render_sidecar(earlier.values())).rows}
    second = {r.path: r for r in parse_sidecar(render_sidecar(later.values())).rows}
    expected = {
        path: merge_access(first.get(path), second[path]) if path in second else first[path]
        for path in first.keys() | second.keys()
    }
    expected_text = render_sidecar(expected.values())
    assert (expected_text, len(expected), 0) == (merged.text, merged.rows, merged.skipped)


@given(row_sets, row_sets)
def test_counts_and_stamps_never_go_down(
    earlier: dict[str, AccessRow], later: dict[str, AccessRow]
) -> None:
    """No merged count or stamp is below either side's: salience learned anywhere survives."""
    merged = {
        r.path: r
        for r in parse_sidecar(
            merge_sidecars(render_sidecar(earlier.values()), render_sidecar(later.values())).text
        ).rows
    }
    for side in (earlier, later):
        for row in parse_sidecar(render_sidecar(side.values())).rows:
            found = merged[row.path]
            assert found.access_count >= row.access_count
            assert found.reinforcement_count >= row.reinforcement_count
            assert (found.last_accessed_at or "") >= (row.last_accessed_at or "")


def test_torn_lines_are_skipped_and_counted() -> None:
    """A torn line on either side is left out and counted, the good rows kept."""
    good = render_sidecar(
        [AccessRow(path="areas/a.html", access_count=2, updated_at="2026-01-01T00:00:00Z")]
    )
    merged = merge_sidecars(good + '{"path": "areas/b.ht', good)
    assert (1, 1) == (merged.rows, merged.skipped)
