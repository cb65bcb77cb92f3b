"""The sync merge rules (docs/sync.md §3): properties over generated trees, and the named cases
of the issue (same memory changed on both sides, archives and corrections converging, slug
collisions, generated files)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import attrs
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_merge import is_generated, plan_merge, required_stamps, variant
from memhtml.domain.sync_values import (
    CASE_CONFLICT,
    CASE_CONVERGED,
    CASE_DEDUPLICATED,
    CASE_GENERATED,
    CASE_KEPT,
    CASE_RELOCATED,
    CASE_SIDECAR,
    OURS,
    THEIRS,
    AddLink,
    MemoryFacts,
    MergePlan,
    MergeSides,
    Placement,
    RetargetLink,
    SetSupersededBy,
    Side,
    SidecarMerge,
    Stamp,
    Version,
    other_side,
)
from tests.strategies import sync_trees

Plain = tuple[object, ...]
A = "areas/inbox/a.html"
B = "areas/inbox/b.html"
X = "archive/2026/areas/inbox/a.html"
N = "areas/inbox/new.html"


def version(plain: Plain) -> Version:
    """A plain generated file as a ``Version``; equal plain data, equal blob."""
    blob = hashlib.sha1(repr(plain).encode(), usedforsecurity=False).hexdigest()
    if plain[0] != "memory":
        return Version(blob=blob)
    _, content, links, superseded, task, _ = plain
    assert isinstance(links, frozenset)
    facts = MemoryFacts(
        content_hash=str(content),
        is_task=bool(task),
        links=links,
        superseded_by=None if superseded is None else str(superseded),
    )
    return Version(blob=blob, memory=facts)


def memory(content: str, *links: tuple[str, str], sb: str | None = None, salt: int = 0) -> Version:
    """A hand-made memory version."""
    return version(("memory", content, frozenset(links), sb, False, salt))


def sides_of(
    base: Mapping[str, Plain], ours: Mapping[str, Plain], theirs: Mapping[str, Plain]
) -> MergeSides:
    return MergeSides(
        base={p: version(v) for p, v in base.items()},
        ours={p: version(v) for p, v in ours.items()},
        theirs={p: version(v) for p, v in theirs.items()},
    )


def stamps_for(sides: MergeSides, order: list[int]) -> dict[tuple[Side, str], Stamp]:
    keys = sorted(required_stamps(sides))
    return {key: Stamp(time=order[i], commit=f"{key[0]}:{key[1]}") for i, key in enumerate(keys)}


Merge = tuple[MergeSides, dict[tuple[Side, str], Stamp]]


@st.composite
def merges(draw: st.DrawFn) -> Merge:
    base, ours, theirs = draw(sync_trees())
    sides = sides_of(base, ours, theirs)
    count = len(required_stamps(sides))
    order = draw(st.permutations(list(range(count))))
    return sides, stamps_for(sides, list(order))


def swapped(sides: MergeSides) -> MergeSides:
    return MergeSides(base=sides.base, ours=sides.theirs, theirs=sides.ours)


def swap_stamps(stamps: Mapping[tuple[Side, str], Stamp]) -> dict[tuple[Side, str], Stamp]:
    return {(other_side(side), path): stamp for (side, path), stamp in stamps.items()}


def placed_version(sides: MergeSides, placed: Placement) -> Version:
    found = sides.version(placed.side, placed.source)
    assert found is not None, placed
    return found


def effective(sides: MergeSides, placed: Placement) -> MemoryFacts | None:
    """The facts of a placed file once its head edits are applied."""
    facts = placed_version(sides, placed).memory
    if facts is None:
        return None
    links, superseded = set(facts.links), facts.superseded_by
    for edit in placed.edits:
        if isinstance(edit, RetargetLink):
            links.discard((edit.rel, edit.old))
            links.add((edit.rel, edit.new))
        elif isinstance(edit, AddLink):
            links.add((edit.rel, edit.target))
        elif isinstance(edit, SetSupersededBy):
            superseded = edit.target
    return attrs.evolve(facts, links=frozenset(links), superseded_by=superseded)


def head_only(sides: MergeSides, path: str, mine: Version) -> bool:
    """A memory whose content is the base's: the side changed only its head."""
    base = sides.base.get(path)
    return (
        base is not None
        and base.memory is not None
        and mine.memory is not None
        and base.memory.content_hash == mine.memory.content_hash
    )


