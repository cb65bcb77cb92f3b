"""The index census port: how many rows of each kind the index holds (``index status``)."""

from __future__ import annotations

from typing import Protocol

import attrs


@attrs.frozen(kw_only=True)
class IndexCounts:
    """Row counts of the index's memory tables.

    Attributes:
        files: Every indexed memory, archived included.
        active_files: Memories not under ``archive/``.
        edges: Every edge, authored and derived.
        derived_edges: Edges a sleep pass proposed rather than a file's head states.
        tags: Distinct tag values.
        entities: Distinct ``type:name`` references.
    """

    files: int
    active_files: int
    edges: int
    derived_edges: int
    tags: int
    entities: int


class IndexCensus(Protocol):
    """Counts the index's rows; read-only."""

    def counts(self) -> IndexCounts:
        """The counts, read in one statement so they describe one moment.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...
