"""``write`` over fakes: placement, dedup, refusals that leave the tree untouched, retries."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.near_duplicates import NOTE_NO_EMBEDDER
from memhtml.app.use_cases.write import WriteResult, stage_write, write_memory
from memhtml.domain.errors import Conflict, InvalidInput, InvalidMemory
from memhtml.domain.model import MemoryDoc
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.errors import EmbedModelMismatch, IndexStale, StorageFailure
from memhtml.ports.git_writer import HeadMoved
from memhtml.ports.indexer import UpdateReport
from memhtml.ports.recorder import SessionLink
from tests.fakes.git import FakeGit
from tests.fakes.write_plane import START, FakeIndex, FakeStore, RacingWriter, fake_store
from tests.strategies import awkward_text

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
EXPORT_HASH = "sha256:41390c72342fdcd4bf13952f25cd7df622db9e113df88545e3202b9e8f0b55bc"


def _note(title: str, claim: str, memory_type: str = "semantic", **extra: Any) -> WriteRequest:
    return attrs.evolve(WriteRequest(title=title, memory_type=memory_type, claim=claim), **extra)


@pytest.fixture
def store() -> FakeStore:
    """An empty store over fakes."""
    return fake_store()


def test_worked_example_lands_where_the_spec_says(store: FakeStore) -> None:
    """docs/cli-contract.md §6's example: tag-placed under resources/billing/, that hash, one
    commit."""
    result = write_memory(store.deps, EXPORT)
    assert (
        WriteResult(
            path=EXPORT_PATH,
            created=True,
            deduped=False,
            existing_path=None,
            commit_sha=store.git.head(),
            content_hash=EXPORT_HASH,
            indexed=True,
            near_duplicate_note=NOTE_NO_EMBEDDER,
        )
        == result
    )
    assert ["memhtml(write): Invoice export runs at 03:30 UTC\n"] == [m for _, m in store.commits]
    assert [EXPORT_PATH] == list(store.files())


def test_index_is_updated_before_and_after_the_commit(store: FakeStore) -> None:
    """Preflight update, then one update after the commit: the new file is in the index."""
    write_memory(store.deps, EXPORT)
    assert (2, EXPORT_HASH) == (store.index.updates, store.index.rows[EXPORT_PATH].content_hash)


def test_equal_content_dedups_without_a_commit(store: FakeStore) -> None:
    """Same article under another title: deduped, existing path, no file, no commit."""
    first = write_memory(store.deps, EXPORT)
    before = store.snapshot()
    again = write_memory(store.deps, attrs.evolve(EXPORT, title="Other"))
    assert (EXPORT_PATH, False, True, EXPORT_PATH, None, first.content_hash) == (
        again.path,
        again.created,
        again.deduped,
        again.existing_path,
        again.commit_sha,
        again.content_hash,
    )
    assert before == store.snapshot()


def test_tasks_are_never_deduped(store: FakeStore) -> None:
    """Identical open tasks are allowed: the second gets a collision suffix."""
    task = _note("Ship it", "The exporter is shipped.", "task")
    paths = [write_memory(store.deps, task).path for _ in range(2)]
    assert ["areas/inbox/tasks/ship-it.html", "areas/inbox/tasks/ship-it-2.html"] == paths


def test_same_title_other_content_gets_a_suffix(store: FakeStore) -> None:
    """A title collision in one folder gives ``-2``, never an overwrite."""
    first = write_memory(store.deps, _note("Note", "First fact."))
    second = write_memory(store.deps, _note("Note", "Second fact."))
    assert ("areas/inbox/note.html", "areas/inbox/note-2.html") == (first.path, second.path)


def test_an_untracked_file_is_never_overwritten(store: FakeStore) -> None:
    """A person's unsaved file at the placement path counts as occupied."""
    store.git.write_file("areas/inbox/note.html", b"draft")
    result = write_memory(store.deps, _note("Note", "A fact."))
    assert ("areas/inbox/note-2.html", b"draft") == (
        result.path,
        store.git.read_working_file("areas/inbox/note.html"),
    )


def test_routing_by_workspace_and_episodic_date(store: FakeStore) -> None:
    """A workspace routes to projects/<slug>/; episodic names carry the UTC write date."""
    routed = write_memory(store.deps, _note("Plan", "We ship Friday.", workspace="Checkout API"))
    event = write_memory(store.deps, _note("Standup", "We met.", "episodic"))
    assert ("projects/checkout-api/plan.html", "areas/inbox/20260914-standup.html") == (
        routed.path,
        event.path,
    )