def changed_versions(sides: MergeSides, side: Side) -> list[tuple[str, Version]]:
    """What ``side`` changed that the merge must keep (generated files and the sidecar aside)."""
    found = []
    for path in sides.touched():
        mine = sides.version(side, path)
        if mine is None or not sides.changed(side, path):
            continue
        if is_generated(path) or path == SIDECAR_PATH:
            continue
        found.append((path, mine))
    return found


@given(merges())
def test_nothing_either_side_changed_is_lost(merge: Merge) -> None:
    """Every file a side changed is in the merge: a memory as its content hash, another file
    as its blob. A head-only edit changed no content: its links are the next test's."""
    sides, stamps = merge
    plan = plan_merge(sides, stamps)
    placed = [p for p in plan.final.values() if isinstance(p, Placement)]
    hashes = {v.memory.content_hash for v in (placed_version(sides, p) for p in placed) if v.memory}
    blobs = {placed_version(sides, p).blob for p in placed}
    for side in (OURS, THEIRS):
        for path, mine in changed_versions(sides, side):
            if head_only(sides, path, mine):
                continue
            if mine.memory is not None:
                assert mine.memory.content_hash in hashes, (side, path)
            else:
                assert mine.blob in blobs, (side, path)


@given(merges())
def test_every_link_a_side_added_survives_on_its_memory(merge: Merge) -> None:
    """A link a side added to a memory is on a merged file holding that memory's content (or,
    for a head-only edit, on the file now at its path), pointing at the same path or at where
    the side's target went."""
    sides, stamps = merge
    plan = plan_merge(sides, stamps)
    placed = [p for p in plan.final.values() if isinstance(p, Placement)]
    for side in (OURS, THEIRS):
        for path, mine in changed_versions(sides, side):
            if mine.memory is None:
                continue
            base = sides.base.get(path)
            old = base.memory.links if base is not None and base.memory is not None else frozenset()
            holders = [
                (p, effective(sides, p))
                for p in placed
                if (
                    (facts := placed_version(sides, p).memory) is not None
                    and facts.content_hash == mine.memory.content_hash
                )
                or (p.path == path and head_only(sides, path, mine))
            ]
            for rel, target in mine.memory.links - old:
                assert any(
                    (
                        facts is not None
                        and any(
                            r == rel and _same_target(sides, plan, side, target, t)
                            for r, t in facts.links
                        )
                    )
                    # a link to itself (once the target moved onto the holder) is dropped
                    or _same_target(sides, plan, side, target, holder.path)
                    for holder, facts in holders
                ), (side, path, rel, target)


def _same_target(sides: MergeSides, plan: MergePlan, side: Side, target: str, found: str) -> bool:
    """``found`` is ``target``, or where ``side``'s file at ``target`` went."""
    if found == target:
        return True
    placed = plan.final.get(found)
    mine = sides.version(side, target)
    if not isinstance(placed, Placement) or mine is None:
        return False
    there = placed_version(sides, placed)
    return (placed.side, placed.source) == (side, target) or (
        there.memory is not None
        and mine.memory is not None
        and there.memory.content_hash == mine.memory.content_hash
    )


def _identical_file_linking_a_contested_path() -> Merge:
    """Found in CI: both sides add the same archived file, which links to a path each side
    filled with its own memory; the earlier one is relocated, and the shared file's link must
    not follow it only when that side happens to be "ours"."""
    archived = Version(
        blob="48ecd5c425175dc386422cf60ed1b7733e90ab56",
        memory=MemoryFacts(
            content_hash="h1",
            is_task=False,
            links=frozenset([("supports", "resources/r/a.html")]),
            superseded_by=None,
        ),
    )

    def memory(blob: str, content_hash: str) -> Version:
        facts = MemoryFacts(
            content_hash=content_hash, is_task=False, links=frozenset(), superseded_by=None
        )
        return Version(blob=blob, memory=facts)

    archive, contested = "archive/2026/areas/inbox/a.html", "resources/r/a.html"
    sides = MergeSides(
        base={},
        ours={
            contested: memory("051683d6b97833db7914e9746c0e89c7627b9948", "h1"),
            archive: archived,
        },
        theirs={
            contested: memory("a20929ebc0525187cf9fbf458863f04cbbbd5bf7", "h2"),
            archive: archived,
        },
    )
    stamps = {
        (side, path): Stamp(time=time, commit=f"{side}:{path}")
        for time, (side, path) in enumerate(
            [(OURS, archive), (OURS, contested), (THEIRS, archive), (THEIRS, contested)]
        )
    }
    return sides, stamps


