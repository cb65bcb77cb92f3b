"""The values a sync merge decides over and decides into (docs/sync.md §3).

A merge sees each path three times: as the common ancestor (``base``) had it, as this machine
has it (``ours``) and as the remote has it (``theirs``). A file is a blob, and when it is a
memory, the few facts the rules need (its content hash, its links, where it says it was
superseded to). The decision is a :class:`MergePlan`: which side's file ends up at which path,
with which head edits, and every case worth reporting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Literal

import attrs

Side = Literal["ours", "theirs"]
OURS: Final[Side] = "ours"
THEIRS: Final[Side] = "theirs"
SIDES: Final[tuple[Side, Side]] = (OURS, THEIRS)

# What a reported case is (``Case.kind``); stable strings, printed by ``memhtml sync``.
CASE_CONFLICT: Final = "conflict"
"""Both sides changed one memory's content: both kept, the earlier one moved and linked."""
CASE_RELOCATED: Final = "relocated"
"""Two different files were added at one path: the earlier one moved to a free path."""
CASE_CONVERGED: Final = "converged"
"""Both sides did the same thing to one memory (archived, corrected, linked): one file."""
CASE_DEDUPLICATED: Final = "deduplicated"
"""Both sides wrote the same content at different paths: the earlier path kept."""
CASE_KEPT: Final = "kept"
"""Changed on one side, removed on the other: the changed file kept."""
CASE_GENERATED: Final = "generated"
"""A generated file (``index.html``, ``sitemap.xml``) changed on both sides: ours kept."""
CASE_SIDECAR: Final = "sidecar"
"""The access sidecar changed on both sides: its rows merged."""

CONTRADICTS: Final = "contradicts"
SUPERSEDES: Final = "supersedes"


def other_side(side: Side) -> Side:
    """The side that is not ``side``."""
    return THEIRS if side == OURS else OURS


@attrs.frozen(kw_only=True)
class MemoryFacts:
    """What the merge rules read from one memory file.

    Attributes:
        content_hash: The article's hash (docs/format.md §7); head edits keep it.
        is_task: A task: exempt from content dedup, as in the write path.
        links: ``(rel, target)`` pairs of its head, targets as repo paths.
        superseded_by: The repo path its ``memhtml-superseded-by`` names, if any.
    """

    content_hash: str
    is_task: bool = False
    links: frozenset[tuple[str, str]] = frozenset()
    superseded_by: str | None = None


@attrs.frozen(kw_only=True)
class Version:
    """One side's file at one path.

    Attributes:
        blob: Its blob id; equal blobs are equal files.
        memory: Its facts when it is a memory file that parses; ``None`` for anything else.
    """

    blob: str
    memory: MemoryFacts | None = None


@attrs.frozen(kw_only=True, order=True)
class Stamp:
    """When a side last changed a path: the newest commit on that side that did.

    Ordered by time, then commit id, so two sides never tie unless it is one commit.
    """

    time: int
    commit: str


@attrs.frozen(kw_only=True)
class MergeSides:
    """The three trees, restricted to what matters.

    Each mapping holds the files its tree has at the paths either side changed (a path missing
    from a mapping is absent from that tree). Paths whose blob is the same in all three may be
    given; they are ignored.
    """

    base: Mapping[str, Version]
    ours: Mapping[str, Version]
    theirs: Mapping[str, Version]

    def version(self, side: Side, path: str) -> Version | None:
        """``side``'s file at ``path``."""
        return (self.ours if side == OURS else self.theirs).get(path)

    def touched(self) -> tuple[str, ...]:
        """Every path either side changed, sorted."""
        paths = set(self.base) | set(self.ours) | set(self.theirs)
        return tuple(
            sorted(
                p
                for p in paths
                if _blob(self.ours.get(p)) != _blob(self.base.get(p))
                or _blob(self.theirs.get(p)) != _blob(self.base.get(p))
            )
        )

    def changed(self, side: Side, path: str) -> bool:
        """Whether ``side`` changed ``path`` (added, edited or removed it)."""
        return _blob(self.version(side, path)) != _blob(self.base.get(path))


def _blob(version: Version | None) -> str | None:
    return None if version is None else version.blob


@attrs.frozen(kw_only=True)
class AddLink:
    """Add ``<link rel=REL href=/TARGET>`` to the file's head (kept once if present)."""

    rel: str
    target: str


@attrs.frozen(kw_only=True)
class RetargetLink:
    """Point the head's ``(rel, old)`` link at ``new``."""

    rel: str
    old: str
    new: str


@attrs.frozen(kw_only=True)
class SetSupersededBy:
    """Set ``memhtml-superseded-by`` to ``/TARGET``."""

    target: str


HeadEdit = AddLink | RetargetLink | SetSupersededBy


@attrs.frozen(kw_only=True)
class Placement:
    """One file of the merged tree: ``side``'s file from ``source``, with head edits.

    Head edits never change a content hash, so the placed file is the same memory.
    """

    path: str
    side: Side
    source: str
    edits: tuple[HeadEdit, ...] = ()


@attrs.frozen(kw_only=True)
class SidecarMerge:
    """The access sidecar at ``path``: both sides' rows merged (docs/sync.md §4).

    Attributes:
        later: The side whose change is later; its row wins an outcome tie.
    """

    path: str
    later: Side


@attrs.frozen(kw_only=True)
class Case:
    """One decision worth telling the user about.

    Attributes:
        kind: One of the ``CASE_*`` strings.
        path: The path the case is about (where the kept file is).
        other_path: The second file's path, when two are kept or one was folded into another.
        kept: The side whose file stays at ``path``.
    """

    kind: str
    path: str
    other_path: str | None
    kept: Side


@attrs.frozen(kw_only=True)
class Moved:
    """A memory the merge moved: ``side``'s file at ``source``, whose content hash is
    ``content_hash``, is now at ``target`` (set aside to a free path, or folded into another
    copy); its access rows follow it (docs/sync.md §4).
    """

    side: Side
    source: str
    target: str
    content_hash: str


@attrs.frozen(kw_only=True)
class MergePlan:
    """What a merge decided.

    Attributes:
        final: Every file of the merged tree at a path either side touched, or that a moved
            file now occupies. A touched path not in it is absent from the merge; any path
            neither side touched keeps its common file.
        cases: The reported cases, by path.
        moved: The memories the merge moved away from their side's path, by side and path.
    """

    final: Mapping[str, Placement | SidecarMerge]
    cases: tuple[Case, ...]
    moved: tuple[Moved, ...] = ()