def test_explicit_path_is_used_and_an_occupied_one_conflicts(store: FakeStore) -> None:
    """``path`` is taken as given; the same path again is a Conflict, never suffixed."""
    person = _note("Sasha", "Sasha runs billing.", path="resources/people/sasha.html")
    assert "resources/people/sasha.html" == write_memory(store.deps, person).path
    before = store.snapshot()
    with pytest.raises(Conflict):
        write_memory(store.deps, _note("Sasha 2", "Other.", path="/resources/people/sasha.html"))
    assert before == store.snapshot()


def test_unusable_path_is_ignored_unless_strict(store: FakeStore) -> None:
    """A path outside the buckets falls back to placement; with strict_path it is refused."""
    loose = write_memory(store.deps, _note("Loose", "A fact.", path="notes/x.html"))
    before = store.snapshot()
    with pytest.raises(InvalidMemory, match="path-unusable"):
        write_memory(store.deps, _note("Strict", "B fact.", path="notes/x.html", strict_path=True))
    assert ("areas/inbox/loose.html", before) == (loose.path, store.snapshot())


@pytest.mark.parametrize(
    ("request_", "error"),
    [
        (
            WriteRequest(title="T", memory_type="semantic", article_html="<p>no mark</p>"),
            InvalidMemory,
        ),
        (
            WriteRequest(
                title="T",
                memory_type="semantic",
                article_html='<p><mark>x</mark></p><script>alert(1)</script><p class="c">y</p>',
            ),
            InvalidMemory,
        ),
        (WriteRequest(title="T", memory_type="opinion", claim="x"), InvalidInput),
        (
            WriteRequest(title="T", memory_type="semantic", claim="x", path="../x.html"),
            InvalidInput,
        ),
        (
            WriteRequest(title="T", memory_type="semantic", claim="x", path="areas/../../x.html"),
            InvalidInput,
        ),
        (WriteRequest(title="T", memory_type="semantic", claim=""), InvalidMemory),
    ],
)
def test_bad_input_is_refused_with_the_tree_untouched(
    store: FakeStore, request_: WriteRequest, error: type[Exception]
) -> None:
    """Bad HTML, type, claim or escaping path: refused, HEAD and both trees unchanged."""
    write_memory(store.deps, _note("Existing", "Something true."))
    before = store.snapshot()
    with pytest.raises(error):
        write_memory(store.deps, request_)
    assert before == store.snapshot()


def test_violations_are_all_reported(store: FakeStore) -> None:
    """Every violation of the rendered file comes back at once, in table order."""
    request = WriteRequest(
        title="T",
        memory_type="semantic",
        article_html='<p>first</p><p><mark>x</mark><time datetime="2026-08">Aug</time></p>',
    )
    with pytest.raises(InvalidMemory) as caught:
        write_memory(store.deps, request)
    assert ["mark-position", "time-datetime"] == [v.code for v in caught.value.violations]


@pytest.mark.parametrize("state", ["stale", "mismatch"])
def test_stale_or_mismatched_index_refuses_before_writing(store: FakeStore, state: str) -> None:
    """ERR_INDEX_STALE and ERR_EMBED_MODEL_MISMATCH stop a write before anything changes."""
    if state == "stale":
        store.index.stale = True
    else:
        store.index.stored_model = "other-model@1024"
    before = store.snapshot()
    with pytest.raises((IndexStale, EmbedModelMismatch)):
        write_memory(store.deps, EXPORT)
    assert before == store.snapshot()


def test_failed_index_update_after_the_commit_still_succeeds(store: FakeStore) -> None:
    """The commit stands and the result says ``indexed: false``."""
    store.index.update_failures[2] = StorageFailure("update index")
    result = write_memory(store.deps, EXPORT)
    assert (True, False, [EXPORT_PATH]) == (result.created, result.indexed, list(store.files()))


def test_session_is_a_meta_a_trailer_and_a_link(store: FakeStore) -> None:
    """``session_id`` lands in the file, the commit trailers and a ``wrote`` session link."""
    request = _note("Note", "A fact.", session_id="s-1", prompt_id="p-1", turn_uuid="t-1")
    result = write_memory(store.deps, request)
    assert b'<meta name="memhtml-session" content="s-1">' in store.files()[result.path]
    assert "\n\nMemhtml-Session: s-1\nMemhtml-Prompt: p-1\n" in store.commits[0][1]
    assert [
        SessionLink(
            path=result.path,
            session_id="s-1",
            kind="wrote",
            at="2026-09-14T07:02:11Z",
            prompt_id="p-1",
            turn_uuid="t-1",
        )
    ] == store.index.links


