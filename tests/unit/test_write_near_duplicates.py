"""The near-duplicate assist on ``write``, ``correct`` and ``apply`` over fakes: reported,
skipped or refused; one embedder call and one lookup per batch; never a failure for want of a
model."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import attrs
import pytest

from memhtml.app.apply_ops import ApplyOp, parse_apply_lines
from memhtml.app.errors import NearDuplicateFound
from memhtml.app.use_cases.apply import apply_batch
from memhtml.app.use_cases.correct import CorrectRequest, correct_memory
from memhtml.app.use_cases.near_duplicates import (
    NOTE_LEXICAL_WRITE,
    NOTE_NO_EMBEDDER,
    NearPolicy,
)
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.chunking import chunk_id_for
from memhtml.domain.errors import InvalidInput
from memhtml.domain.vectors import pack_f32
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.embedder import Vector
from memhtml.ports.errors import ModelUnavailable
from tests.fakes.write_plane import FAKE_SPACE, FakeRow, FakeStore, fake_store

POOL = "The checkout pool holds fifty connections per pod."
POOL_AGAIN = "Again: the checkout pool holds fifty connections per pod."
WEATHER = "The weather station reports hourly."
REPORT, SKIP, FAIL = NearPolicy(mode="report"), NearPolicy(mode="skip"), NearPolicy(mode="fail")


class TopicEmbedder:
    """Three axes: "pool", "weather", and a small "again" so a restatement is near, not equal."""

    watermark = FAKE_SPACE
    dim = 3

    def __init__(self, *, failing: bool = False) -> None:
        self.calls: list[int] = []
        self.failing = failing

    def embed(self, texts: Sequence[str]) -> tuple[Vector, ...]:
        """One vector per text; raises when told to fail."""
        self.calls.append(len(texts))
        if self.failing:
            raise ModelUnavailable("the model is gone")
        return tuple(self._vector(t.lower()) for t in texts)

    @staticmethod
    def _vector(text: str) -> Vector:
        return (
            1.0 if "pool" in text else 0.0,
            1.0 if "weather" in text else 0.0,
            0.2 if "again" in text else 0.0,
        )


def _request(claim: str, title: str) -> WriteRequest:
    return WriteRequest(title=title, memory_type="semantic", claim=claim, tags=("pool",))


def _ops(*claims: tuple[str, str]) -> tuple[ApplyOp, ...]:
    lines = [
        json.dumps({"op": "write", "title": t, "type": "semantic", "claim": c, "tag": "pool"})
        for c, t in claims
    ]
    return parse_apply_lines(lines, None)


@pytest.fixture
def embedder() -> TopicEmbedder:
    """The fake model, counting its calls."""
    return TopicEmbedder()


@pytest.fixture
def store(embedder: TopicEmbedder) -> FakeStore:
    """An embedding store holding the pool fact (its vector stored by the write)."""
    store = fake_store()
    store.deps = attrs.evolve(store.deps, embedder=embedder, embed=True)
    write_memory(store.deps, _request(POOL, "Checkout pool"))
    return store


def _pool_path(store: FakeStore) -> str:
    (path,) = [p for p, row in store.index.rows.items() if row.gist == POOL]
    return path


def test_a_restatement_is_reported_with_its_similarity(store: FakeStore) -> None:
    """Written anyway, with the live memory it nearly repeats, its gist and similarity."""
    result = write_memory(store.deps, _request(POOL_AGAIN, "Pool again"), near=REPORT)
    (near,) = result.near_duplicates
    assert (True, _pool_path(store), POOL, None) == (
        result.created,
        near.path,
        near.gist,
        result.near_duplicate_note,
    )
    assert 0.98 == pytest.approx(near.similarity, abs=0.001)


def test_an_unrelated_memory_is_not_reported(store: FakeStore) -> None:
    """Under the floor: nothing listed."""
    result = write_memory(store.deps, _request(WEATHER, "Weather"), near=REPORT)
    assert (True, ()) == (result.created, result.near_duplicates)


def test_the_written_vector_reaches_the_index_without_a_second_embedding(
    store: FakeStore, embedder: TopicEmbedder
) -> None:
    """The assist's one embedder call is the write's only one; the index stores its vector."""
    before = list(embedder.calls)
    result = write_memory(store.deps, _request(WEATHER, "Weather"))
    doc = store.index.rows[result.path]
    stored = store.index.vectors[chunk_id_for(doc.content_hash, 0)]
    assert ([1], pack_f32((0.0, 1.0, 0.0))) == (embedder.calls[len(before) :], stored)


def test_skip_commits_nothing_and_points_at_the_duplicate(store: FakeStore) -> None:
    """``skip``: no commit, ``ok`` answer at the nearest duplicate."""
    before = store.snapshot()
    result = write_memory(store.deps, _request(POOL_AGAIN, "Pool again"), near=SKIP)
    assert (False, True, _pool_path(store), None, before) == (
        result.created,
        result.near_duplicate_skipped,
        result.path,
        result.commit_sha,
        store.snapshot(),
    )


def test_fail_refuses_before_anything_is_committed(store: FakeStore) -> None:
    """``fail``: ``NearDuplicateFound`` naming the duplicate; the store is untouched."""
    before = store.snapshot()
    with pytest.raises(NearDuplicateFound) as refused:
        write_memory(store.deps, _request(POOL_AGAIN, "Pool again"), near=FAIL)
    assert ((_pool_path(store),), before) == (refused.value.near, store.snapshot())


def test_the_floor_and_the_cap_are_the_callers(store: FakeStore) -> None:
    """A floor above the similarity reports nothing; the cap bounds the list, best first."""
    write_memory(store.deps, _request("Pool: fifty per pod.", "Pool short"))
    strict = write_memory(
        store.deps, _request(POOL_AGAIN, "Pool again"), near=NearPolicy(floor=0.99)
    )
    capped = write_memory(
        store.deps, _request("Again the pool, again.", "Pool thrice"), near=NearPolicy(limit=1)
    )
    assert ((), 1) == (strict.near_duplicates, len(capped.near_duplicates))
    assert 1.0 == pytest.approx(capped.near_duplicates[0].similarity)


@pytest.mark.parametrize(
    "policy",
    [NearPolicy(mode="ignore"), NearPolicy(floor=1.5), NearPolicy(limit=0)],
    ids=["mode", "floor", "limit"],
)
def test_an_unusable_policy_is_refused_as_input(store: FakeStore, policy: NearPolicy) -> None:
    """A bad mode, floor or cap is the caller's input error; nothing is written."""
    before = store.snapshot()
    with pytest.raises(InvalidInput):
        write_memory(store.deps, _request(WEATHER, "Weather"), near=policy)
    assert before == store.snapshot()


