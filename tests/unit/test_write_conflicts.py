"""The conflict assist on ``write``, ``correct`` and ``apply`` over fakes: reported, or refused
with ``--on-conflict fail``; asked once per batch."""

from __future__ import annotations

import json
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.apply_ops import ApplyOp, parse_apply_lines
from memhtml.app.errors import FactConflict
from memhtml.app.use_cases.apply import apply_batch
from memhtml.app.use_cases.conflicts import ConflictingMemory, frame_conflicts
from memhtml.app.use_cases.correct import CorrectRequest, correct_memory
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.errors import InvalidInput
from memhtml.domain.model import MemoryDoc
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.health import FrameClaim
from tests.fakes.write_plane import FakeStore, fake_store

FIFTY = "The checkout pool holds 50 connections per pod."
EIGHTY = "The checkout pool holds 80 connections per pod."
POOL = "resources/pool/checkout-pool-size.html"


def _request(claim: str, title: str = "Checkout pool size", **fields: object) -> WriteRequest:
    return WriteRequest(title=title, memory_type="semantic", claim=claim, tags=("pool",), **fields)  # type: ignore[arg-type]


def _write_op(claim: str, title: str, memory_type: str = "semantic") -> Mapping[str, object]:
    return {"op": "write", "title": title, "type": memory_type, "claim": claim, "tag": "pool"}


def _ops(*objects: Mapping[str, object]) -> tuple[ApplyOp, ...]:
    return parse_apply_lines([json.dumps(o) for o in objects], None)


@pytest.fixture
def store() -> FakeStore:
    """A store holding the 50-connection fact at ``POOL``."""
    store = fake_store()
    assert POOL == write_memory(store.deps, _request(FIFTY)).path
    return store


def test_a_write_reports_the_live_memory_it_disagrees_with(store: FakeStore) -> None:
    """Same relation, other value: written, and the older memory listed with its gist."""
    result = write_memory(store.deps, _request(EIGHTY, "Checkout pool size now"))
    assert (True, (ConflictingMemory(path=POOL, gist=FIFTY),)) == (
        result.created,
        result.conflicts,
    )


def test_restatements_negations_and_tasks_are_no_conflicts(store: FakeStore) -> None:
    """The same values, another relation, or a task's plan: nothing is reported."""
    same = write_memory(
        store.deps, _request("the CHECKOUT pool holds 50 connections per pod!", "Pool again")
    )
    negated = write_memory(
        store.deps, _request("The checkout pool never holds 80 connections per pod.", "Neg")
    )
    task = write_memory(
        store.deps,
        WriteRequest(title="Raise the pool", memory_type="task", claim=EIGHTY, tags=("pool",)),
    )
    assert (True, (), (), ()) == (
        same.created,
        same.conflicts,
        negated.conflicts,
        task.conflicts,
    )


def test_fail_refuses_before_anything_is_committed(store: FakeStore) -> None:
    """``fail``: ``FactConflict`` naming the older memory, and no commit."""
    before = len(store.commits)
    with pytest.raises(FactConflict) as refused:
        write_memory(store.deps, _request(EIGHTY, "Checkout pool size now"), on_conflict="fail")
    assert ((POOL,), before) == (refused.value.conflicts, len(store.commits))


def test_an_unknown_mode_is_refused_as_input(store: FakeStore) -> None:
    """Only ``report``, ``fail`` and ``supersede`` are modes."""
    with pytest.raises(InvalidInput):
        write_memory(store.deps, _request(EIGHTY, "Other"), on_conflict="replace")


ARCHIVED = "archive/2026/" + POOL


def _head(store: FakeStore, path: str) -> MemoryDoc:
    return parse_memory(store.files()[path])


def test_supersede_archives_the_older_memory_in_the_same_commit(store: FakeStore) -> None:
    """The older memory moves to the archive stamped superseded-by the new path; the new one
    links to the copy with ``supersedes``; one commit; the conflict is still reported."""
    before = len(store.commits)
    result = write_memory(
        store.deps, _request(EIGHTY, "Checkout pool size now"), on_conflict="supersede"
    )
    old, new = _head(store, ARCHIVED), _head(store, result.path)
    assert (
        before + 1,
        False,
        "/" + result.path,
        (("supersedes", ARCHIVED),),
        (ConflictingMemory(path=POOL, gist=FIFTY),),
    ) == (
        len(store.commits),
        POOL in store.files(),
        old.superseded_by,
        tuple((link.rel, link.target) for link in new.links),
        result.conflicts,
    )


def test_apply_supersede_archives_a_shared_older_memory_once(store: FakeStore) -> None:
    """Two writes of one batch conflicting with one memory archive it once; both link to it."""
    result = apply_batch(
        store.deps,
        _ops(_write_op(EIGHTY, "Pool eighty"), _write_op(FIFTY.replace("50", "70"), "Pool 70")),
        on_conflict="supersede",
    )
    files = store.files()
    links = [
        tuple((link.rel, link.target) for link in _head(store, r.path or "").links)
        for r in result.results
    ]
    archived = [p for p in files if p.startswith("archive/")]
    assert ([ARCHIVED], [(("supersedes", ARCHIVED),)] * 2, False) == (
        archived,
        links,
        result.aborted,
    )


