"""``archive`` and ``link`` over fakes."""

from __future__ import annotations

import attrs
import pytest

from memhtml.adapters.html import parse_memory
from memhtml.app.errors import DirtyTree, MissingArgument
from memhtml.app.use_cases.archive import ArchiveResult, archive_memory
from memhtml.app.use_cases.link import LinkResult, link_memories
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.commit_messages import request_of
from memhtml.domain.errors import InvalidInput, InvalidMemory, NotFound
from memhtml.domain.model import Link
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git_writer import FileMove
from tests.fakes.write_plane import FakeStore, fake_store

NOW = "2026-09-14T07:02:11Z"
A = "areas/inbox/alpha.html"
B = "areas/inbox/beta.html"
T1 = "areas/inbox/tasks/task-one.html"
T2 = "areas/inbox/tasks/task-two.html"


@pytest.fixture
def store() -> FakeStore:
    """Two memories and two tasks in the inbox."""
    store = fake_store()
    for title, memory_type in (
        ("Alpha", "semantic"),
        ("Beta", "semantic"),
        ("Task one", "task"),
        ("Task two", "task"),
    ):
        request = WriteRequest(title=title, memory_type=memory_type, claim=f"{title} holds.")
        write_memory(store.deps, request)
    return store


def test_archive_moves_and_stamps(store: FakeStore) -> None:
    """The file moves to archive/<UTC year>/<path> as a rename, stamped archived, one commit."""
    result = archive_memory(store.deps, A, "superseded by the runbook")
    doc = parse_memory(store.files()["archive/2026/" + A])
    changes, message = store.commits[-1]
    assert (
        ArchiveResult(
            path=A, archived_path="archive/2026/" + A, commit_sha=store.git.head(), indexed=True
        )
        == result
    )
    assert ("archived", NOW, NOW) == (doc.status, doc.archived_at, doc.updated_at)
    assert (FileMove(source=A, target="archive/2026/" + A),) == changes.moves
    assert f"memhtml(archive): {A} — superseded by the runbook\n" == message


def test_archive_keeps_the_content_hash(store: FakeStore) -> None:
    """Only the head changes, so the article hash (and its vectors) survive the move."""
    before = parse_memory(store.files()[A]).content_hash
    archive_memory(store.deps, "/" + A, "old")
    assert before == parse_memory(store.files()["archive/2026/" + A]).content_hash


@pytest.mark.parametrize(
    ("path", "reason", "error"),
    [
        ("areas/inbox/missing.html", "r", NotFound),
        ("README.html", "r", NotFound),
        ("../../etc/passwd", "r", InvalidInput),
        (A, "   ", MissingArgument),
    ],
)
def test_archive_refusals_leave_the_tree_untouched(
    store: FakeStore, path: str, reason: str, error: type[Exception]
) -> None:
    """Unknown or non-memory path, an escaping path, a blank reason: nothing changes."""
    before = store.snapshot()
    with pytest.raises(error):
        archive_memory(store.deps, path, reason)
    assert before == store.snapshot()


def test_archiving_an_archived_file_is_refused(store: FakeStore) -> None:
    """A second archive of the moved file is ERR_INVALID_MEMORY."""
    moved = archive_memory(store.deps, A, "r").archived_path
    with pytest.raises(InvalidMemory, match="target-archived"):
        archive_memory(store.deps, moved, "again")


def test_archiving_a_dirty_file_is_refused(store: FakeStore) -> None:
    """Uncommitted edits would be swept into the archive commit: DirtyTree."""
    store.git.write_file(A, b"edited by hand")
    with pytest.raises(DirtyTree):
        archive_memory(store.deps, A, "r")


def test_link_appends_to_the_source_head(store: FakeStore) -> None:
    """One commit adds the edge; the article hash is unchanged."""
    before = parse_memory(store.files()[A]).content_hash
    result = link_memories(store.deps, A, "supports", "/" + B)
    doc = parse_memory(store.files()[A])
    assert (
        LinkResult(
            src_path=A,
            dst_path=B,
            rel="supports",
            created=True,
            commit_sha=store.git.head(),
            indexed=True,
        )
        == result
    )
    assert ((Link("supports", B),), before) == (doc.links, doc.content_hash)
    assert f"memhtml(link): supports {A} -> {B}\n" == store.commits[-1][1]