def test_a_lexical_only_store_skips_the_check_with_a_note_even_under_fail() -> None:
    """No embedder: the write lands and the note says why nothing was compared."""
    store = fake_store()
    write_memory(store.deps, _request(POOL, "Checkout pool"))
    result = write_memory(store.deps, _request(POOL_AGAIN, "Pool again"), near=FAIL)
    assert (True, (), NOTE_NO_EMBEDDER) == (
        result.created,
        result.near_duplicates,
        result.near_duplicate_note,
    )


def test_a_lexical_write_reports_without_loading_the_model_but_skip_checks(
    store: FakeStore, embedder: TopicEmbedder
) -> None:
    """``embed`` off (the command line): ``report`` does not call the model and says so;
    ``skip`` needs the answer, so it does."""
    lexical = attrs.evolve(store.deps, embed=False)
    before = len(embedder.calls)
    reported = write_memory(lexical, _request(POOL_AGAIN, "Pool again"), near=REPORT)
    calls_after_report = len(embedder.calls)
    skipped = write_memory(lexical, _request("Again, the pool.", "Pool thrice"), near=SKIP)
    assert ((), NOTE_LEXICAL_WRITE, before, True) == (
        reported.near_duplicates,
        reported.near_duplicate_note,
        calls_after_report,
        skipped.near_duplicate_skipped,
    )


def test_a_failing_model_is_a_note_not_a_failure(store: FakeStore) -> None:
    """The model stops answering: the write lands under ``fail`` too, and the note says why."""
    deps = attrs.evolve(store.deps, embedder=TopicEmbedder(failing=True))
    result = write_memory(deps, _request(POOL_AGAIN, "Pool again"), near=FAIL)
    assert (True, "near-duplicates not checked: the model is gone") == (
        result.created,
        result.near_duplicate_note,
    )


def test_an_arc_is_never_a_near_duplicate(store: FakeStore) -> None:
    """A synthesis is no duplicate of its members, however close its vector."""
    arc = "areas/arcs/pool-arc.html"
    store.index.rows[arc] = FakeRow(content_hash="f" * 64, memory_type="arc", archived=False)
    store.index.vectors[chunk_id_for("f" * 64, 0)] = pack_f32((1.0, 0.0, 0.2))
    result = write_memory(store.deps, _request(POOL_AGAIN, "Pool again"))
    assert [_pool_path(store)] == [n.path for n in result.near_duplicates]