@example(_identical_file_linking_a_contested_path())
@given(merges())
def test_merging_is_symmetric_up_to_generated_files(merge: Merge) -> None:
    """Swapping ours and theirs gives the same tree: the same files (by blob) with the same
    head edits at the same paths, and the same cases (generated files aside: they keep ours)."""
    sides, stamps = merge
    mirrored = swapped(sides)

    def shape(
        found: MergePlan, over: MergeSides, flip: bool
    ) -> tuple[dict[str, object], list[tuple[str, str, str]]]:
        final: dict[str, object] = {}
        for path, placed in found.final.items():
            if is_generated(path):
                continue
            if isinstance(placed, Placement):
                final[path] = (placed_version(over, placed).blob, placed.source, placed.edits)
            elif over.ours.get(path) == over.theirs.get(path):
                # The same rows on both sides: which one is "later" decides no tie.
                final[path] = "same rows"
            else:
                final[path] = other_side(placed.later) if flip else placed.later
        cases = sorted(
            (c.kind, c.path, c.other_path or "") for c in found.cases if c.kind != CASE_GENERATED
        )
        return final, cases

    plan = plan_merge(sides, stamps)
    mirror = plan_merge(mirrored, swap_stamps(stamps))
    assert shape(plan, sides, False) == shape(mirror, mirrored, True)


@given(merges())
def test_moved_files_never_land_on_an_occupied_path(merge: Merge) -> None:
    """A file given a new path gets one neither side touched nor anything else holds."""
    sides, stamps = merge
    occupied = {"areas/inbox/a-2.html", "README-2.html"}
    plan = plan_merge(sides, stamps, occupied=occupied)
    touched = set(sides.touched())
    for path in plan.final:
        if path not in touched:
            assert path not in occupied


@given(merges())
def test_one_sided_changes_are_taken_as_they_are(merge: Merge) -> None:
    """With no path changed on both sides, the merge is each side's files and nothing else."""
    sides, _ = merge
    ours_only = {p for p in sides.touched() if not sides.changed(THEIRS, p)}
    theirs = MergeSides(
        base=sides.base,
        ours=sides.ours,
        theirs={p: v for p, v in sides.theirs.items() if p not in ours_only}
        | {p: sides.base[p] for p in ours_only if p in sides.base},
    )
    touched_by_both = [
        p for p in theirs.touched() if theirs.changed(OURS, p) and theirs.changed(THEIRS, p)
    ]
    plan = plan_merge(theirs, stamps_for(theirs, list(range(len(required_stamps(theirs))))))
    if touched_by_both or plan.cases:
        return  # the dedup of new content across paths may apply; covered by its own test
    expected = {
        p: (OURS if theirs.changed(OURS, p) else THEIRS)
        for p in theirs.touched()
        if theirs.version(OURS if theirs.changed(OURS, p) else THEIRS, p) is not None
    }
    actual = {p: placed.side for p, placed in plan.final.items() if isinstance(placed, Placement)}
    assert expected == actual


@given(merges())
def test_a_side_with_no_changes_fast_forwards(merge: Merge) -> None:
    """When ours is the base, the merge is theirs exactly: no edit, no case."""
    sides, _ = merge
    fast = MergeSides(base=sides.base, ours=sides.base, theirs=sides.theirs)
    plan = plan_merge(fast, stamps_for(fast, list(range(len(required_stamps(fast))))))
    expected = {
        p: Placement(path=p, side=THEIRS, source=p) for p in fast.touched() if p in fast.theirs
    }
    assert (expected, ()) == (dict(plan.final), plan.cases)


@given(merges())
def test_equal_sides_merge_to_themselves(merge: Merge) -> None:
    """Both sides holding the same tree: ours is the merge, with nothing to report."""
    sides, _ = merge
    same = MergeSides(base=sides.base, ours=sides.ours, theirs=sides.ours)
    plan = plan_merge(same, {})
    expected = {p: Placement(path=p, side=OURS, source=p) for p in same.touched() if p in same.ours}
    assert (expected, ()) == (dict(plan.final), plan.cases)


