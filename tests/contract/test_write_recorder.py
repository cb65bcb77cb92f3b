"""The ``Recorder`` contract, run over ``SqliteRecorder`` (real SQLite, fed by the real indexer)
and over the unit tests' ``FakeIndex``, so the fake cannot drift from the adapter."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator

import attrs
import pytest
from hypothesis import HealthCheck, example, given, settings

from memhtml.adapters.html import parse_memory, render_memory
from memhtml.adapters.sqlite.recorder import SqliteRecorder
from memhtml.adapters.system.clock import FixedClock
from memhtml.domain.model import RenderInputs
from memhtml.ports.git_writer import ChangeSet, FileWrite
from memhtml.ports.indexer import Indexer
from memhtml.ports.recorder import LINK_KINDS, LinkKind, Recorder, SessionLink
from tests.fakes.git import FakeGit
from tests.fakes.write_plane import FakeIndex
from tests.strategies import write_session_links
from tests.support import migrated_in_memory, sqlite_indexer

STAMP = "2026-09-14T07:02:11Z"
Plane = tuple[FakeGit, Indexer, Recorder]


def _sqlite_plane() -> Iterator[Plane]:
    git = FakeGit()
    db = migrated_in_memory(state=True)
    clock = FixedClock(dt.datetime(2026, 9, 14, tzinfo=dt.UTC))
    indexer = sqlite_indexer(
        db=db, git=git, parser=parse_memory, clock=clock, embed_watermark="m@3", embed_dim=3
    )
    yield git, indexer, SqliteRecorder(db)
    db.close()


def _fake_plane() -> Iterator[Plane]:
    git = FakeGit()
    index = FakeIndex(git, parse_memory)
    yield git, index, index


PLANES: dict[str, Callable[[], Iterator[Plane]]] = {"sqlite": _sqlite_plane, "fake": _fake_plane}


@pytest.fixture(params=sorted(PLANES))
def plane(request: pytest.FixtureRequest) -> Iterator[Plane]:
    """A git repository, an indexer over it and the recorder reading that index."""
    yield from PLANES[request.param]()


def _memory(claim: str, memory_type: str = "semantic") -> bytes:
    inputs = RenderInputs(
        title="t", memory_type=memory_type, created_at=STAMP, updated_at=STAMP, claim=claim
    )
    return render_memory(inputs).encode()


def _commit(git: FakeGit, files: dict[str, bytes]) -> None:
    writes = tuple(FileWrite(path=p, data=d) for p, d in files.items())
    git.commit(ChangeSet(writes=writes), "test", expected_head=git.head())


def _hash(data: bytes) -> str:
    return parse_memory(data).content_hash


def test_active_non_task_file_is_found_by_its_hash(plane: Plane) -> None:
    """The dedup lookup names the active memory whose article has the hash."""
    git, indexer, recorder = plane
    data = _memory("The export starts at 03:30.")
    _commit(git, {"areas/inbox/a.html": data})
    indexer.update(embed=False)
    assert "areas/inbox/a.html" == recorder.active_path_for_hash(_hash(data))


def test_unknown_hash_finds_nothing(plane: Plane) -> None:
    """A hash no file holds answers None."""
    git, indexer, recorder = plane
    _commit(git, {"areas/inbox/a.html": _memory("One fact.")})
    indexer.update(embed=False)
    assert None is recorder.active_path_for_hash("sha256:" + "0" * 64)


def test_archived_and_task_files_are_not_dedup_targets(plane: Plane) -> None:
    """Archived files and tasks hold content without claiming it (docs/decisions.md §14)."""
    git, indexer, recorder = plane
    archived = _memory("Old fact.")
    task = _memory("Ship the exporter.", memory_type="task")
    _commit(git, {"archive/2026/areas/inbox/a.html": archived, "projects/x/tasks/t.html": task})
    indexer.update(embed=False)
    assert (None, None) == (
        recorder.active_path_for_hash(_hash(archived)),
        recorder.active_path_for_hash(_hash(task)),
    )


def test_an_exact_repeat_adds_no_link(plane: Plane) -> None:
    """Recording the same (path, session, kind, instant) twice keeps one row."""
    _, _, recorder = plane
    link = SessionLink(path="areas/inbox/a.html", session_id="s1", kind="wrote", at=STAMP)
    recorder.record_session_links([link])
    recorder.record_session_links([link, link])
    assert (link,) == recorder.session_links()


def test_links_are_filtered_by_path_and_session(plane: Plane) -> None:
    """``session_links`` answers per memory, per session, or both, in instant order."""
    _, _, recorder = plane
    later = "2026-09-15T00:00:00Z"
    a1 = SessionLink(path="a.html", session_id="s1", kind="wrote", at=STAMP, prompt_id="p")
    b1 = SessionLink(path="b.html", session_id="s1", kind="read", at=later, turn_uuid="t")
    a2 = SessionLink(path="a.html", session_id="s2", kind="corrected", at=later)
    recorder.record_session_links([a2, b1, a1])
    assert ((a1, a2), (a1, b1), (a2,)) == (
        recorder.session_links(path="a.html"),
        recorder.session_links(session_id="s1"),
        recorder.session_links(path="a.html", session_id="s2"),
    )


def test_no_links_is_a_no_op(plane: Plane) -> None:
    """An empty batch of links writes nothing and does not fail."""
    _, _, recorder = plane
    recorder.record_session_links([])
    assert () == recorder.session_links()


def test_a_link_kind_outside_the_four_is_refused() -> None:
    """``SessionLink`` admits only wrote/read/corrected/reinforced, as the table's CHECK."""
    with pytest.raises(ValueError, match="link kind"):
        # The type checker would refuse the kind too; the test is about the runtime check.
        SessionLink(path="a.html", session_id="s", kind="deleted", at=STAMP)  # type: ignore[arg-type]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(links=write_session_links)
@example(links=[("a.html", "s", "wrote", STAMP)] * 2)
def test_stored_links_are_the_distinct_keys_in_order(
    plane: Plane, links: list[tuple[str, str, str, str]]
) -> None:
    """Whatever is recorded, the table holds each (path, session, kind, at) key once, sorted."""
    _, _, recorder = plane
    before = recorder.session_links()
    kinds: dict[str, LinkKind] = {kind: kind for kind in LINK_KINDS}  # str -> LinkKind
    values = [SessionLink(path=p, session_id=s, kind=kinds[k], at=a) for p, s, k, a in links]
    recorder.record_session_links(values)
    stored = recorder.session_links()
    keys = {attrs.astuple(link)[:4] for link in (*before, *values)}
    assert sorted(keys, key=lambda k: (k[3], k[0], k[1], k[2])) == [
        attrs.astuple(link)[:4] for link in stored
    ]