def test_a_correction_is_not_its_targets_duplicate(store: FakeStore) -> None:
    """The corrected memory leaves with the same commit: only other live memories count."""
    other = write_memory(store.deps, _request("Pool again, pool.", "Pool note")).path
    result = correct_memory(
        store.deps,
        _pool_path(store),
        CorrectRequest(title="Checkout pool", claim=POOL_AGAIN),
        near=REPORT,
    )
    assert [other] == [n.path for n in result.near_duplicates]


def test_a_skipped_correction_leaves_the_target_in_place(store: FakeStore) -> None:
    """``skip`` on ``correct``: nothing archived, nothing written."""
    write_memory(store.deps, _request("Pool again, pool.", "Pool note"))
    before = store.snapshot()
    target = _pool_path(store)
    result = correct_memory(
        store.deps, target, CorrectRequest(title="Checkout pool", claim=POOL_AGAIN), near=SKIP
    )
    assert (target, None, True, before) == (
        result.path,
        result.archived_path,
        result.near_duplicate_skipped,
        store.snapshot(),
    )


def _near_paths(results: Sequence[object]) -> list[list[str]]:
    return [[n.path for n in getattr(r, "near_duplicates", ())] for r in results]


def test_apply_reports_per_write_from_one_embedding_and_one_lookup(
    store: FakeStore, embedder: TopicEmbedder
) -> None:
    """Each write gets its own list; the batch costs one embedder call and one lookup."""
    calls, lookups = len(embedder.calls), len(store.index.near_lookups)
    ops = _ops((POOL_AGAIN, "Pool again"), (WEATHER, "Weather"), ("Pool, again.", "Pool 3"))
    result = apply_batch(store.deps, ops)
    pool = _pool_path(store)
    assert ([[pool], [], [pool]], [3], [3], 3) == (
        _near_paths(result.results),
        embedder.calls[calls:],
        store.index.near_lookups[lookups:],
        result.summary.written,
    )


def test_apply_skip_leaves_out_the_near_writes_and_commits_the_rest(store: FakeStore) -> None:
    """``skip``: the near writes are ``ok`` but unwritten; the others land in one commit."""
    ops = _ops((POOL_AGAIN, "Pool again"), (WEATHER, "Weather"))
    result = apply_batch(store.deps, ops, near=SKIP)
    first, second = result.results
    assert (
        (True, True, _pool_path(store)),
        (True, False),
        (1, 1),
        False,
    ) == (
        (first.ok, first.near_duplicate_skipped, first.path),
        (second.ok, second.near_duplicate_skipped),
        (result.summary.written, result.summary.near_duplicate_skipped),
        any(row.gist == POOL_AGAIN for row in store.index.rows.values()),
    )


def test_apply_fail_aborts_an_atomic_batch_at_the_first_near_write(store: FakeStore) -> None:
    """``fail`` without ``continue_on_error``: aborted, nothing committed."""
    before = store.snapshot()
    ops = _ops((WEATHER, "Weather"), (POOL_AGAIN, "Pool again"))
    result = apply_batch(store.deps, ops, near=FAIL)
    refused = result.results[1]
    assert (True, "ERR_NEAR_DUPLICATE", True, before) == (
        result.aborted,
        refused.code,
        result.results[0].skipped,
        store.snapshot(),
    )


def test_apply_fail_with_continue_commits_the_writes_that_are_new(
    store: FakeStore, embedder: TopicEmbedder
) -> None:
    """``fail`` with ``continue_on_error``: the near write is refused, the other lands, and the
    probe and the real staging share one embedder call."""
    calls = len(embedder.calls)
    ops = _ops((POOL_AGAIN, "Pool again"), (WEATHER, "Weather"))
    result = apply_batch(store.deps, ops, near=FAIL, continue_on_error=True)
    first, second = result.results
    assert ((False, "ERR_NEAR_DUPLICATE"), True, 1, [2]) == (
        (first.ok, first.code),
        second.ok,
        result.summary.written,
        embedder.calls[calls:],
    )


def test_apply_in_a_lexical_only_store_notes_it_once() -> None:
    """No embedder: the batch lands and carries the note."""
    store = fake_store()
    result = apply_batch(store.deps, _ops((POOL, "Pool")), near=FAIL)
    assert (1, NOTE_NO_EMBEDDER) == (result.summary.written, result.near_duplicate_note)


def _gists(rows: Mapping[str, FakeRow]) -> set[str]:
    return {row.gist for row in rows.values()}


def test_a_dedup_is_not_checked(store: FakeStore, embedder: TopicEmbedder) -> None:
    """The same content dedups before any assist runs: no model call, nothing listed."""
    calls = len(embedder.calls)
    result = write_memory(store.deps, _request(POOL, "Checkout pool"), near=FAIL)
    assert (True, (), calls, {POOL}) == (
        result.deduped,
        result.near_duplicates,
        len(embedder.calls),
        _gists(store.index.rows),
    )
