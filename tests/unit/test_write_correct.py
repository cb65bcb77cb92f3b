"""``correct`` over fakes: one commit that archives the old memory and writes its successor."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from memhtml.adapters.html import parse_memory, render_memory
from memhtml.app.errors import DirtyTree
from memhtml.app.use_cases.archive import archive_memory
from memhtml.app.use_cases.correct import CorrectRequest, correct_memory
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.errors import DuplicateContent, InvalidInput, InvalidMemory, NotFound
from memhtml.domain.model import Link, RenderInputs
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite
from memhtml.ports.recorder import SessionLink
from tests.fakes.write_plane import FakeStore, fake_store

NOW = "2026-09-14T07:02:11Z"
OLD = "resources/billing/ledger-lock-holds-for-40-minutes.html"
ARCHIVED = "archive/2026/" + OLD


@pytest.fixture
def store() -> FakeStore:
    """A store holding one tagged, entity-bearing semantic memory."""
    store = fake_store()
    write_memory(
        store.deps,
        WriteRequest(
            title="Ledger lock holds for 40 minutes",
            memory_type="semantic",
            claim="The nightly ledger lock is held for about 40 minutes.",
            tags=("billing",),
            entities=("service:ledger",),
        ),
    )
    return store


def _fix(**extra: Any) -> CorrectRequest:
    base = CorrectRequest(
        title="Ledger lock holds for 40 minutes",
        claim="The nightly ledger lock is held for about 25 minutes.",
        reason="measured again",
    )
    return attrs.evolve(base, **extra)


def test_same_title_reuses_the_path_and_links_both_ways(store: FakeStore) -> None:
    """The successor takes the old path; the old file moves to archive/<YYYY>/ stamped."""
    result = correct_memory(store.deps, OLD, _fix())
    files = store.files()
    old, new = parse_memory(files[ARCHIVED]), parse_memory(files[OLD])
    assert (OLD, ARCHIVED, new.content_hash) == (
        result.path,
        result.archived_path,
        result.content_hash,
    )
    assert ("archived", NOW, NOW, "/" + OLD) == (
        old.status,
        old.archived_at,
        old.valid_until,
        old.superseded_by,
    )
    assert ("active", NOW, (Link("supersedes", ARCHIVED),)) == (
        new.status,
        new.valid_from,
        new.links,
    )


def test_one_commit_with_the_reason_in_its_body(store: FakeStore) -> None:
    """``memhtml(correct): <new title>``, the reason as the body, one commit for both files."""
    correct_memory(store.deps, OLD, _fix(title="Ledger lock is shorter now"))
    changes, message = store.commits[-1]
    assert "memhtml(correct): Ledger lock is shorter now\n\nmeasured again\n" == message
    assert (FileMove(source=OLD, target=ARCHIVED),) == changes.moves


def test_routing_defaults_to_the_target(store: FakeStore) -> None:
    """Type, tags and entities come from the target when the correction names none."""
    result = correct_memory(store.deps, OLD, _fix(title="Another title"))
    new = parse_memory(store.files()[result.path])
    assert ("resources/billing/another-title.html", "semantic", ("billing",)) == (
        result.path,
        new.memory_type,
        new.tags,
    )
    assert ["service:ledger"] == [e.ref for e in new.entities]


def test_the_boundary_is_the_new_first_time(store: FakeStore) -> None:
    """No valid-from given: the new memory's first <time> is the boundary of both windows."""
    result = correct_memory(store.deps, OLD, _fix(event_at="2026-09-01T10:00+02:00"))
    files = store.files()
    expected = "2026-09-01T08:00:00Z"
    assert (expected, expected) == (
        parse_memory(files[result.path]).valid_from,
        parse_memory(files[str(result.archived_path)]).valid_until,
    )


@pytest.mark.parametrize(
    ("existing", "expected"), [("2026-01-01", "2026-01-01"), ("2027-01-01", "2026-09-12")]
)
def test_an_earlier_existing_end_wins(existing: str, expected: str) -> None:
    """A valid-until earlier than the boundary is kept; a later one is cut to the boundary."""
    store = fake_store()
    inputs = RenderInputs(
        title="Window",
        memory_type="semantic",
        created_at=NOW,
        updated_at=NOW,
        claim="The window is open.",
        valid_until=existing,
    )
    path = "areas/inbox/window.html"
    writes = (FileWrite(path=path, data=render_memory(inputs).encode()),)
    store.git.commit(ChangeSet(writes=writes), "seed", expected_head=None)
    result = correct_memory(
        store.deps, path, CorrectRequest(title="Window", claim="Shut.", valid_from="2026-09-12")
    )
    assert expected == parse_memory(store.files()[str(result.archived_path)]).valid_until