def test_a_correction_never_conflicts_with_the_memory_it_replaces(store: FakeStore) -> None:
    """The corrected memory is archived by the same commit, so ``fail`` lets it through."""
    result = correct_memory(
        store.deps,
        POOL,
        CorrectRequest(title="Checkout pool size", claim=EIGHTY),
        on_conflict="fail",
    )
    assert (POOL, ()) == (result.path, result.conflicts)


def test_a_correction_reports_another_live_memory_it_disagrees_with(store: FakeStore) -> None:
    """A second live claim on the key, not the target, is reported."""
    other = write_memory(
        store.deps, _request(FIFTY.replace("50", "60"), "Checkout pool size for canary")
    ).path
    result = correct_memory(
        store.deps, POOL, CorrectRequest(title="Checkout pool size", claim=EIGHTY)
    )
    assert (ConflictingMemory(path=other, gist=FIFTY.replace("50", "60")),) == result.conflicts


def test_apply_reports_per_write_from_one_lookup(store: FakeStore) -> None:
    """Each write carries its own conflicts; the whole batch asks the index once."""
    store.index.frame_lookups.clear()
    result = apply_batch(
        store.deps,
        _ops(
            _write_op(EIGHTY, "Pool eighty"),
            _write_op("The ledger lock holds for 40 minutes.", "Ledger lock"),
            _write_op(FIFTY.replace("50", "70"), "Pool seventy"),
        ),
    )
    conflicts = [r.conflicts for r in result.results]
    expected = (ConflictingMemory(path=POOL, gist=FIFTY),)
    assert ([expected, (), expected], 1, 3) == (
        conflicts,
        len(store.index.frame_lookups),
        result.summary.written,
    )


def test_apply_fail_aborts_an_atomic_batch_at_the_first_conflict(store: FakeStore) -> None:
    """The conflicting write is refused with ``ERR_FACT_CONFLICT``; the others are skipped;
    nothing is committed."""
    before = len(store.commits)
    result = apply_batch(
        store.deps,
        _ops(_write_op("The ledger lock holds for 40 minutes.", "Ledger"), _write_op(EIGHTY, "P")),
        on_conflict="fail",
    )
    shape = [(r.ok, r.skipped, r.code) for r in result.results]
    assert ([(False, True, None), (False, False, "ERR_FACT_CONFLICT")], True, before) == (
        shape,
        result.aborted,
        len(store.commits),
    )


def test_apply_fail_with_continue_commits_the_writes_that_agree(store: FakeStore) -> None:
    """With ``continue_on_error`` only the conflicting write is refused; the rest commit."""
    result = apply_batch(
        store.deps,
        _ops(
            _write_op(EIGHTY, "Pool eighty"),
            _write_op("The ledger lock holds for 40 minutes.", "Ledger"),
        ),
        continue_on_error=True,
        on_conflict="fail",
    )
    written = sorted(store.files())
    shape = [(r.ok, r.code) for r in result.results]
    assert ([(False, "ERR_FACT_CONFLICT"), (True, None)], 1, False) == (
        shape,
        result.summary.written,
        result.aborted,
    )
    assert [POOL, result.results[1].path] == sorted(p for p in written if p.endswith(".html"))


def test_an_archive_in_the_batch_clears_the_conflict(store: FakeStore) -> None:
    """A claim the batch archives no longer counts against a later write."""
    result = apply_batch(
        store.deps,
        _ops({"op": "archive", "path": POOL, "reason": "replaced"}, _write_op(EIGHTY, "Pool")),
        on_conflict="fail",
    )
    assert ((True, True), ()) == (
        (result.results[0].ok, result.results[1].ok),
        result.results[1].conflicts,
    )


claim_values = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 3)), min_size=0, max_size=8
)


@given(claim_values)
def test_doctor_groups_report_exactly_the_keys_holding_two_values(
    drawn: list[tuple[str, int]],
) -> None:
    """A key is reported when its claims hold at least two distinct values, with every claim
    on it; a key whose claims all agree is not."""
    claims = [
        FrameClaim(
            frame_key=f"the {relation} pool holds {{number}} connections",
            path=f"m{i}.html",
            gist=f"The {relation} pool holds {value} connections.",
        )
        for i, (relation, value) in enumerate(drawn)
    ]
    found = frame_conflicts(claims)
    values: dict[str, set[int]] = {}
    for relation, value in drawn:
        values.setdefault(relation, set()).add(value)
    expected_keys = [
        f"the {relation} pool holds {{number}} connections"
        for relation in sorted(values)
        if len(values[relation]) > 1
    ]
    assert expected_keys == [g.frame_key for g in found]
    for group in found:
        assert sorted(c.path for c in claims if c.frame_key == group.frame_key) == [
            m.path for m in group.memories
        ]
