"""A memory both sides moved away, each writing a new memory at its path (docs/sync.md §3):
two new files at one path, reported ``relocated`` like any slug collision, not ``conflict``."""

from __future__ import annotations

from memhtml.domain.sync_merge import plan_merge
from memhtml.domain.sync_values import (
    CASE_CONFLICT,
    CASE_CONVERGED,
    CASE_RELOCATED,
    OURS,
    THEIRS,
    AddLink,
    MergeSides,
    Placement,
    Side,
    Stamp,
)
from tests.unit.test_sync_merge import A, X, memory

A2 = "areas/inbox/a-2.html"


def stamps(sides: MergeSides, later: Side) -> dict[tuple[Side, str], Stamp]:
    """Every path of either side stamped, ``later``'s side after the other's."""
    return {
        (side, path): Stamp(time=2 if side == later else 1, commit=f"{side}:{path}")
        for side in (OURS, THEIRS)
        for path in (sides.ours if side == OURS else sides.theirs)
    }


def test_both_archived_and_each_wrote_a_new_memory_at_the_path() -> None:
    """The archive copies converge; the two new memories at the old path are two memories:
    the earlier moves aside with no ``contradicts`` link, reported ``relocated``."""
    sides = MergeSides(
        base={A: memory("h1")},
        ours={X: memory("h1", salt=1), A: memory("mine")},
        theirs={X: memory("h1", salt=2), A: memory("yours")},
    )
    merged = plan_merge(sides, stamps(sides, later=THEIRS))
    assert {
        A: Placement(path=A, side=THEIRS, source=A),
        A2: Placement(path=A2, side=OURS, source=A),
        X: Placement(path=X, side=THEIRS, source=X),
    } == dict(merged.final)
    assert [(CASE_CONVERGED, X, None), (CASE_RELOCATED, A, A2)] == [
        (c.kind, c.path, c.other_path) for c in merged.cases
    ]


def test_rival_successors_written_at_the_path_stay_a_conflict() -> None:
    """Two corrections whose successors both took the old path and supersede the one archive
    copy are rival versions: still ``conflict``, linked ``contradicts``."""
    sides = MergeSides(
        base={A: memory("h1")},
        ours={X: memory("h1", sb=A, salt=1), A: memory("mine", ("supersedes", X))},
        theirs={X: memory("h1", sb=A, salt=2), A: memory("yours", ("supersedes", X))},
    )
    merged = plan_merge(sides, stamps(sides, later=THEIRS))
    aside = merged.final[A2]
    assert isinstance(aside, Placement)
    assert (AddLink(rel="contradicts", target=A),) == aside.edits
    assert CASE_CONFLICT in {c.kind for c in merged.cases}
