"""The bookkeeping storage ports over every backend: recorder, lister, census, health, state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memhtml.domain.reinforce import AccessRow, Signal
from memhtml.domain.scope import SearchScope
from memhtml.domain.sidecar import parse_sidecar, render_sidecar
from memhtml.domain.sync_sidecar import move_access_rows
from memhtml.ports.health import DanglingLink, InboxDepths
from memhtml.ports.index_census import IndexCounts
from memhtml.ports.recorder import SessionLink
from memhtml.ports.storage import Storage
from tests.contract.storage.harness import BACKENDS, NOW, Memory, open_backend, write

A = Memory(
    path="areas/inbox/a.html",
    claim="Alpha.",
    tags=("ops",),
    entities=("person:sasha",),
    links=(("supports", "areas/inbox/gone.html"),),
)
B = Memory(path="projects/ws/b.html", claim="Beta.", tags=("ops", "billing"))
OLD = Memory(path="archive/2026/areas/inbox/gone.html", claim="Gone.")
TASK = Memory(path="areas/inbox/t.html", claim="Do it.", memory_type="task")


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One store per backend holding A, B, an archived copy and an inbox task."""
    with open_backend(request.param) as opened:
        write(opened, [A, B, OLD, TASK])
        yield opened


def test_the_dedup_lookup_sees_active_non_task_rows_only(storage: Storage) -> None:
    """The active holder of a hash is found; an archived copy and a task are not."""
    assert (A.path, None, None) == (
        storage.recorder.active_path_for_hash(A.projection().content_hash),
        storage.recorder.active_path_for_hash(OLD.projection().content_hash),
        storage.recorder.active_path_for_hash(TASK.projection().content_hash),
    )


def test_session_links_are_kept_once_and_read_in_order(storage: Storage) -> None:
    """A repeat adds nothing; reads filter by path or session, ordered by instant then path."""
    late = SessionLink(path=A.path, session_id="s", kind="read", at="2026-09-15T00:00:00Z")
    early = SessionLink(path=B.path, session_id="s", kind="wrote", at=NOW)
    other = SessionLink(path=A.path, session_id="t", kind="read", at=NOW)
    storage.recorder.record_session_links([late, early, late, other])
    assert ((early, late), (other, late)) == (
        storage.recorder.session_links(session_id="s"),
        storage.recorder.session_links(path=A.path),
    )


def test_listing_pages_by_path_inside_the_scope(storage: Storage) -> None:
    """Active non-task memories by path, one page at a time; archived only when asked."""
    first = storage.lister.list_page(SearchScope(), para=None, after=None, limit=1)
    rest = storage.lister.list_page(SearchScope(), para=None, after=first.next_cursor, limit=5)
    archived = storage.lister.list_page(
        SearchScope(include_archived=True), para="archive", after=None, limit=5
    )
    assert ([A.path], A.path) == ([m.path for m in first.files], first.next_cursor)
    assert ([B.path], None) == ([m.path for m in rest.files], rest.next_cursor)
    assert [OLD.path] == [m.path for m in archived.files]


def test_the_census_counts_every_table(storage: Storage) -> None:
    """Files, active files, edges, distinct tags and entities."""
    expected = IndexCounts(files=4, active_files=3, edges=1, derived_edges=0, tags=2, entities=1)
    assert expected == storage.census.counts()


def test_health_finds_dangling_links_orphans_and_the_inbox(storage: Storage) -> None:
    """A link to a moved memory points at its archived copy; orphan rows are found and pruned."""
    storage.access.reinforce([A.path], Signal.NEUTRAL, NOW)
    storage.index.remove_rows([A.path])
    storage.index.write_projections([A.projection()])
    storage.index.move_rows([(B.path, "projects/ws/b2.html")], with_state=False)
    orphans = storage.health.orphan_access_rows()
    pruned = storage.pruner.prune_orphan_access_rows()
    assert (
        DanglingLink(
            src_path=A.path, rel="supports", dst_path="areas/inbox/gone.html", rewrite_to=OLD.path
        ),
    ) == storage.health.dangling_links()
    assert ((), ()) == (orphans, pruned)
    storage.access.reinforce([B.path], Signal.NEUTRAL, NOW)
    storage.index.remove_rows([B.path])
    assert ("projects/ws/b.html",) == storage.health.orphan_access_rows()
    assert ("projects/ws/b.html",) == storage.pruner.prune_orphan_access_rows()
    assert () == storage.health.orphan_access_rows()
    assert InboxDepths(memories=1, tasks=1) == storage.health.inbox_depths()


def test_the_state_plane_round_trips_through_the_sidecar(storage: Storage) -> None:
    """Export lists every access row by path; importing merges (counts by max)."""
    storage.access.reinforce([B.path, A.path], Signal.POSITIVE, NOW)
    exported = storage.state.export_access()
    rows = parse_sidecar(exported).rows
    # More accesses elsewhere, but never reinforced there: the count grows, the outcome stays.
    counted = AccessRow(
        path=A.path, access_count=7, outcome_score=-1.0, updated_at="2026-09-16T00:00:00Z"
    )
    merged = storage.state.import_access(exported + "torn line\n")
    storage.state.import_access(render_sidecar([counted]))
    after = {row.path: row for row in parse_sidecar(storage.state.export_access()).rows}
    assert [A.path, B.path] == [row.path for row in rows]
    assert (2, 1) == (merged.merged, merged.skipped)
    assert (7, 1.0) == (after[A.path].access_count, after[A.path].outcome_score)


def test_moving_access_rows_follows_the_twin(storage: Storage) -> None:
    """A row moves to a free path, merges into a held one by the import rule, and a move whose
    source holds no row changes nothing: the plane ends as ``move_access_rows`` says."""
    storage.access.reinforce([A.path], Signal.POSITIVE, NOW)
    storage.access.reinforce([B.path], Signal.NEGATIVE, "2026-09-15T00:00:00Z")
    before = {row.path: row for row in parse_sidecar(storage.state.export_access()).rows}
    moves = [
        (A.path, "areas/inbox/a-2.html"),
        ("areas/inbox/none.html", B.path),
        (B.path, OLD.path),
    ]
    moved = storage.state.move_access(moves)
    after = {row.path: row for row in parse_sidecar(storage.state.export_access()).rows}
    assert (2, move_access_rows(before, moves)) == (moved, after)
    assert [OLD.path, "areas/inbox/a-2.html"] == sorted(after)
