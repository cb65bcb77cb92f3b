"""Access rows follow the memories a sync merge moves (docs/sync.md §4): the plan names each
moved memory, the merged sidecar re-keys each side's rows by its moves, the table's move has a
pure twin, and the merge commit records the moves for the machines that fast-forward to it."""

from __future__ import annotations

import attrs
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.reinforce import AccessRow, merge_access
from memhtml.domain.sidecar import SIDECAR_PATH, parse_sidecar, render_sidecar
from memhtml.domain.sync_merge import plan_merge
from memhtml.domain.sync_moves import (
    ParentMove,
    parent_moves,
    read_moves,
    render_moves,
    rows_to_move,
)
from memhtml.domain.sync_sidecar import follow_moves, merge_sidecars, move_access_rows
from memhtml.domain.sync_values import (
    OURS,
    THEIRS,
    MergeSides,
    Moved,
    Placement,
    Side,
    SidecarMerge,
    Stamp,
    Version,
)
from tests.strategies import access_paths, access_rows
from tests.unit.test_sync_merge import A, Merge, memory, merges, placed_version

STAMP = "2026-01-01T00:00:00Z"
LATER = "2026-09-14T07:02:11Z"
row_sets = st.lists(access_rows, max_size=6).map(lambda rows: {r.path: r for r in rows})
move_lists = st.lists(st.tuples(access_paths, access_paths), max_size=4)
SIDECAR = Version(blob="s" * 40)


def stamps(ours: int, theirs: int, path: str = A) -> dict[tuple[Side, str], Stamp]:
    return {
        (OURS, path): Stamp(time=ours, commit="o" * 40),
        (THEIRS, path): Stamp(time=theirs, commit="t" * 40),
    }


def test_a_file_set_aside_is_named_with_its_side_and_new_path() -> None:
    """Two new files at one path: the earlier side's file moves to ``-2`` and the plan says
    so; the untouched sidecar is then merged so its rows can follow."""
    sides = MergeSides(
        base={SIDECAR_PATH: SIDECAR},
        ours={A: memory("mine"), SIDECAR_PATH: SIDECAR},
        theirs={A: memory("yours"), SIDECAR_PATH: SIDECAR},
    )
    plan = plan_merge(sides, stamps(ours=1, theirs=2))
    mine = sides.ours[A].memory
    assert mine is not None
    moved = Moved(
        side=OURS, source=A, target="areas/inbox/a-2.html", content_hash=mine.content_hash
    )
    assert (moved,) == plan.moved
    assert SidecarMerge(path=SIDECAR_PATH, later=OURS) == plan.final[SIDECAR_PATH]


def test_a_merge_that_moves_nothing_leaves_the_sidecar_alone() -> None:
    """Different memories at different paths: nothing moves, the sidecar is not touched."""
    sides = MergeSides(
        base={SIDECAR_PATH: SIDECAR},
        ours={A: memory("mine"), SIDECAR_PATH: SIDECAR},
        theirs={"areas/inbox/b.html": memory("yours"), SIDECAR_PATH: SIDECAR},
    )
    plan = plan_merge(sides, stamps(ours=1, theirs=2))
    assert ((), False) == (plan.moved, SIDECAR_PATH in plan.final)


@given(merges())
def test_every_moved_memory_is_found_at_its_target(merge: Merge) -> None:
    """Each move's target holds the same memory (content hash) as the moved file: rows
    re-keyed by the moves land on the memory they counted."""
    sides, stamped = merge
    plan = plan_merge(sides, stamped)
    for moved in plan.moved:
        source = sides.version(moved.side, moved.source)
        placed = plan.final[moved.target]
        assert source is not None
        assert source.memory is not None
        assert isinstance(placed, Placement)
        target = placed_version(sides, placed).memory
        assert target is not None
        assert source.memory.content_hash == target.content_hash == moved.content_hash
        assert moved.source != moved.target


@given(row_sets, row_sets, st.dictionaries(access_paths, access_paths, max_size=3))
def test_merged_rows_are_each_sides_rows_re_keyed_then_merged(
    earlier: dict[str, AccessRow], later: dict[str, AccessRow], moves: dict[str, str]
) -> None:
    """Moving the earlier side's rows first, then merging, is what the merge does."""
    rows = follow_moves(parse_sidecar(render_sidecar(earlier.values())).rows, moves)
    moved = render_sidecar(_merged(rows))
    expected = merge_sidecars(moved, render_sidecar(later.values()))
    actual = merge_sidecars(
        render_sidecar(earlier.values()), render_sidecar(later.values()), earlier_moves=moves
    )
    assert expected == actual


def _merged(rows: tuple[AccessRow, ...]) -> list[AccessRow]:
    table: dict[str, AccessRow] = {}
    for row in rows:
        table[row.path] = merge_access(table.get(row.path), row)
    return list(table.values())