def _plan(
    base: dict[str, Version], ours: dict[str, Version], theirs: dict[str, Version], *, later: Side
) -> MergePlan:
    """A plan where every change of ``later`` is newer than every change of the other side."""
    sides = MergeSides(base=base, ours=ours, theirs=theirs)
    stamps = {
        key: Stamp(time=2 if key[0] == later else 1, commit=key[0])
        for key in required_stamps(sides)
    }
    return plan_merge(sides, stamps)


def test_same_memory_changed_on_both_sides_keeps_both_and_links_them() -> None:
    """Both sides changed one memory's content: the later stays, the earlier moves beside it
    and says ``contradicts`` the later."""
    base = {A: memory("h1")}
    plan = _plan(base, {A: memory("h2")}, {A: memory("h3")}, later=THEIRS)
    moved = Placement(
        path="areas/inbox/a-2.html",
        side=OURS,
        source=A,
        edits=(AddLink(rel="contradicts", target=A),),
    )
    assert {A: Placement(path=A, side=THEIRS, source=A), moved.path: moved} == dict(plan.final)
    assert [(CASE_CONFLICT, A, moved.path, THEIRS)] == [
        (c.kind, c.path, c.other_path, c.kept) for c in plan.cases
    ]


def test_two_new_memories_with_one_slug_get_distinct_paths() -> None:
    """Two unrelated memories written at one path: both kept, the earlier one renamed."""
    plan = _plan({}, {N: memory("h1")}, {N: memory("h2")}, later=OURS)
    assert {N: OURS, "areas/inbox/new-2.html": THEIRS} == {
        p: v.side for p, v in plan.final.items() if isinstance(v, Placement)
    }
    assert [CASE_RELOCATED] == [c.kind for c in plan.cases]


def test_both_archiving_one_memory_converges_on_one_copy() -> None:
    """Both sides archived the same memory (different stamps): one archive copy, no second."""
    base = {A: memory("h1")}
    ours = {X: memory("h1", salt=1)}
    theirs = {X: memory("h1", salt=2)}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {X: Placement(path=X, side=THEIRS, source=X)} == dict(plan.final)
    assert [CASE_CONVERGED] == [c.kind for c in plan.cases]


def test_archives_at_two_paths_converge_and_links_follow() -> None:
    """One side's archive copy took a suffixed path: the copies converge on the later one and
    the earlier side's correction is re-pointed at it."""
    x2 = "archive/2026/areas/inbox/a-2.html"
    base = {A: memory("h1")}
    ours = {x2: memory("h1", sb=N, salt=1), N: memory("h9", ("supersedes", x2))}
    theirs = {X: memory("h1", salt=2)}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {N, X} == set(plan.final)
    assert (RetargetLink(rel="supersedes", old=x2, new=X),) == plan.final[N].edits  # type: ignore[union-attr]
    assert (SetSupersededBy(target=N),) == plan.final[X].edits  # type: ignore[union-attr]


def test_two_corrections_of_one_memory_keep_both_successors_linked() -> None:
    """Both sides corrected one memory under different titles: one archive copy, both new
    memories kept, the earlier successor linked ``contradicts`` to the later."""
    other = "areas/inbox/other.html"
    base = {A: memory("h1")}
    ours = {X: memory("h1", sb=N, salt=1), N: memory("h2", ("supersedes", X))}
    theirs = {X: memory("h1", sb=other, salt=2), other: memory("h3", ("supersedes", X))}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {X, N, other} == set(plan.final)
    assert (AddLink(rel="contradicts", target=other),) == plan.final[N].edits  # type: ignore[union-attr]
    assert {CASE_CONVERGED, CASE_CONFLICT} == {c.kind for c in plan.cases}


def test_a_link_added_while_the_other_side_archived_follows_the_archive() -> None:
    """One side linked a memory the other archived: the archive stands, with the link."""
    base = {A: memory("h1")}
    ours = {A: memory("h1", ("relates_to", B), salt=1)}
    theirs = {X: memory("h1", salt=2)}
    plan = _plan(base, ours, theirs, later=OURS)
    assert {
        X: Placement(path=X, side=THEIRS, source=X, edits=(AddLink(rel="relates_to", target=B),))
    } == dict(plan.final)


def test_links_added_on_both_sides_are_both_kept() -> None:
    """Two head edits of one memory converge into one file holding both links."""
    base = {A: memory("h1")}
    ours = {A: memory("h1", ("relates_to", B), salt=1)}
    theirs = {A: memory("h1", ("supports", N), salt=2)}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {
        A: Placement(path=A, side=THEIRS, source=A, edits=(AddLink(rel="relates_to", target=B),))
    } == dict(plan.final)