def test_an_existing_edge_commits_nothing(store: FakeStore) -> None:
    """The same edge again: created false, no commit."""
    link_memories(store.deps, A, "supports", B)
    before = store.snapshot()
    again = link_memories(store.deps, A, "supports", B)
    assert (False, None, before) == (again.created, again.commit_sha, store.snapshot())


def test_task_edges_join_two_tasks(store: FakeStore) -> None:
    """``blocks`` between two tasks is accepted."""
    assert link_memories(store.deps, T1, "blocks", T2).created


@pytest.mark.parametrize(
    ("src", "rel", "dst", "error", "message"),
    [
        (A, "blocks", B, InvalidInput, "joins two tasks"),
        (A, "subtask_of", T1, InvalidInput, "joins two tasks"),
        (T1, "supports", A, InvalidInput, "not tasks"),
        (A, "supports", T2, InvalidInput, "not tasks"),
        (A, "about_person", B, InvalidInput, "system only"),
        (A, "from_session", B, InvalidInput, "system only"),
        (A, "likes", B, InvalidInput, "rel must be one of"),
        (A, "supports", "/" + A, InvalidInput, "itself"),
        (A, "supports", "areas/inbox/missing.html", NotFound, "missing"),
        ("areas/inbox/missing.html", "supports", A, NotFound, "missing"),
        (A, "supports", "../x.html", InvalidInput, "dst must be a path inside"),
    ],
)
def test_link_refusals_leave_the_tree_untouched(
    store: FakeStore, src: str, rel: str, dst: str, error: type[Exception], message: str
) -> None:
    """Wrong endpoint types, system rels, unknown rels, self-links, missing or escaping ends."""
    before = store.snapshot()
    with pytest.raises(error, match=message):
        link_memories(store.deps, src, rel, dst)
    assert before == store.snapshot()


def test_linking_from_a_dirty_file_is_refused(store: FakeStore) -> None:
    """The source's uncommitted edits would be swept in: DirtyTree, nothing written."""
    data = store.files()[A]
    store.git.write_file(A, data.replace(b"</article>", b"<p>more</p></article>"))
    before = store.snapshot()
    with pytest.raises(DirtyTree):
        link_memories(store.deps, A, "supports", B)
    assert before == store.snapshot()


# --- run again by the same request (a warm helper lost after committing) -------------------


def test_an_archive_run_again_by_its_request_answers_with_its_first_commit(
    store: FakeStore,
) -> None:
    """The commit carries the request id; the same request run again, even after another
    commit, reports that commit and commits nothing; another request, or none, is refused."""
    keyed = attrs.evolve(store.deps, request_id="req-1")
    first = archive_memory(keyed, A, "old")
    assert "req-1" == request_of(store.commits[-1][1])
    write_memory(store.deps, WriteRequest(title="Gamma", memory_type="semantic", claim="G."))
    landed = len(store.commits)
    assert first == archive_memory(keyed, "/" + A, "old")
    assert landed == len(store.commits)
    for other in (attrs.evolve(store.deps, request_id="req-2"), store.deps):
        with pytest.raises(NotFound):
            archive_memory(other, A, "old")


def test_a_request_that_archived_another_memory_does_not_answer_for_this_one(
    store: FakeStore,
) -> None:
    """Only a commit that moved this very target counts."""
    archive_memory(store.deps, A, "old")
    keyed = attrs.evolve(store.deps, request_id="req-b")
    archive_memory(keyed, B, "old")
    with pytest.raises(NotFound):
        archive_memory(keyed, A, "old")


def test_a_suffixed_archive_path_is_found_again(store: FakeStore) -> None:
    """The second archive of one path in a year goes to ``…-2.html``; run again, the request
    reports that path, not the first archive's."""
    archive_memory(store.deps, A, "old")
    write_memory(store.deps, WriteRequest(title="Alpha", memory_type="semantic", claim="A2."))
    keyed = attrs.evolve(store.deps, request_id="req-2nd")
    first = archive_memory(keyed, A, "again")
    assert first.archived_path.endswith("alpha-2.html")
    assert first == archive_memory(keyed, A, "again")
