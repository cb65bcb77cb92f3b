"""The read side and maintenance use cases through ``memhtml.open`` over the real stack."""

from __future__ import annotations

import datetime as dt
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import memhtml
from memhtml.adapters.git import DulwichGit, DulwichGitWriter
from memhtml.adapters.git.repo_config import ensure_merge_ours_driver
from memhtml.adapters.hashing.embedder import HashingEmbedder
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.errors import RepoRequired
from memhtml.app.store import Store
from memhtml.app.use_cases.init import init_store
from memhtml.app.use_cases.listing import ListRequest
from memhtml.app.use_cases.state_ops import SIDECAR_PATH
from memhtml.domain.errors import NotFound
from memhtml.domain.scope import FacetFilter
from memhtml.domain.write_requests import WriteRequest
from tests.support import access_rows_of, index_database

START = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)
EXPORT = WriteRequest(
    title="Invoice export runs at 03:30 UTC",
    memory_type="procedural",
    claim="The invoice export job starts at 03:30 UTC every night.",
    body=("Moved from 01:00 after the ledger lock contention.",),
    tags=("billing",),
    entities=("service:invoice-exporter",),
    importance=7,
)
EXPORT_PATH = "resources/billing/invoice-export-runs-at-03-30-utc.html"


def _init(root: Path) -> None:
    def create_databases() -> bool:
        Database.open(
            root / ".memhtml" / "index.db", state_path=root / ".memhtml" / "state.db"
        ).close()
        return True

    init_store(
        root=root,
        git=DulwichGit(root),
        writer=DulwichGitWriter(root, clock=FixedClock(START), env={}),
        configure_repo=lambda: ensure_merge_ours_driver(root),
        create_databases=create_databases,
    )


def _open(root: Path, clock: FixedClock) -> Store:
    return memhtml.open(root, environ={}, clock=clock, embedder=HashingEmbedder())


@pytest.fixture
def clock() -> FixedClock:
    """A clock the test moves by hand."""
    return FixedClock(START)


@pytest.fixture
def store(tmp_path: Path, clock: FixedClock) -> Iterator[Store]:
    """An initialised store holding the invoice-export memory."""
    root = tmp_path / "store"
    _init(root)
    with _open(root, clock) as opened:
        opened.write(EXPORT)
        yield opened


def _access(store: Store, path: str) -> tuple[int, int] | None:
    row = access_rows_of(store.services.storage).get(path)
    return None if row is None else (row.access_count, row.reinforcement_count)


def test_open_refuses_a_folder_that_is_not_a_store(tmp_path: Path) -> None:
    """Opening a plain folder raises RepoRequired and leaves no .memhtml behind."""
    with pytest.raises(RepoRequired):
        memhtml.open(tmp_path, environ={})
    assert [] == list(tmp_path.iterdir())


def test_search_finds_a_written_memory_without_bumping_it(store: Store) -> None:
    """A search hit is not evidence of use: the hit comes back and no access row appears."""
    answer = store.search("invoice export")
    assert [EXPORT_PATH] == [hit.path for hit in answer.hits]
    assert answer.index_fresh is True
    assert None is _access(store, EXPORT_PATH)


def test_read_returns_the_fields_and_bumps_access_once_per_cooldown(
    store: Store, clock: FixedClock
) -> None:
    """read answers the file's fields and bumps access, and a second read inside 900 s does not."""
    result = store.read("/" + EXPORT_PATH, session_id="s-1")
    assert EXPORT_PATH == result.path
    assert "Invoice export runs at 03:30 UTC" == result.title
    assert ("service:invoice-exporter",) == result.entities
    assert ("billing",) == result.tags
    assert "The invoice export job starts at 03:30 UTC every night." == result.gist
    assert ("memoryType", "procedural") == result.metas[0]
    assert "<mark>" in result.html
    assert "<article" not in result.html
    assert result.archived is False
    assert (1, 0) == _access(store, EXPORT_PATH)
    clock.advance(60)
    store.read(EXPORT_PATH)
    assert (1, 0) == _access(store, EXPORT_PATH)
    kinds = [link.kind for link in store.services.storage.recorder.session_links(session_id="s-1")]
    assert ["read"] == kinds


def test_read_of_an_unknown_path_is_not_found(store: Store) -> None:
    """A path holding no memory raises NotFound."""
    with pytest.raises(NotFound):
        store.read("areas/inbox/nothing-here.html")


def test_reinforce_unknown_path_bumps_nothing(store: Store) -> None:
    """One unknown path refuses the whole call, and the known path stays unbumped."""
    with pytest.raises(NotFound):
        store.reinforce([EXPORT_PATH, "areas/inbox/missing.html"], "positive")
    assert None is _access(store, EXPORT_PATH)


