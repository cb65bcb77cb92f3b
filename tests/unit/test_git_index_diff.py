"""``entry_changes``: the paths whose index entry differs, by a merge of two ascending
snapshots (or, for an index out of order, the set rule), held to a plain definition."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from memhtml.adapters.git.index_diff import entry_changes
from memhtml.adapters.git.index_file import IndexRecord
from memhtml.adapters.git.index_snapshot import IndexSnapshot, snapshot_of

Entry = tuple[str, int]  # blob seed, mode
PATHS = st.text(alphabet="ab/c.", min_size=1, max_size=6).map(str.encode)
ENTRIES = st.dictionaries(PATHS, st.tuples(st.sampled_from("xyz"), st.sampled_from([33188, 33261])))


def snapshot(
    entries: dict[bytes, tuple[str, int]],
    unmerged: frozenset[bytes] = frozenset(),
    *,
    order: list[bytes] | None = None,
) -> IndexSnapshot:
    """A snapshot holding ``entries`` in ascending order (or ``order``), plus conflicts."""
    records = [
        IndexRecord(
            path=path,
            stage=0,
            mode=entries[path][1],
            size=0,
            mtime_ns=0,
            ctime_ns=0,
            sha=hashlib.sha1(entries[path][0].encode()).hexdigest().encode(),
            raw=b"",
        )
        for path in (sorted(entries) if order is None else order)
    ]
    records += [IndexRecord(p, 2, 33188, 0, 0, 0, b"0" * 40, b"") for p in sorted(unmerged)]
    key = repr((sorted(entries.items()), sorted(unmerged), order)).encode()
    return snapshot_of(key, records)


def defined(
    old: dict[bytes, tuple[str, int]],
    new: dict[bytes, tuple[str, int]],
    old_unmerged: frozenset[bytes],
    new_unmerged: frozenset[bytes],
) -> set[bytes]:
    """The rule: an entry added, removed or changed in blob or mode; a conflict come or gone.
    (A path in conflict is not among a snapshot's entries.)"""
    before = {p: e for p, e in old.items() if p not in old_unmerged}
    after = {p: e for p, e in new.items() if p not in new_unmerged}
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)} | (
        old_unmerged ^ new_unmerged
    )


@given(
    old=ENTRIES,
    new=ENTRIES,
    old_unmerged=st.frozensets(PATHS, max_size=2),
    new_unmerged=st.frozensets(PATHS, max_size=2),
)
def test_the_changes_of_any_two_snapshots_are_the_defined_ones(
    old: dict[bytes, tuple[str, int]],
    new: dict[bytes, tuple[str, int]],
    old_unmerged: frozenset[bytes],
    new_unmerged: frozenset[bytes],
) -> None:
    assert defined(old, new, old_unmerged, new_unmerged) == entry_changes(
        snapshot(old, old_unmerged), snapshot(new, new_unmerged)
    )


LONG: dict[bytes, tuple[str, int]] = {b"areas/m%04d.html" % n: ("x", 33188) for n in range(200)}


@given(
    edits=st.lists(st.integers(0, 199), max_size=4),
    removals=st.lists(st.integers(0, 199), max_size=3),
    additions=st.lists(PATHS, max_size=3),
)
def test_a_few_edits_in_a_long_index_are_found_across_skipped_runs(
    edits: list[int], removals: list[int], additions: list[bytes]
) -> None:
    """Runs of equal entries longer than the skipped blocks around a few edits, removals and
    additions anywhere, the first and last entries included."""
    paths = sorted(LONG)
    edited = dict(LONG)
    for n in edits:
        edited[paths[n]] = ("y", 33188)
    for n in removals:
        edited.pop(paths[n], None)
    for path in additions:
        edited.setdefault(path, ("z", 33261))
    none = frozenset[bytes]()
    assert defined(LONG, edited, none, none) == entry_changes(snapshot(LONG), snapshot(edited))


@given(old=ENTRIES, new=ENTRIES, data=st.data())
def test_an_index_out_of_order_still_gets_the_defined_changes(
    old: dict[bytes, tuple[str, int]], new: dict[bytes, tuple[str, int]], data: st.DataObject
) -> None:
    """Git never writes one, but the rule does not depend on the order."""
    shuffled = data.draw(st.permutations(sorted(new)))
    none = frozenset[bytes]()
    assert defined(old, new, none, none) == entry_changes(
        snapshot(old), snapshot(new, order=list(shuffled))
    )


@given(
    edits=st.lists(st.integers(0, 199), max_size=4),
    removals=st.lists(st.integers(0, 199), max_size=3),
    additions=st.lists(PATHS, max_size=3),
)
def test_a_snapshot_derived_by_a_writer_with_its_additions_last_is_diffed_alike(
    edits: list[int], removals: list[int], additions: list[bytes]
) -> None:
    """A writer of this process derives the next snapshot with its new entries appended, out
    of order; against it, or as the older side, the changes are still the defined ones."""
    paths = sorted(LONG)
    edited = dict(LONG)
    for n in edits:
        edited[paths[n]] = ("y", 33188)
    removed = {paths[n] for n in removals}
    kept = [p for p in paths if p not in removed and edited[p] == LONG[p]]
    appended = [p for p in paths if p not in removed and edited[p] != LONG[p]]
    for path in additions:
        if path not in edited:
            edited[path] = ("z", 33261)
            appended.append(path)
    for p in removed:
        edited.pop(p)
    derived = snapshot(edited, order=kept + appended)
    none = frozenset[bytes]()
    assert defined(LONG, edited, none, none) == entry_changes(snapshot(LONG), derived)
    assert defined(edited, LONG, none, none) == entry_changes(derived, snapshot(LONG))