def test_a_change_beats_a_removal() -> None:
    """Edited on one side, removed on the other (not moved): the edit stays."""
    plan = _plan({A: memory("h1")}, {}, {A: memory("h2")}, later=OURS)
    assert ({A: Placement(path=A, side=THEIRS, source=A)}, [CASE_KEPT]) == (
        dict(plan.final),
        [c.kind for c in plan.cases],
    )


def test_one_new_content_at_two_paths_is_kept_once_at_the_earlier_path() -> None:
    """Both sides wrote the same fact at different paths: the earlier path stays, the later
    side's links land on it."""
    ours = {A: memory("h5")}
    theirs = {B: memory("h5", ("relates_to", N), salt=1)}
    plan = _plan({}, ours, theirs, later=THEIRS)
    assert {
        A: Placement(path=A, side=OURS, source=A, edits=(AddLink(rel="relates_to", target=N),))
    } == dict(plan.final)
    assert [(CASE_DEDUPLICATED, A, B)] == [(c.kind, c.path, c.other_path) for c in plan.cases]


def test_generated_files_keep_ours_and_the_sidecar_merges() -> None:
    """``index.html`` changed on both sides keeps ours; the sidecar is merged, not picked."""
    page = "projects/p/index.html"
    base = {page: version(("file", 0)), SIDECAR_PATH: version(("file", 0))}
    ours = {page: version(("file", 1)), SIDECAR_PATH: version(("file", 1))}
    theirs = {page: version(("file", 2)), SIDECAR_PATH: version(("file", 2))}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {
        page: Placement(path=page, side=OURS, source=page),
        SIDECAR_PATH: SidecarMerge(path=SIDECAR_PATH, later=THEIRS),
    } == dict(plan.final)
    assert {CASE_GENERATED, CASE_SIDECAR} == {c.kind for c in plan.cases}


def test_variants_insert_the_number_before_the_extension() -> None:
    """``a.html`` → ``a-2.html``; a name without an extension gets the number at its end."""
    assert ["d/a-2.html", ".gitignore-3", "README-2"] == [
        variant("d/a.html", 2),
        variant(".gitignore", 3),
        variant("README", 2),
    ]


def test_a_memory_moved_aside_on_one_side_and_archived_on_the_other_is_archived_once() -> None:
    """One side's merge moved a memory aside (a slug collision), the other archived it: the
    archive wins, and the moved copy folds into it instead of staying active beside it."""
    a2 = "areas/inbox/a-2.html"
    base = {A: memory("h1")}
    ours = {A: memory("h5"), a2: memory("h1")}
    theirs = {X: memory("h1", salt=1)}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {A: OURS, X: THEIRS} == {
        p: v.side for p, v in plan.final.items() if isinstance(v, Placement)
    }
    assert CASE_CONVERGED in {c.kind for c in plan.cases}


def test_an_archive_copy_moved_aside_by_a_collision_still_converges() -> None:
    """Both sides archived one memory, and one side's copy collided with another archived file
    at its path: the two copies still converge on one, and the other file keeps the path."""
    x2 = "archive/2026/areas/inbox/a-2.html"
    base = {A: memory("h1"), B: memory("h8")}
    ours = {X: memory("h1", salt=1), B: memory("h8")}
    theirs = {X: memory("h8", salt=2), x2: memory("h1", salt=3)}
    plan = _plan(base, ours, theirs, later=THEIRS)
    held = {
        path: _plain_hash(base, ours, theirs, placed)
        for path, placed in plan.final.items()
        if isinstance(placed, Placement)
    }
    assert {X: "h8", x2: "h1"} == held


def _plain_hash(
    base: dict[str, Version],
    ours: dict[str, Version],
    theirs: dict[str, Version],
    placed: Placement,
) -> str:
    """The content hash of the file a placement holds."""
    found = placed_version(MergeSides(base=base, ours=ours, theirs=theirs), placed).memory
    assert found is not None
    return found.content_hash


