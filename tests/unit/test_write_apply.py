"""``apply`` phase 2 over fakes: one staged tree, one commit, results in input order."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.apply_ops import ApplyOp, SessionDefaults, parse_apply_lines
from memhtml.app.error_codes import error_code_for
from memhtml.app.errors import BatchAborted
from memhtml.app.use_cases.apply import (
    ApplyResult,
    ApplySummary,
    OpResult,
    apply_batch,
    refuse_aborted,
)
from memhtml.app.use_cases.near_duplicates import NOTE_NO_EMBEDDER
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.model import Link
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.recorder import SessionLink
from tests.fakes.write_plane import FakeStore, fake_store

LEDGER = "resources/billing/ledger-lock-holds-for-40-minutes.html"
EXPORT = "resources/billing/invoice-export-runs-at-03-30-utc.html"
EXAMPLE: list[Mapping[str, object]] = [
    {
        "op": "write",
        "title": "Ledger lock holds for 40 minutes",
        "type": "semantic",
        "claim": "The nightly ledger lock is held for about 40 minutes.",
        "tag": "billing",
    },
    {
        "op": "write",
        "title": "Invoice export runs at 03:30 UTC",
        "type": "procedural",
        "claim": "The invoice export job starts at 03:30 UTC every night.",
        "body": ["Moved from 01:00 after the ledger lock contention."],
        "tag": "billing",
    },
    {"op": "link", "src": EXPORT, "rel": "caused_by", "dst": LEDGER},
]


def _ops(
    *objects: Mapping[str, object], defaults: SessionDefaults | None = None
) -> tuple[ApplyOp, ...]:
    return parse_apply_lines([json.dumps(o) for o in objects], defaults)


@pytest.fixture
def store() -> FakeStore:
    """A store already holding the invoice-export memory (so line 2 of the example dedups)."""
    store = fake_store()
    write_memory(
        store.deps,
        WriteRequest(
            title="Invoice export runs at 03:30 UTC",
            memory_type="procedural",
            claim="The invoice export job starts at 03:30 UTC every night.",
            body=("Moved from 01:00 after the ledger lock contention.",),
            tags=("billing",),
        ),
    )
    return store


def test_worked_example_three(store: FakeStore) -> None:
    """One write, one dedup, one link: one commit ``memhtml(batch): 2 ops``."""
    result = apply_batch(store.deps, _ops(*EXAMPLE))
    assert (
        ApplyResult(
            results=(
                OpResult(index=0, op="write", ok=True, path=LEDGER),
                OpResult(
                    index=1, op="write", ok=True, path=EXPORT, deduped=True, existing_path=EXPORT
                ),
                OpResult(index=2, op="link", ok=True, path=EXPORT),
            ),
            summary=ApplySummary(
                total=3, written=1, deduped=1, linked=1, archived=0, failed=0, skipped=0
            ),
            commit_sha=store.git.head(),
            aborted=False,
            indexed=True,
            near_duplicate_note=NOTE_NO_EMBEDDER,
        )
        == result
    )
    assert "memhtml(batch): 2 ops\n" == store.commits[-1][1]
    assert (Link("caused_by", LEDGER),) == parse_memory(store.files()[EXPORT]).links


def test_one_index_pass_after_one_commit(store: FakeStore) -> None:
    """A batch is one preflight update, one commit and one update after it."""
    updates, commits = store.index.updates, len(store.commits)
    apply_batch(store.deps, _ops(*EXAMPLE))
    assert (updates + 2, commits + 1) == (store.index.updates, len(store.commits))


def test_a_refused_op_aborts_the_atomic_batch(store: FakeStore) -> None:
    """Missing dst on line 3: op 2 fails, ops 0–1 skipped, aborted, no commit."""
    ops = _ops(*EXAMPLE[:2], {**EXAMPLE[2], "dst": "resources/billing/missing.html"})
    before = store.snapshot()
    result = apply_batch(store.deps, ops)
    assert (
        OpResult(index=0, op="write", ok=False, skipped=True),
        OpResult(index=1, op="write", ok=False, skipped=True),
        OpResult(
            index=2,
            op="link",
            ok=False,
            code="ERR_PATH_NOT_FOUND",
            error="no memory at resources/billing/missing.html",
        ),
    ) == result.results
    assert (True, None, 1, 2) == (
        result.aborted,
        result.commit_sha,
        result.summary.failed,
        result.summary.skipped,
    )
    assert before == store.snapshot()


def test_an_aborted_batch_is_refused_with_its_results_as_detail(store: FakeStore) -> None:
    """refuse_aborted raises ERR_BATCH_ABORTED naming the refused op's index, op and code,
    carrying the detail it was given; a batch that ran is let through."""
    bad = {"op": "archive", "path": "areas/inbox/missing.html", "reason": "r"}
    aborted = apply_batch(store.deps, _ops(EXAMPLE[0], bad))
    landed = apply_batch(store.deps, _ops(EXAMPLE[0]))
    refuse_aborted(landed, {"unused": True})
    with pytest.raises(BatchAborted) as caught:
        refuse_aborted(aborted, {"results": "as shaped"})
    assert (
        "the batch was aborted at op index 1 (archive): ERR_PATH_NOT_FOUND: "
        "no memory at areas/inbox/missing.html; nothing was written",
        {"results": "as shaped"},
        "ERR_BATCH_ABORTED",
    ) == (str(caught.value), caught.value.detail, error_code_for(caught.value).code)


def test_continue_on_error_commits_the_rest(store: FakeStore) -> None:
    """With continue_on_error the refused op is reported and the others land."""
    bad = {"op": "archive", "path": "areas/inbox/missing.html", "reason": "r"}
    result = apply_batch(store.deps, _ops(EXAMPLE[0], bad, EXAMPLE[2]), continue_on_error=True)
    assert (True, False, True) == tuple(r.ok for r in result.results)
    assert ("ERR_PATH_NOT_FOUND", False, 1) == (
        result.results[1].code,
        result.aborted,
        result.summary.failed,
    )
    assert LEDGER in store.files()


def test_ops_see_earlier_ops_of_the_batch() -> None:
    """Write two memories, link them and archive one, all in one commit."""
    store = fake_store()
    ops = _ops(
        {"op": "write", "title": "A", "type": "semantic", "claim": "A holds."},
        {"op": "write", "title": "B", "type": "semantic", "claim": "B holds."},
        {"op": "link", "src": "areas/inbox/a.html", "rel": "supports", "dst": "areas/inbox/b.html"},
        {"op": "archive", "path": "areas/inbox/b.html", "reason": "done"},
    )
    result = apply_batch(store.deps, ops)
    assert ["archive/2026/areas/inbox/b.html", "areas/inbox/a.html"] == sorted(store.files())
    assert (
        "4 ops",
        ApplySummary(total=4, written=2, deduped=0, linked=1, archived=1, failed=0, skipped=0),
    ) == (
        store.commits[-1][1].removeprefix("memhtml(batch): ").strip(),
        result.summary,
    )


def test_a_write_equal_to_an_earlier_op_dedups() -> None:
    """Within one batch the second identical write points at the first one's path."""
    store = fake_store()
    write = {"op": "write", "title": "A", "type": "semantic", "claim": "A holds."}
    result = apply_batch(store.deps, _ops(write, {**write, "title": "Other"}))
    assert (
        OpResult(
            index=1,
            op="write",
            ok=True,
            path="areas/inbox/a.html",
            deduped=True,
            existing_path="areas/inbox/a.html",
        )
        == result.results[1]
    )
    assert "memhtml(batch): A\n" == store.commits[-1][1]