def test_state_round_trip_survives_losing_state_db(
    tmp_path: Path, store: Store, clock: FixedClock
) -> None:
    """reinforce → export (one commit, then none) → delete state.db → the reopened store fills
    the new plane from the sidecar, and an explicit import changes nothing more."""
    answer = store.reinforce([EXPORT_PATH], "negative", session_id="s-2")
    assert (EXPORT_PATH,) == answer.bumped
    first = store.state_export()
    again = store.state_export()
    assert (True, 1) == (first.written, first.rows)
    assert (False, None) == (again.written, again.commit_sha)
    root = store.root
    store.close()
    (root / ".memhtml" / "state.db").unlink()
    with _open(root, clock) as reopened:
        filled = _access(reopened, EXPORT_PATH)
        restored = reopened.state_import()
        assert (1, 1, 0) == (restored.rows, restored.restored, restored.skipped)
        assert (1, 1) == filled == _access(reopened, EXPORT_PATH)
        assert SIDECAR_PATH == restored.path


def test_list_pages_with_a_cursor(store: Store) -> None:
    """Three memories listed two per page come back path-ascending across two pages."""
    for n in (1, 2):
        store.write(
            WriteRequest(
                title=f"Ledger note {n}",
                memory_type="semantic",
                claim=f"Ledger note number {n} is about the nightly lock.",
                tags=("billing",),
            )
        )
    first = store.list(ListRequest(tags=("billing",), limit=2))
    assert first.next_cursor is not None
    second = store.list(ListRequest(tags=("billing",), limit=2, cursor=first.next_cursor))
    paths = [f.path for f in first.files + second.files]
    assert sorted(paths) == paths
    assert 3 == len(set(paths))
    assert None is second.next_cursor


def test_list_scope_agrees_with_search_scope(store: Store) -> None:
    """A facet that finds nothing through search lists nothing either; the type scope lists it."""
    assert () == store.list(ListRequest(facets=(FacetFilter(name="tier", value="1"),))).files
    listed = store.list(ListRequest(memory_types=("procedural",)))
    assert [EXPORT_PATH] == [f.path for f in listed.files]


def test_an_uncommitted_edit_is_visible_to_search(store: Store) -> None:
    """Freshness: a memory file dropped into the tree without a commit is found by search."""
    text = (store.root / EXPORT_PATH).read_text(encoding="utf-8")
    edited = text.replace("03:30 UTC every night", "03:30 UTC every night for the zeppelin")
    (store.root / EXPORT_PATH).write_text(edited, encoding="utf-8")
    answer = store.search("zeppelin")
    assert [EXPORT_PATH] == [hit.path for hit in answer.hits]


def test_a_stale_index_still_answers_reads(store: Store) -> None:
    """IndexStale during freshness (another process is rebuilding: its rebuild lock is held):
    read answers from the index as it stands, indexFresh false."""
    with index_database(store.services.settings) as db:
        db.run("UPDATE index_state SET head_sha = NULL")
    claim = os.open(str(store.services.settings.index_path) + "-rebuild.lock", os.O_RDWR)
    try:
        fcntl.flock(claim, fcntl.LOCK_EX)
        result = store.read(EXPORT_PATH)
        searched = store.search("invoice")
    finally:
        os.close(claim)
    assert (EXPORT_PATH, False, False) == (result.path, result.index_fresh, searched.index_fresh)


def test_a_rebuild_that_died_is_resumed_by_the_next_read(store: Store) -> None:
    """A NULL watermark with no rebuild running: the read's freshness pass rebuilds, and the
    read answers from a whole, current index."""
    with index_database(store.services.settings) as db:
        db.run("UPDATE index_state SET head_sha = NULL")
        db.run("DELETE FROM files")
    result = store.read(EXPORT_PATH)
    state = store.services.indexer.index_state()
    assert (EXPORT_PATH, True) == (result.path, result.index_fresh)
    assert state is not None
    assert store.services.git.head() == state.head_sha


def test_doctor_reports_a_broken_file_and_a_dangling_link(store: Store) -> None:
    """A file that fails the format is unparseable; a link to an archived memory dangles with
    the archived copy as its rewrite target."""
    note = store.write(
        WriteRequest(
            title="Lock holder", memory_type="semantic", claim="The ledger holds the lock."
        )
    )
    store.link(EXPORT_PATH, "caused_by", note.path)
    archived = store.archive(note.path, "superseded by a runbook")
    (store.root / "areas" / "inbox" / "broken.html").write_text("<p>not a memory", encoding="utf-8")
    report = store.doctor()
    assert ["areas/inbox/broken.html"] == [u.path for u in report.unparseable]
    assert [(EXPORT_PATH, "caused_by", note.path, archived.archived_path)] == [
        (d.src_path, d.rel, d.dst_path, d.rewrite_to) for d in report.dangling
    ]
    assert "areas/inbox/broken.html" in report.dirty
    assert report.healthy is False


def test_index_status_counts_the_store(store: Store) -> None:
    """status reports one file, its vectors in the configured space, and the state plane."""
    status = store.index_status()
    assert (1, 1, True, True) == (
        status.files,
        status.active_files,
        status.embed_model_matches,
        status.has_state,
    )
    assert status.embeddings == status.chunks