def test_a_second_archive_of_one_path_gets_a_suffix(store: FakeStore) -> None:
    """Correcting the successor in the same year archives it beside the first, suffixed."""
    first = correct_memory(store.deps, OLD, _fix())
    again = correct_memory(store.deps, first.path, _fix(claim="Now 20 minutes."))
    assert "archive/2026/resources/billing/ledger-lock-holds-for-40-minutes-2.html" == (
        again.archived_path
    )


def test_a_session_gets_a_corrected_link(store: FakeStore) -> None:
    """``corrected`` names the new file."""
    result = correct_memory(store.deps, OLD, _fix(session_id="s"))
    assert [SessionLink(path=result.path, session_id="s", kind="corrected", at=NOW)] == (
        store.index.links
    )


@pytest.mark.parametrize(
    ("target", "correction", "error"),
    [
        ("areas/inbox/missing.html", _fix(), NotFound),
        ("../outside.html", _fix(), InvalidInput),
        (
            OLD,
            _fix(claim="The nightly ledger lock is held for about 40 minutes."),
            DuplicateContent,
        ),
        (OLD, _fix(article_html="<p>no mark</p>", claim=None), InvalidMemory),
        (OLD, _fix(memory_type="arc"), InvalidInput),
    ],
)
def test_refusals_leave_the_tree_untouched(
    store: FakeStore, target: str, correction: CorrectRequest, error: type[Exception]
) -> None:
    """Missing or escaping target, a duplicate of the target, a bad new file: nothing changes."""
    before = store.snapshot()
    with pytest.raises(error):
        correct_memory(store.deps, target, correction)
    assert before == store.snapshot()


def test_an_archived_target_is_refused(store: FakeStore) -> None:
    """Correcting a file under archive/ is ERR_INVALID_MEMORY."""
    result = correct_memory(store.deps, OLD, _fix())
    before = store.snapshot()
    with pytest.raises(InvalidMemory, match="target-archived"):
        correct_memory(store.deps, str(result.archived_path), _fix(claim="Again."))
    assert before == store.snapshot()


def test_a_dirty_target_is_refused(store: FakeStore) -> None:
    """Uncommitted edits to the target would be swept into the commit: DirtyTree."""
    store.git.write_file(OLD, store.files()[OLD] + b"<!-- edit -->")
    before = store.snapshot()
    with pytest.raises(DirtyTree):
        correct_memory(store.deps, OLD, _fix())
    assert before == store.snapshot()


# --- run again by the same request (a warm helper lost after committing) -------------------


@pytest.mark.parametrize("title", ["Ledger lock holds for 40 minutes", "Ledger lock, measured"])
def test_a_correction_run_again_by_its_request_answers_with_its_first_commit(
    store: FakeStore, title: str
) -> None:
    """Kept title (the successor takes the target's path, so a second run would meet its own
    content) or new title (the target is gone): the same request run again reports the first
    commit and commits nothing; another request is refused as before."""
    keyed = attrs.evolve(store.deps, request_id="req-fix")
    first = correct_memory(keyed, OLD, _fix(title=title))
    landed = len(store.commits)
    again = correct_memory(keyed, OLD, _fix(title=title))
    assert landed == len(store.commits)
    assert (first.path, first.archived_path, first.commit_sha, first.content_hash) == (
        again.path,
        again.archived_path,
        again.commit_sha,
        again.content_hash,
    )
    with pytest.raises((NotFound, DuplicateContent)):
        correct_memory(attrs.evolve(store.deps, request_id="req-other"), OLD, _fix(title=title))


def test_a_request_that_archived_the_target_without_a_successor_is_no_correction(
    store: FakeStore,
) -> None:
    """An ``archive`` under the same request id left no successor: still ``NotFound``."""
    keyed = attrs.evolve(store.deps, request_id="req-arch")
    archive_memory(keyed, OLD, "gone")
    with pytest.raises(NotFound):
        correct_memory(keyed, OLD, _fix())
