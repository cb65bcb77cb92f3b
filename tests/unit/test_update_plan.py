"""Planning an incremental update from git's answers alone (committed first, then the tree)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.paths import is_indexable_path
from memhtml.domain.update_plan import FROM_HEAD, FROM_WORK, UpdatePlan, plan_update
from memhtml.ports.git import DiffEntry, StatusEntry
from tests.strategies import indexer_any_paths

A, B, C = "areas/inbox/a.html", "areas/inbox/b.html", "areas/inbox/c.html"
ARCHIVED_A = "archive/2026/areas/inbox/a.html"


@st.composite
def diff_entries(draw: st.DrawFn) -> DiffEntry:
    """One name-status row over the small path set."""
    path = draw(indexer_any_paths)
    if draw(st.booleans()):
        source = draw(indexer_any_paths.filter(lambda p: p != path))
        return DiffEntry(status="R", path=path, from_path=source)
    return DiffEntry(status=draw(st.sampled_from(["A", "M", "D"])), path=path)


@st.composite
def status_entries(draw: st.DrawFn) -> StatusEntry:
    """One working-tree entry, sometimes a staged rename."""
    path = draw(indexer_any_paths)
    source = draw(st.one_of(st.none(), indexer_any_paths.filter(lambda p: p != path)))
    return StatusEntry(path=path, deleted=draw(st.booleans()), from_path=source)


def _committed(entries: list[DiffEntry]) -> list[DiffEntry]:
    """Rows as git reports them: each path at most once on either side."""
    seen: set[str] = set()
    kept: list[DiffEntry] = []
    for entry in entries:
        sides = {entry.path, entry.from_path} - {None}
        if not sides & seen:
            kept.append(entry)
            seen |= {s for s in sides if s is not None}
    return kept


plans = st.tuples(
    st.lists(diff_entries(), max_size=6).map(_committed),
    st.lists(status_entries(), max_size=5).map(lambda es: list({e.path: e for e in es}.values())),
    st.frozensets(indexer_any_paths, max_size=3),
)


def sources(plan: UpdatePlan) -> dict[str, str]:
    """Every projected path and where its bytes come from."""
    return {**dict.fromkeys(plan.from_head, FROM_HEAD), **dict.fromkeys(plan.from_work, FROM_WORK)}


def test_nothing_to_do_is_an_empty_plan() -> None:
    """No change and no dirty path plans nothing."""
    assert UpdatePlan() == plan_update((), (), ())


def test_committed_rename_moves_the_row_and_reprojects_the_target() -> None:
    """An archive move is one rename: source removed, target projected from HEAD."""
    plan = plan_update([DiffEntry(status="R", path=ARCHIVED_A, from_path=A)], ())
    expected = (((A, ARCHIVED_A),), (A,), {ARCHIVED_A: FROM_HEAD}, frozenset({ARCHIVED_A}), 1)
    actual = (plan.renames, plan.removals, sources(plan), plan.rename_targets, plan.renamed)
    assert expected == actual


def test_working_tree_wins_over_the_commit() -> None:
    """A path changed in a commit and again on disk ends at its working-tree bytes."""
    plan = plan_update([DiffEntry(status="M", path=A)], [StatusEntry(path=A)])
    assert ({A: FROM_WORK}, 1, 1) == (sources(plan), plan.modified, plan.dirty)


def test_chained_renames_carry_one_row() -> None:
    """A committed a→b then a staged b→c keeps both moves, in order."""
    plan = plan_update(
        [DiffEntry(status="R", path=B, from_path=A)], [StatusEntry(path=C, from_path=B)]
    )
    assert (((A, B), (B, C)), (A, B), {C: FROM_WORK}) == (
        plan.renames,
        plan.removals,
        sources(plan),
    )


def test_recreated_rename_source_is_not_moved() -> None:
    """A `git mv a b` whose source was written again keeps a's row; b is projected anew."""
    plan = plan_update((), [StatusEntry(path=A), StatusEntry(path=B, from_path=A)])
    assert ((), {A: FROM_WORK, B: FROM_WORK}) == (plan.renames, sources(plan))


def test_previously_dirty_path_is_read_again_from_head() -> None:
    """A path dirty last time and clean now (a reverted edit) is re-read from HEAD."""
    plan = plan_update((), (), {A, "README.md"})
    assert ({A: FROM_HEAD}, frozenset()) == (sources(plan), plan.dirty_after)


