"""The history store port: transaction-time spans of the indexed first-parent line
(``--known-at``; docs/index-schema.md §7, pure rules in ``memhtml.domain.history``).

The index keeps, beside today's rows, which blob each path held from which commit of HEAD's
first-parent line to which. A query "as the store knew it at T" then masks today's rows to those
whose blob the commit of T held, and names the versions of then that no row holds any more.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

import attrs

from memhtml.domain.history import LineCommit, Span, SpanStep
from memhtml.ports.errors import StorageFailure


class HistoryMoved(StorageFailure):
    """The line's tip moved between reading it and extending it: another process extended the
    spans first. Nothing was written; the next update follows the line again."""

    def __init__(self) -> None:
        super().__init__("extend history (the tip moved)")


@attrs.frozen(kw_only=True)
class HistoryState:
    """Whether the spans were built, and the newest commit they reach.

    Attributes:
        built: The spans describe the whole line up to ``tip`` (a store indexed before the
            feature, or whose line was rewritten, has none until ``index rebuild``).
        tip: The newest commit recorded; ``None`` for an empty line.
        commits: How many commits the line holds.
        spans: How many spans are stored.
    """

    built: bool
    tip: LineCommit | None = None
    commits: int = 0
    spans: int = 0


class HistoryStore(Protocol):
    """Spans of the first-parent line, kept by the indexing passes, read by ``--known-at``."""

    def history_state(self) -> HistoryState:
        """Whether spans exist and how far they reach.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def reset_history(self) -> None:
        """Forget every commit and span; the store reads as never built until the next extend.

        Raises:
            StorageFailure: The index cannot be written.
        """
        ...

    def extend_history(self, commits: Sequence[LineCommit], steps: Sequence[SpanStep]) -> None:
        """Append ``commits`` (numbered after the tip, oldest first) with what each changed
        (``steps[i]`` is ``commits[i]``'s), in one transaction, and mark the spans built.

        Raises:
            ValueError: ``steps`` and ``commits`` differ in length, or the numbers are not
                consecutive.
            HistoryMoved: The first number does not follow the tip as the write finds it.
            StorageFailure: The index cannot be written.
        """
        ...

    def open_blobs(self, paths: Collection[str] | None = None) -> Mapping[str, str]:
        """Each path's blob at the tip (its open span); only ``paths``' when given (an update
        asks for the paths its commits changed, not for every file of the store).

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def commit_known_at(self, epoch_seconds: int) -> LineCommit | None:
        """The newest commit of the line not after ``epoch_seconds``
        (``memhtml.domain.history.seq_known_at``); ``None`` when every one is younger.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def spans_at(self, seq: int) -> tuple[Span, ...]:
        """Every span covering commit ``seq`` (its tree), ordered by path.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def unindexed_at(self, seq: int) -> tuple[Span, ...]:
        """The spans covering commit ``seq`` whose blob no indexed row holds at that path (the
        versions of then that changed, moved or went since), ordered by path.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
