"""``apply``'s answer: one result per op, the counts, and the refusal of an aborted batch."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs

from memhtml.app.apply_ops import OP_ARCHIVE, OP_LINK, OP_WRITE
from memhtml.app.errors import BatchAborted
from memhtml.app.use_cases.conflicts import ConflictingMemory
from memhtml.app.use_cases.near_duplicates import NearDuplicate


@attrs.frozen(kw_only=True)
class OpResult:
    """One op's outcome (camelCase in the envelope, like every other result).

    Attributes:
        index: 0-based position in the batch (blank lines not counted).
        op: ``write``, ``link`` or ``archive``.
        ok: The op took effect (or deduped); False when refused or skipped.
        path: The written file, the existing one when deduped, the link's source, or the
            archive destination.
        deduped: A write whose content already lives at ``existing_path``.
        existing_path: That path, when deduped.
        code, error: The ``ERR_*`` code and message of a refused op.
        skipped: Not run, or rolled back, because the atomic batch aborted.
        conflicts: For a write, the live memories stating its relation with other values.
        near_duplicates: For a write, the live memories its first chunk nearly repeats, most
            similar first.
        near_duplicate_skipped: ``--on-near-duplicate skip`` left the write out (``ok``;
            ``path`` is its nearest duplicate).
    """

    index: int
    op: str
    ok: bool
    path: str | None = None
    deduped: bool = False
    existing_path: str | None = None
    code: str | None = None
    error: str | None = None
    skipped: bool = False
    conflicts: tuple[ConflictingMemory, ...] = ()
    near_duplicates: tuple[NearDuplicate, ...] = ()
    near_duplicate_skipped: bool = False


@attrs.frozen(kw_only=True)
class ApplySummary:
    """Counts over the results."""

    total: int
    written: int
    deduped: int
    linked: int
    archived: int
    failed: int
    skipped: int
    near_duplicate_skipped: int = 0


@attrs.frozen(kw_only=True)
class ApplyResult:
    """``batch.applied``.

    Attributes:
        results: One per op, in input order.
        summary: The counts.
        commit_sha: The batch's one commit, or ``None`` when nothing was committed.
        aborted: An atomic batch stopped at a refused op.
        indexed: False only when the commit landed and the index pass after it failed.
        near_duplicate_note: Why the batch's near-duplicates were not (all) checked, else
            ``None``.
    """

    results: tuple[OpResult, ...]
    summary: ApplySummary
    commit_sha: str | None
    aborted: bool
    indexed: bool
    near_duplicate_note: str | None = None


def summary_of(results: Sequence[OpResult]) -> ApplySummary:
    """The counts over ``results``."""

    def count(op: str) -> int:
        return sum(
            1
            for r in results
            if r.ok and r.op == op and not r.deduped and not r.near_duplicate_skipped
        )

    return ApplySummary(
        total=len(results),
        written=count(OP_WRITE),
        deduped=sum(1 for r in results if r.ok and r.deduped),
        linked=count(OP_LINK),
        archived=count(OP_ARCHIVE),
        failed=sum(1 for r in results if not r.ok and not r.skipped),
        skipped=sum(1 for r in results if r.skipped),
        near_duplicate_skipped=sum(1 for r in results if r.near_duplicate_skipped),
    )


def refuse_aborted(result: ApplyResult, detail: Mapping[str, object]) -> None:
    """Raise when an atomic batch aborted, so every edge reports it as a failure.

    ``aborted: true`` used to come back as a success (exit 0), and a script that checked only
    the exit status took a batch that wrote nothing for one that landed. ``detail`` is the
    edge's shaping of ``result`` (``batch.applied`` data), carried whole by the error.

    Raises:
        BatchAborted: ``result.aborted``; the message names the refused op and its code.
    """
    if not result.aborted:
        return
    refused = next(r for r in result.results if not r.ok and not r.skipped)
    raise BatchAborted(
        f"the batch was aborted at op index {refused.index} ({refused.op}): {refused.code}: "
        f"{refused.error}; nothing was written",
        detail=detail,
        suggestions=(
            f"fix or drop op index {refused.index}, then run the batch again",
            "memhtml apply --continue-on-error (commits the ops that succeed)",
        ),
    )
