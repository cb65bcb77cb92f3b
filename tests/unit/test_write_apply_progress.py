"""``apply`` reports its ops to a progress sink: every op when the batch runs, fewer when an
atomic batch aborts, and the phase is always finished."""

from __future__ import annotations

from memhtml.app.use_cases.apply import apply_batch
from memhtml.ports.progress import PHASE_APPLYING
from tests.fakes.progress import FakeProgress
from tests.fakes.write_plane import fake_store
from tests.unit.test_write_apply import EXAMPLE, EXPORT, LEDGER, _ops


def test_every_op_is_one_unit_of_the_applying_phase() -> None:
    """Three ops: the phase announces three and advances three."""
    store = fake_store()
    progress = FakeProgress()
    result = apply_batch(store.deps, _ops(*EXAMPLE), progress=progress)
    assert (False, [(PHASE_APPLYING, 3, 3)]) == (result.aborted, progress.summary())


def test_an_atomic_abort_finishes_the_phase_at_the_refused_op() -> None:
    """The link to a missing file refuses at op 2: two ops counted, the phase finished."""
    store = fake_store()
    progress = FakeProgress()
    missing = {"op": "link", "src": EXPORT, "rel": "caused_by", "dst": "areas/inbox/gone.html"}
    result = apply_batch(store.deps, _ops(EXAMPLE[0], EXAMPLE[1], missing), progress=progress)
    assert (True, [(PHASE_APPLYING, 3, 2)]) == (result.aborted, progress.summary())


def test_continue_on_error_still_counts_the_refused_op() -> None:
    """A refused op is done too when the batch continues past it."""
    store = fake_store()
    progress = FakeProgress()
    missing = {"op": "archive", "path": "areas/inbox/gone.html", "reason": "old"}
    ops = _ops(missing, EXAMPLE[0])
    result = apply_batch(store.deps, ops, continue_on_error=True, progress=progress)
    assert [(PHASE_APPLYING, 2, 2)] == progress.summary()
    assert (1, LEDGER) == (result.summary.failed, result.results[1].path)


def test_an_empty_batch_announces_nothing() -> None:
    """No ops, no phase."""
    store = fake_store()
    progress = FakeProgress()
    apply_batch(store.deps, (), progress=progress)
    assert [] == progress.calls