def test_a_memory_archived_on_one_side_is_not_left_active_by_an_older_base() -> None:
    """With a merge base older than the memory (criss-cross merges), one side added it and
    archived it, the other only added it: the archive wins over the active copy it came from."""
    base: dict[str, Version] = {}
    ours = {X: memory("h1", salt=1)}
    theirs = {A: memory("h1")}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {X: OURS} == {p: v.side for p, v in plan.final.items() if isinstance(v, Placement)}


def test_the_same_content_written_fresh_beside_an_unrelated_archive_stays_active() -> None:
    """An archive copy from another path does not absorb an active memory with equal content:
    on one machine, writing archived content again makes a new active memory too."""
    base: dict[str, Version] = {}
    ours = {"archive/2026/areas/inbox/old.html": memory("h1", salt=1)}
    theirs = {A: memory("h1")}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert {A, "archive/2026/areas/inbox/old.html"} == set(plan.final)


def test_an_archive_absorbs_its_active_copy_when_a_new_memory_took_the_old_path() -> None:
    """One side archived a memory and wrote another at the freed path; the other side still
    has the first one there: the new one keeps the path, the first is archived once."""
    base: dict[str, Version] = {}
    ours = {X: memory("h1", salt=1), A: memory("h2")}
    theirs = {A: memory("h1")}
    plan = _plan(base, ours, theirs, later=THEIRS)
    held = {
        path: _plain_hash(base, ours, theirs, placed)
        for path, placed in plan.final.items()
        if isinstance(placed, Placement)
    }
    assert {X: "h1", A: "h2"} == held


def test_archive_copies_of_one_content_converge_even_without_a_common_original() -> None:
    """Each side archived the memory from where it had it (an older merge base holds neither):
    one archive copy, the later one."""
    x4 = "archive/2026/areas/inbox/a-4.html"
    base: dict[str, Version] = {}
    ours = {X: memory("h1", sb=N, salt=1)}
    theirs = {x4: memory("h1", salt=2)}
    plan = _plan(base, ours, theirs, later=THEIRS)
    assert [x4] == [p for p, v in plan.final.items() if isinstance(v, Placement)]
    assert (SetSupersededBy(target=N),) == plan.final[x4].edits  # type: ignore[union-attr]


def _archive_copies(sides: MergeSides, tree: Mapping[str, Version]) -> dict[str, int]:
    """How many archive files of ``tree`` (touched paths only) hold each content hash."""
    found: dict[str, int] = {}
    for path, held in tree.items():
        if held.memory is not None and path.startswith("archive/") and path in sides.touched():
            found[held.memory.content_hash] = found.get(held.memory.content_hash, 0) + 1
    return found


@given(merges())
def test_a_memory_is_never_archived_more_often_than_either_side_had_it(merge: Merge) -> None:
    """Archiving or correcting one memory on both sides converges: the merge holds no more
    archive copies of a content than the side holding most of them."""
    sides, stamps = merge
    plan = plan_merge(sides, stamps)
    merged = {
        path: placed_version(sides, placed)
        for path, placed in plan.final.items()
        if isinstance(placed, Placement)
    }
    most = {
        content: max(_archive_copies(sides, tree).get(content, 0) for tree in sides_trees)
        for sides_trees in [(sides.ours, sides.theirs)]
        for content in _archive_copies(sides, merged)
    }
    assert {c: n for c, n in _archive_copies(sides, merged).items() if n > most[c]} == {}


def test_an_archive_copy_replacing_another_file_still_converges() -> None:
    """The three-clone workload's seed 7: one side archived a memory from where a merge had
    moved it; the other side's earlier merge put its own archive copy of that memory at an
    archive path that held another archived file (moved aside to ``-2``) in the merge base.
    Both copies are one memory archived twice: they converge on the later one."""
    a4 = "areas/inbox/a-4.html"
    x2 = "archive/2026/areas/inbox/a-2.html"
    x4 = "archive/2026/areas/inbox/a-4.html"
    base = {a4: memory("h1"), X: memory("h0")}
    ours = {a4: memory("h7"), X: memory("h0"), x4: memory("h1", salt=1)}
    theirs = {a4: memory("h8"), X: memory("h1", sb=N, salt=2), x2: memory("h0")}
    plan = _plan(base, ours, theirs, later=THEIRS)
    held = {
        path: _plain_hash(base, ours, theirs, placed)
        for path, placed in plan.final.items()
        if isinstance(placed, Placement)
    }
    assert 1 == sorted(held.values()).count("h1"), held
    assert {"h0", "h7", "h8"} <= set(held.values())
