"""The conflict assist: which live memories state a written memory's relation with other values.

"The pool holds 50 connections per pod" written beside a live "The pool holds 80 connections
per pod" is reported, so the disagreement is seen when it is made rather than months later.
Both share a frame key (``domain/frame_key``); their values differ. A restatement (same
values), a negation or a qualified variant (other keys) is no conflict.

The claims on every key a batch writes are asked in one lookup (``AssistLookup``), never once
per memory. Only memories already indexed are compared: memories written in the same batch are
not compared with each other. A claim the batch itself archived or moved (its file gone from
the staged tree) no longer counts, so ``correct`` never reports the memory it replaces.

What a conflict does is the caller's policy (``--on-conflict``): ``report`` lists it beside the
result, ``fail`` refuses the write before anything is committed, ``supersede`` archives the
older memories in favour of the new one (``use_cases/supersede``). ``doctor`` lists the conflicts
already in the store (``frame_conflicts``) and never resolves them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from memhtml.app.errors import FactConflict
from memhtml.app.staged_tree import StagedTree
from memhtml.domain.frame_key import frame_of, in_conflict
from memhtml.domain.vocabulary import TASK_TYPE
from memhtml.ports.assist_lookup import AssistLookup
from memhtml.ports.health import FrameClaim

ON_CONFLICT_REPORT: Final = "report"
"""List conflicts beside the result; write anyway (the default)."""
ON_CONFLICT_FAIL: Final = "fail"
"""Refuse a write that conflicts; nothing is committed for it."""
ON_CONFLICT_SUPERSEDE: Final = "supersede"
"""Archive the conflicting older memories, linked by ``supersedes``, in the same commit."""
ON_CONFLICT_MODES: Final = (ON_CONFLICT_REPORT, ON_CONFLICT_FAIL, ON_CONFLICT_SUPERSEDE)


@attrs.frozen(kw_only=True)
class ConflictingMemory:
    """A live memory stating the written memory's relation with other values."""

    path: str
    gist: str


@attrs.frozen(kw_only=True)
class WrittenClaim:
    """A memory a batch writes, as the assist sees it.

    Attributes:
        path: Where it is staged (never reported as its own conflict).
        gist: Its claim, as parsed from the rendered file.
        memory_type: A task's numbers are its plan, not a fact: tasks are never checked.
    """

    path: str
    gist: str
    memory_type: str


def conflicts_for(
    lookup: AssistLookup, tree: StagedTree, written: Sequence[WrittenClaim]
) -> tuple[tuple[ConflictingMemory, ...], ...]:
    """For each written memory, in order, the live memories it conflicts with, by path.

    One ``active_frames_for`` call for the whole batch (none when no written gist holds a
    value).

    Raises:
        StorageFailure: The index cannot be read.
    """
    frames = [None if w.memory_type == TASK_TYPE else frame_of(w.gist) for w in written]
    keys = sorted({frame.key for frame in frames if frame is not None})
    claims = lookup.active_frames_for(keys) if keys else {}
    found: list[tuple[ConflictingMemory, ...]] = []
    for claim_of, frame in zip(written, frames, strict=True):
        if frame is None:
            found.append(())
            continue
        mine = []
        for claim in claims.get(frame.key, ()):
            if claim.path == claim_of.path or not tree.exists(claim.path):
                continue
            other = frame_of(claim.gist)
            if other is not None and in_conflict(frame, other):
                mine.append(ConflictingMemory(path=claim.path, gist=claim.gist))
        found.append(tuple(sorted(mine, key=lambda m: m.path)))
    return tuple(found)


@attrs.frozen(kw_only=True)
class FrameConflict:
    """Live memories on one frame key that do not all state the same values (``doctor``).

    Attributes:
        frame_key: The relation they share.
        memories: Every claim on the key, by path; with two or more distinct values among
            them, each disagrees with at least one other.
    """

    frame_key: str
    memories: tuple[ConflictingMemory, ...]


def frame_conflicts(claims: Sequence[FrameClaim]) -> tuple[FrameConflict, ...]:
    """The conflicts among live claims sharing keys (``HealthProbe.shared_frames``), by key.

    A key whose claims all state the same values (restatements) is no conflict.
    """
    by_key: dict[str, list[FrameClaim]] = {}
    for claim in claims:
        by_key.setdefault(claim.frame_key, []).append(claim)
    found: list[FrameConflict] = []
    for key in sorted(by_key):
        framed = [(c, frame_of(c.gist)) for c in by_key[key]]
        values = {frame.values for _, frame in framed if frame is not None}
        if len(values) < 2:
            continue
        memories = tuple(
            ConflictingMemory(path=c.path, gist=c.gist)
            for c, frame in sorted(framed, key=lambda pair: pair[0].path)
            if frame is not None
        )
        found.append(FrameConflict(frame_key=key, memories=memories))
    return tuple(found)


def checked_on_conflict(mode: str) -> str:
    """``mode`` when it is one of ``ON_CONFLICT_MODES``.

    Raises:
        InvalidInput: Any other value.
    """
    from memhtml.domain.errors import InvalidInput

    if mode not in ON_CONFLICT_MODES:
        raise InvalidInput(
            f"on-conflict must be one of {', '.join(ON_CONFLICT_MODES)}, not {mode!r}"
        )
    return mode


def refuse_conflicts(path: str, conflicts: Sequence[ConflictingMemory]) -> FactConflict:
    """The refusal ``fail`` raises for the memory that would be at ``path``."""
    return FactConflict(path, tuple(c.path for c in conflicts))
