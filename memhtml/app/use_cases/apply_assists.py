"""``apply``'s assists: each staged write's conflicts and near-duplicates, from one lookup each
for the whole batch, and the refusals and skips they turn into under the caller's policy."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from memhtml.app.apply_ops import OP_WRITE
from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.apply_results import OpResult
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.conflicts import WrittenClaim, conflicts_for, refuse_conflicts
from memhtml.app.use_cases.near_duplicates import (
    NearCheck,
    NearDuplicate,
    NearPolicy,
    NearPorts,
    WrittenText,
    near_duplicates_for,
    refuse_near_duplicates,
)


@attrs.frozen(kw_only=True)
class Ran:
    """One op's result plus what the commit needs to know about it."""

    result: OpResult
    changed: bool = False
    title: str | None = None
    session: tuple[str, str | None, str | None, str | None] | None = None
    claim: WrittenClaim | None = None
    text: WrittenText | None = None


def with_conflicts(deps: WriteDeps, tree: StagedTree, ran: Sequence[Ran]) -> tuple[Ran, ...]:
    """Each staged write's result with its conflicts, from one lookup for the batch."""
    writes = [r for r in ran if r.claim is not None]
    found = conflicts_for(deps.assists, tree, [r.claim for r in writes if r.claim is not None])
    by_index = {r.result.index: c for r, c in zip(writes, found, strict=True) if c}
    return tuple(
        attrs.evolve(r, result=attrs.evolve(r.result, conflicts=by_index[r.result.index]))
        if r.result.index in by_index
        else r
        for r in ran
    )


def near_skipped(index: int, near: tuple[NearDuplicate, ...]) -> OpResult:
    """A write ``--on-near-duplicate skip`` left out: ``ok``, at its nearest duplicate."""
    return OpResult(
        index=index,
        op=OP_WRITE,
        ok=True,
        path=near[0].path,
        near_duplicates=near,
        near_duplicate_skipped=True,
    )


def with_near(
    ports: NearPorts,
    tree: StagedTree,
    ran: Sequence[Ran],
    policy: NearPolicy,
    cache: dict[str, bytes],
) -> tuple[tuple[Ran, ...], NearCheck]:
    """Each staged write's result with its near-duplicates, from one embedder call and one
    lookup for the batch."""
    writes = [r for r in ran if r.text is not None]
    check = near_duplicates_for(
        ports, tree, [r.text for r in writes if r.text is not None], policy, cache=cache
    )
    by_index = {r.result.index: n for r, n in zip(writes, check.found, strict=True) if n}
    updated = tuple(
        attrs.evolve(r, result=attrs.evolve(r.result, near_duplicates=by_index[r.result.index]))
        if r.result.index in by_index
        else r
        for r in ran
    )
    return updated, check


def near_from(probed: Sequence[Ran], ran: Sequence[Ran]) -> tuple[Ran, ...]:
    """``ran``'s staged writes with the near-duplicates the probe found for the same ops."""
    by_index = {r.result.index: r.result.near_duplicates for r in probed}
    return tuple(
        attrs.evolve(r, result=attrs.evolve(r.result, near_duplicates=by_index[r.result.index]))
        if r.text is not None and by_index.get(r.result.index)
        else r
        for r in ran
    )


def near_refusals(ran: Sequence[Ran]) -> dict[int, Exception]:
    """``--on-near-duplicate fail``: the refusal of each write with near-duplicates."""
    return {
        r.result.index: refuse_near_duplicates(r.result.path or "", r.result.near_duplicates)
        for r in ran
        if r.result.near_duplicates and not r.result.near_duplicate_skipped
    }


def conflict_refusals(ran: Sequence[Ran]) -> dict[int, Exception]:
    """``--on-conflict fail``: the refusal of each write that conflicts, by op index."""
    return {
        r.result.index: refuse_conflicts(r.result.path or "", r.result.conflicts)
        for r in ran
        if r.result.conflicts
    }