def test_committed_rename_of_a_once_dirty_file_still_moves_the_row() -> None:
    """The commit of a staged move (dirty last time) keeps the rename, so vectors survive."""
    plan = plan_update([DiffEntry(status="R", path=B, from_path=A)], (), {A, B})
    assert (((A, B),), (A,), {B: FROM_HEAD}) == (plan.renames, plan.removals, sources(plan))


@given(plans)
@example(([], [StatusEntry(path=A, from_path="notes/x.html")], frozenset()))
@example(([DiffEntry(status="R", path="notes/x.html", from_path=A)], [], frozenset()))
def test_every_planned_path_is_indexable(
    case: tuple[list[DiffEntry], list[StatusEntry], frozenset[str]],
) -> None:
    """No path outside the indexed tree is moved, removed, projected or remembered."""
    plan = plan_update(*case)
    named = {
        *(p for pair in plan.renames for p in pair),
        *plan.removals,
        *sources(plan),
        *plan.dirty_after,
    }
    assert set() == {p for p in named if not is_indexable_path(p)}


@given(plans)
@example(([DiffEntry(status="D", path=A)], [StatusEntry(path=A)], frozenset()))
def test_each_touched_path_ends_in_exactly_one_state(
    case: tuple[list[DiffEntry], list[StatusEntry], frozenset[str]],
) -> None:
    """Every indexable path the inputs name is either removed or projected, never both."""
    committed, working, dirty = case
    plan = plan_update(committed, working, dirty)
    named = {
        p
        for p in (
            *(s for e in committed for s in (e.path, e.from_path)),
            *(s for e in working for s in (e.path, e.from_path)),
            *dirty,
        )
        if p is not None and is_indexable_path(p)
    }
    removals, projected = set(plan.removals), set(sources(plan))
    assert (named, set()) == (removals | projected, removals & projected)


@given(plans)
@example(([DiffEntry(status="A", path=A)], [StatusEntry(path=A, deleted=True)], frozenset()))
def test_working_tree_entries_decide_their_paths(
    case: tuple[list[DiffEntry], list[StatusEntry], frozenset[str]],
) -> None:
    """A reported path ends at its working-tree state: removed when deleted, else read from disk."""
    plan = plan_update(*case)
    expected = {
        e.path: (None if e.deleted else FROM_WORK) for e in case[1] if is_indexable_path(e.path)
    }
    actual = {p: sources(plan).get(p) for p in expected}
    assert expected == actual


@given(plans)
@example(([DiffEntry(status="R", path=B, from_path=A)], [StatusEntry(path=A)], frozenset()))
@example(([], [StatusEntry(path=A, deleted=True, from_path=B)], frozenset()))
def test_renames_only_leave_sources_that_are_gone(
    case: tuple[list[DiffEntry], list[StatusEntry], frozenset[str]],
) -> None:
    """A kept rename's source is removed, its target projected or moved on, and re-projected."""
    plan = plan_update(*case)
    later_sources = {s for s, _ in plan.renames}
    bad = [
        (s, t)
        for s, t in plan.renames
        if s not in plan.removals or (t not in sources(plan) and t not in later_sources)
    ]
    assert ([], True) == (bad, plan.rename_targets <= set(sources(plan)))


@given(plans)
@example(([], [StatusEntry(path=B, from_path=A, deleted=True)], frozenset()))
def test_dirty_after_is_what_the_working_tree_touches(
    case: tuple[list[DiffEntry], list[StatusEntry], frozenset[str]],
) -> None:
    """The remembered dirty set is every indexable path or rename source git reports now."""
    plan = plan_update(*case)
    expected = {
        p for e in case[1] for p in (e.path, e.from_path) if p is not None and is_indexable_path(p)
    }
    assert frozenset(expected) == plan.dirty_after


@given(plans)
@example(([DiffEntry(status="R", path="notes/x.html", from_path=A)], [], frozenset()))
def test_committed_counts_cover_each_indexable_row_once(
    case: tuple[list[DiffEntry], list[StatusEntry], frozenset[str]],
) -> None:
    """added + modified + removed + renamed counts the rows touching an indexed path."""
    plan = plan_update(*case)
    touching = [
        e
        for e in case[0]
        if is_indexable_path(e.path) or (e.from_path is not None and is_indexable_path(e.from_path))
    ]
    assert len(touching) == plan.added + plan.modified + plan.removed + plan.renamed
