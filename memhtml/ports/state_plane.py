"""The state-plane port: the access table's durable copy out to a sidecar and back in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs


@attrs.frozen(kw_only=True)
class StateImport:
    """What an import did: sidecar rows merged into the plane, torn lines skipped."""

    merged: int
    skipped: int


class StatePlane(Protocol):
    """Export and import of ``state.access`` as ``.memhtml/state/access.jsonl`` text."""

    def export_access(self) -> str:
        """The sidecar text: one line per row, sorted by path; equal tables give equal bytes.

        Raises:
            StorageFailure: The state plane cannot be read.
        """
        ...

    def import_access(self, sidecar: str) -> StateImport:
        """Merge the sidecar's rows into the plane (docs/decisions.md §16); torn lines are counted.

        Counts and timestamps take the larger side; the outcome comes from the side reinforced
        later, the imported row on a tie.

        Raises:
            StorageFailure: The state plane is missing or cannot be written.
        """
        ...

    def move_access(self, moves: Sequence[tuple[str, str]]) -> int:
        """Move each ``(source, target)`` row in order: the source row leaves and merges into
        the target's by the import rule (the moved row as the imported one); a move whose
        source has no row changes nothing. Returns the rows moved. The twin is
        ``domain/sync_sidecar.move_access_rows``.

        Raises:
            StorageFailure: The state plane is missing or cannot be written.
        """
        ...