def test_a_lost_race_is_retried_and_both_writes_land() -> None:
    """Another writer moving HEAD first makes the write re-plan and land on top of it."""
    git = FakeGit()
    racer = RacingWriter(git, races=2)
    store = fake_store(git=git, writer=racer)
    result = write_memory(store.deps, EXPORT)
    assert {EXPORT_PATH, *racer.rival_paths} == set(store.files())
    assert (2, 2, result.commit_sha) == (len(racer.rival_paths), len(store.pauses), git.head())


def test_retries_are_bounded() -> None:
    """A writer that loses every race gives up with HeadMoved after the configured tries."""
    git = FakeGit()
    store = fake_store(git=git, writer=RacingWriter(git, races=100))
    with pytest.raises(HeadMoved):
        write_memory(store.deps, EXPORT)
    assert store.deps.commit_attempts - 1 == len(store.pauses)


@settings(max_examples=40, deadline=None)
@given(claim=awkward_text, body=st.lists(awkward_text, max_size=2))
@example(claim='<meta name="memhtml-content-hash" content="sha256:' + "0" * 64 + '">', body=[])
def test_the_staged_document_is_a_fresh_parse_of_the_staged_bytes(
    claim: str, body: list[str]
) -> None:
    """What a write stages beside its bytes for the indexer equals parsing those bytes."""
    deps = fake_store().deps
    tree = StagedTree(head=None, base={}, dirty=frozenset(), read_blob=lambda sha: b"")
    request = _note("T", claim, body=tuple(body))
    try:
        staged = stage_write(deps, tree, request, now=START, batch_hashes={})
    except (InvalidMemory, InvalidInput):
        return
    (write,) = tree.change_set().writes
    assert {write.data: parse_memory(write.data)} == tree.documents()
    assert parse_memory(write.data).content_hash == staged.content_hash


class _CountingParser:
    """``parse_memory`` that counts the files it really parses."""

    def __init__(self) -> None:
        self.parsed: list[bytes] = []

    def __call__(self, data: bytes) -> MemoryDoc:
        self.parsed.append(data)
        return parse_memory(data)


def _counting_store() -> tuple[FakeStore, _CountingParser]:
    """A fake store whose index counts the files it really parses."""
    store = fake_store()
    parser = _CountingParser()
    index = FakeIndex(store.git, parser)
    store.index = index
    store.deps = attrs.evolve(store.deps, indexer=index, recorder=index)
    return store, parser


def test_the_index_update_after_a_write_reuses_the_rendered_document() -> None:
    """The file a write commits is never parsed again by the update that follows."""
    store, parser = _counting_store()
    result = write_memory(store.deps, EXPORT)
    written = store.files()[result.path]
    assert written not in parser.parsed
    assert EXPORT_HASH == store.index.rows[result.path].content_hash


def test_an_index_update_without_a_write_parses_afresh() -> None:
    """Files nobody handed over are parsed by the index's own parser."""
    store, parser = _counting_store()
    result = write_memory(store.deps, EXPORT)
    store.deps.indexer.rebuild(embed=False)
    assert [store.files()[result.path]] == parser.parsed


def test_a_failed_session_link_does_not_fail_the_write(store: FakeStore) -> None:
    """The commit landed and the file names its session, so a lost link row is only logged."""
    store.index.link_failure = StorageFailure("record session links")
    result = write_memory(store.deps, _note("Note", "A fact.", session_id="s"))
    assert (True, []) == (result.created, store.index.links)


def test_a_write_holds_the_write_lock_from_preflight_to_commit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Preflight update, plan and commit run under the lock; the post-commit update after it."""
    store = fake_store()
    events: list[str] = []
    update, commit = store.deps.indexer.update, store.deps.writer.commit

    @contextlib.contextmanager
    def write_lock() -> Iterator[None]:
        events.append("lock")
        yield
        events.append("unlock")

    def recorded_update(**kwargs: Any) -> UpdateReport:
        events.append("update")
        return update(**kwargs)

    def recorded_commit(*args: Any, **kwargs: Any) -> str:
        events.append("commit")
        return commit(*args, **kwargs)

    monkeypatch.setattr(store.deps.indexer, "update", recorded_update)
    monkeypatch.setattr(store.deps.writer, "commit", recorded_commit)
    write_memory(attrs.evolve(store.deps, write_lock=write_lock), EXPORT)
    assert ["lock", "update", "commit", "unlock", "update"] == events
