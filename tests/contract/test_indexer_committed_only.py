"""The indexer's catch-up from the commits alone (what a sync runs), over dulwich and the fake."""

from __future__ import annotations

from tests.contract.test_indexer_rebuild import A, B, C, Store, memory_bytes, store
from tests.contract.test_indexer_update import gists, seeded

__all__ = ["store"]  # the fixture, shared with the rebuild suite


def test_the_commits_are_applied_and_a_working_edit_waits_for_a_full_pass(store: Store) -> None:
    """Committed changes reach their rows; an uncommitted edit is left to the next full pass."""
    seeded(store, embed=False)
    indexer = store.indexer()
    store.repo.write_file(B, memory_bytes("Beta edited on disk.", title="Beta"))
    head = store.commit({A: memory_bytes("Alpha changed.", title="Alpha")}, deletes=[C])
    caught_up = indexer.update(embed=False, committed_only=True)
    after_sync = gists(store)
    full = indexer.update(embed=False)
    assert (
        (head, 1, 1, 0),
        [(A, "Alpha changed."), (B, "Beta holds.")],
        (1, [(A, "Alpha changed."), (B, "Beta edited on disk.")]),
    ) == (
        (caught_up.head_sha, caught_up.modified, caught_up.removed, caught_up.dirty),
        after_sync,
        (full.dirty, gists(store)),
    )


def test_paths_dirty_at_the_last_pass_stay_dirty_and_are_revisited(store: Store) -> None:
    """A path the last pass read from the working tree keeps that row and stays recorded as
    dirty, so the full pass after its revert brings the committed text back."""
    seeded(store, embed=False)
    indexer = store.indexer()
    store.repo.write_file(A, memory_bytes("Alpha edited on disk.", title="Alpha"))
    indexer.update(embed=False)
    store.commit({C: memory_bytes("Gamma changed.", title="Gamma")})
    indexer.update(embed=False, committed_only=True)
    state = indexer.index_state()
    during = gists(store)
    store.repo.write_file(A, memory_bytes("Alpha holds.", title="Alpha"))
    indexer.update(embed=False)
    assert (
        frozenset({A}),
        [(A, "Alpha edited on disk."), (B, "Beta holds."), (C, "Gamma changed.")],
        [(A, "Alpha holds."), (B, "Beta holds."), (C, "Gamma changed.")],
    ) == (None if state is None else state.dirty_paths, during, gists(store))


def test_nothing_committed_is_unchanged_even_with_a_working_edit(store: Store) -> None:
    """HEAD at the watermark: nothing to apply, whatever the working tree holds."""
    seeded(store, embed=False)
    indexer = store.indexer()
    before = indexer.index_state()
    store.repo.write_file(A, memory_bytes("Alpha edited on disk.", title="Alpha"))
    report = indexer.update(embed=False, committed_only=True)
    assert (True, before, "Alpha holds.") == (
        report.unchanged,
        indexer.index_state(),
        gists(store)[0][1],
    )


def test_the_walked_status_is_handed_back_only_when_nothing_was_written(store: Store) -> None:
    """``working`` is the status a pass walked when it then wrote nothing; a pass that indexed
    an edit, and a commits-only pass, hand none back."""
    seeded(store, embed=False)
    indexer = store.indexer()
    quiet = indexer.update(embed=False)
    store.repo.write_file(B, memory_bytes("Beta edited on disk.", title="Beta"))
    wrote = indexer.update(embed=False)
    again = indexer.update(embed=False)
    committed = indexer.update(embed=False, committed_only=True)
    assert ((), None, (B,), None) == (
        quiet.working,
        wrote.working,
        None if again.working is None else tuple(entry.path for entry in again.working),
        committed.working,
    )