def test_a_relocated_row_leaves_the_path_the_other_file_keeps() -> None:
    """The earlier side's row goes to ``-2``; the later side's row alone stays at the path."""
    mine = AccessRow(path=A, access_count=5, outcome_score=1.0, updated_at=STAMP)
    yours = AccessRow(path=A, access_count=1, outcome_score=-1.0, updated_at=LATER)
    merged = merge_sidecars(
        render_sidecar([mine]),
        render_sidecar([yours]),
        earlier_moves={A: "areas/inbox/a-2.html"},
    )
    rows = {row.path: row for row in parse_sidecar(merged.text).rows}
    assert {
        A: yours,
        "areas/inbox/a-2.html": attrs.evolve(mine, path="areas/inbox/a-2.html"),
    } == rows


@given(row_sets, move_lists)
def test_moving_rows_keeps_every_count_and_empties_each_source(
    table: dict[str, AccessRow], moves: list[tuple[str, str]]
) -> None:
    """After the moves no row is lost that is not merged into its target, and a source that no
    later move fills again holds no row."""
    after = move_access_rows(table, moves)
    total_before = max((r.access_count for r in table.values()), default=0)
    total_after = max((r.access_count for r in after.values()), default=0)
    assert total_before == total_after
    assert len(after) <= len(table)
    targets = {t for _, t in moves}
    for source, target in moves:
        if source != target and source not in targets:
            assert source not in after
    assert all(path == row.path for path, row in after.items())


@given(row_sets, move_lists)
def test_moving_twice_is_moving_once_when_no_target_is_a_source(
    table: dict[str, AccessRow], moves: list[tuple[str, str]]
) -> None:
    """A killed sync that repeats its moves changes nothing the second time."""
    sources = {s for s, _ in moves}
    moves = [(s, t) for s, t in moves if t not in sources]
    once = move_access_rows(table, moves)
    assert once == move_access_rows(once, moves)


@given(
    st.lists(
        st.builds(
            ParentMove,
            parent=st.sampled_from([1, 2]),
            source=st.text(min_size=1),
            target=st.text(min_size=1),
            content_hash=st.text(),
        ),
        max_size=4,
    )
)
def test_recorded_moves_read_back_from_a_commit_message(moves: list[ParentMove]) -> None:
    """Any paths survive the trailer round trip, after a subject and a body."""
    message = f"memhtml(sync): merge origin\n\nbody text\n\n{render_moves(moves)}"
    assert tuple(moves) == read_moves(message)


def test_malformed_move_trailers_are_ignored() -> None:
    """A hand-edited trailer that is not ``[parent, source, target, hash]`` is skipped."""
    message = (
        'subject\n\nMemhtml-Moved: [3, "a", "b", "h"]\nMemhtml-Moved: not json\n'
        'Memhtml-Moved: [2, "a", "b"]\nMemhtml-Moved: [2, "a.html", "a-2.html", "h"]\n'
    )
    expected = ParentMove(parent=2, source="a.html", target="a-2.html", content_hash="h")
    assert (expected,) == read_moves(message)


def test_ours_is_the_first_parent() -> None:
    """The merging machine's files are the merge commit's first parent's."""
    moved = (
        Moved(side=OURS, source="a", target="b", content_hash="h1"),
        Moved(side=THEIRS, source="c", target="d", content_hash="h2"),
    )
    assert (
        ParentMove(parent=1, source="a", target="b", content_hash="h1"),
        ParentMove(parent=2, source="c", target="d", content_hash="h2"),
    ) == parent_moves(moved)


def move(parent: int, source: str, target: str, content_hash: str) -> ParentMove:
    return ParentMove(parent=parent, source=source, target=target, content_hash=content_hash)


def test_a_row_moves_only_when_this_machine_holds_the_moved_memory() -> None:
    """Of two relocations from one path in two merges, the one of this machine's memory moves
    its row; the other memory's move is not this machine's."""
    merges = [[move(2, "p", "p-2", "other")], [move(1, "p", "p-3", "mine")]]
    assert (("p", "p-3"),) == rows_to_move({"p": "mine"}, merges)


def test_a_memory_moved_twice_moves_its_row_twice_in_order() -> None:
    """A later merge moving the memory on from where an earlier one put it is followed."""
    merges = [[move(2, "p", "p-2", "mine")], [move(1, "p-2", "archive/p-2", "mine")]]
    assert (("p", "p-2"), ("p-2", "archive/p-2")) == rows_to_move({"p": "mine"}, merges)


@given(
    st.dictionaries(access_paths, st.sampled_from(["h1", "h2"]), max_size=4),
    st.lists(
        st.lists(
            st.builds(
                move,
                st.sampled_from([1, 2]),
                access_paths,
                access_paths,
                st.sampled_from(["h1", "h2"]),
            ),
            max_size=3,
        ),
        max_size=3,
    ),
)
def test_rows_move_only_from_paths_holding_this_machines_memories(
    held: dict[str, str], merges: list[list[ParentMove]]
) -> None:
    """Replayed one by one, as the table moves them, each row move starts at a path one of this
    machine's memories is at then, and moves of memories it never held contribute nothing."""
    where = dict(held)
    for source, target in rows_to_move(held, merges):
        assert source in where
        where[target] = where.pop(source)
    hashes = set(held.values())
    unrelated = [[m for m in moves if m.content_hash not in hashes] for moves in merges]
    assert () == rows_to_move(held, unrelated)
