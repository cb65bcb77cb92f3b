"""The health probe port: the index-side checks ``doctor`` reports (docs/cli-contract.md §3.5), and
the one state-plane repair ``doctor --fix`` makes."""

from __future__ import annotations

from typing import Protocol

import attrs


@attrs.frozen(kw_only=True)
class DanglingLink:
    """An authored edge whose target is not an indexed memory.

    Attributes:
        src_path: The file whose head states the edge.
        rel: The relation.
        dst_path: The missing target.
        rewrite_to: An archived memory that was at ``dst_path`` before its archive move
            (``archive/<YYYY>/<dst_path>``), the smallest path when several were; else None.
    """

    src_path: str
    rel: str
    dst_path: str
    rewrite_to: str | None


@attrs.frozen(kw_only=True)
class InboxDepths:
    """Active memories waiting in ``areas/inbox/``: ordinary ones and tasks, counted apart."""

    memories: int
    tasks: int


@attrs.frozen(kw_only=True)
class FrameClaim:
    """A live non-task memory on a frame key another such memory holds too."""

    frame_key: str
    path: str
    gist: str


@attrs.frozen(kw_only=True)
class ContradictionLink:
    """A ``contradicts`` edge whose two ends are both active memories, with their gists."""

    src_path: str
    src_gist: str
    dst_path: str
    dst_gist: str


class HealthProbe(Protocol):
    """Read-only checks over the index and the state plane."""

    def dangling_links(self) -> tuple[DanglingLink, ...]:
        """Authored edges (provenance edges excepted) whose target no indexed memory holds.

        Ordered by source, relation, target.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def orphan_access_rows(self) -> tuple[str, ...]:
        """Paths the state plane counts that no indexed memory holds, sorted; empty without a
        state plane.

        Raises:
            StorageFailure: The index or the plane cannot be read.
        """
        ...

    def inbox_depths(self) -> InboxDepths:
        """How many active memories and tasks lie under ``areas/inbox/``.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def shared_frames(self) -> tuple[FrameClaim, ...]:
        """Live non-task memories (not archived, not tasks) whose frame key at least one other
        such memory holds; ordered by key, then path. Whether their values differ is the
        caller's to judge (``domain/frame_key``).

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...

    def active_contradictions(self) -> tuple[ContradictionLink, ...]:
        """``contradicts`` edges (authored or derived) between two active memories, ordered by
        source, then target.

        Raises:
            StorageFailure: The index cannot be read.
        """
        ...


class OrphanPruner(Protocol):
    """Removes state rows that no longer describe a memory (``doctor --fix``).

    Kept apart from ``HealthProbe`` so the plain ``doctor`` is handed nothing that writes.
    """

    def prune_orphan_access_rows(self) -> tuple[str, ...]:
        """Delete the state rows for paths the index does not hold; return their paths, sorted.

        Only correct over a fresh index: a row for a file not yet indexed looks orphaned. A
        store without a state plane has nothing to prune.

        Raises:
            StorageFailure: The plane cannot be written.
        """
        ...