def test_archived_content_may_be_written_again_in_the_same_batch(store: FakeStore) -> None:
    """After the batch archives a memory, its content is no longer active: a write creates."""
    write = {
        "op": "write",
        "title": "Invoice export runs at 03:30 UTC",
        "type": "procedural",
        "claim": "The invoice export job starts at 03:30 UTC every night.",
        "body": ["Moved from 01:00 after the ledger lock contention."],
        "tag": "billing",
    }
    result = apply_batch(store.deps, _ops({"op": "archive", "path": EXPORT, "reason": "r"}, write))
    assert (False, EXPORT) == (result.results[1].deduped, result.results[1].path)
    assert {EXPORT, "archive/2026/" + EXPORT} == set(store.files())


def test_only_writes_give_n_memories_and_sessions_default_from_the_batch() -> None:
    """Two writes: ``2 memories``; batch session values fill ops that name none."""
    store = fake_store()
    ops = _ops(
        {"op": "write", "title": "A", "type": "semantic", "claim": "A holds."},
        {"op": "write", "title": "B", "type": "semantic", "claim": "B holds.", "session_id": "own"},
        defaults=SessionDefaults(session_id="batch", prompt_id="p"),
    )
    apply_batch(store.deps, ops, defaults=SessionDefaults(session_id="batch", prompt_id="p"))
    assert (
        "memhtml(batch): 2 memories\n\nMemhtml-Session: batch\nMemhtml-Prompt: p\n"
        == (store.commits[-1][1])
    )
    at = "2026-09-14T07:02:11Z"
    assert [
        SessionLink(
            path="areas/inbox/a.html", session_id="batch", kind="wrote", at=at, prompt_id="p"
        ),
        SessionLink(
            path="areas/inbox/b.html", session_id="own", kind="wrote", at=at, prompt_id="p"
        ),
    ] == store.index.links


def test_a_batch_that_changes_nothing_commits_nothing(store: FakeStore) -> None:
    """Only dedups: every op ok, no commit, ``commit_sha`` null."""
    before = store.snapshot()
    result = apply_batch(store.deps, _ops(EXAMPLE[1]))
    assert (None, True, before) == (result.commit_sha, result.results[0].deduped, store.snapshot())


_claims = st.sampled_from(["One holds.", "Two holds.", "Three holds."])
_write_ops = st.lists(
    st.builds(
        lambda title, claim, task: {
            "op": "write",
            "title": title,
            "type": "task" if task else "semantic",
            "claim": claim,
        },
        st.sampled_from(["X", "Y"]),
        _claims,
        st.booleans(),
    ),
    max_size=6,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(objects=_write_ops)
@example(objects=[{"op": "write", "title": "X", "type": "semantic", "claim": "One holds."}] * 2)
def test_batches_of_writes_land_each_distinct_content_once(
    objects: list[dict[str, object]],
) -> None:
    """Results in input order; each non-task content lands once, every task lands, paths hold it."""
    store = fake_store()
    result = apply_batch(store.deps, _ops(*objects))
    files = store.files()
    assert list(range(len(objects))) == [r.index for r in result.results]
    distinct = {o["claim"] for o in objects if o["type"] != "task"}
    tasks = sum(1 for o in objects if o["type"] == "task")
    assert len(distinct) + tasks == len(files)
    for obj, op_result in zip(objects, result.results, strict=True):
        assert op_result.path is not None
        assert str(obj["claim"]) == parse_memory(files[op_result.path]).gist
