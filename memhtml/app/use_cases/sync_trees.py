"""A sync merge's input and output as git sees them (docs/sync.md §3).

In: the three trees at the paths either side changed, each memory file parsed into the few
facts the rules read, and when each side last changed each contested path. Out: the merge
plan turned into the edits of a commit built on our tree (blobs either side already has, or
new bytes where head edits or the access sidecar's merge made a new file).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from memhtml.domain.errors import InvalidInput, InvalidMemory
from memhtml.domain.meta_names import SUPERSEDED_BY
from memhtml.domain.model import MemoryDoc
from memhtml.domain.paths import is_indexable_path
from memhtml.domain.sidecar import SIDECAR_PATH
from memhtml.domain.sync_ledger import Key
from memhtml.domain.sync_merge import plan_merge, required_stamps
from memhtml.domain.sync_sidecar import merge_sidecars
from memhtml.domain.sync_values import (
    OURS,
    THEIRS,
    AddLink,
    HeadEdit,
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
from memhtml.ports.git import GitPort, blob_sha
from memhtml.ports.git_history import GitHistory
from memhtml.ports.git_writer import FileWrite, TreeEdit
from memhtml.ports.memory_codec import MemoryCodec

TASK_TYPE = "task"


@attrs.frozen(kw_only=True)
class MergeInput:
    """The three trees at the touched paths, with the stamps and the paths a move must avoid.

    Attributes:
        docs: The memory files parsed on the way, by their bytes (the index catch-up's
            ``known``, so it does not parse them again).
    """

    sides: MergeSides
    stamps: Mapping[Key, Stamp]
    occupied: frozenset[str]
    docs: Mapping[bytes, MemoryDoc] = attrs.field(factory=dict)


@attrs.frozen(kw_only=True)
class MergeOutput:
    """The plan and the edits that turn our tree into the merged one.

    Attributes:
        plan: What the rules decided.
        edits: Paths taking a blob one side already has, or removed.
        writes: Paths taking new bytes (head edits applied, or the merged sidecar).
        skipped_edits: Head edits a file refused (it does not parse as a memory any more);
            the file is kept as it was.
    """

    plan: MergePlan
    edits: tuple[TreeEdit, ...]
    writes: tuple[FileWrite, ...]
    skipped_edits: int


def memory_facts(codec: MemoryCodec, data: bytes) -> MemoryFacts | None:
    """What the rules read from a memory file; ``None`` when it does not parse."""
    doc = _parsed(codec, data)
    return None if doc is None else _facts(doc)


def _parsed(codec: MemoryCodec, data: bytes) -> MemoryDoc | None:
    try:
        return codec.parse(data)
    except (InvalidMemory, InvalidInput):
        return None


def _facts(doc: MemoryDoc) -> MemoryFacts:
    superseded = doc.superseded_by.lstrip("/") if doc.superseded_by else None
    return MemoryFacts(
        content_hash=doc.content_hash,
        is_task=doc.memory_type == TASK_TYPE,
        links=frozenset((link.rel, link.target) for link in doc.links),
        superseded_by=superseded or None,
    )


def load_merge(
    git: GitPort,
    history: GitHistory,
    codec: MemoryCodec,
    *,
    base: str | None,
    ours: str,
    theirs: str,
) -> MergeInput:
    """Read what :func:`plan_merge` needs about merging ``theirs`` into ``ours``."""
    mine = {c.path: c for c in history.changes(base, ours)}
    yours = {c.path: c for c in history.changes(base, theirs)}
    blobs: dict[str, dict[str, str]] = {"base": {}, OURS: {}, THEIRS: {}}
    for path in mine.keys() | yours.keys():
        change = mine.get(path) or yours[path]
        old = change.old
        if old is not None:
            blobs["base"][path] = old
        for side, changes in ((OURS, mine), (THEIRS, yours)):
            found = changes[path].new if path in changes else old
            if found is not None:
                blobs[side][path] = found
    memory_blobs = {
        sha for tree in blobs.values() for path, sha in tree.items() if is_indexable_path(path)
    }
    data = git.read_blobs(sorted(memory_blobs)) if memory_blobs else {}
    parsed = {sha: _parsed(codec, body) for sha, body in data.items()}
    facts = {sha: None if doc is None else _facts(doc) for sha, doc in parsed.items()}

    def versions(tree: Mapping[str, str]) -> dict[str, Version]:
        return {path: Version(blob=sha, memory=facts.get(sha)) for path, sha in tree.items()}

    sides = MergeSides(
        base=versions(blobs["base"]), ours=versions(blobs[OURS]), theirs=versions(blobs[THEIRS])
    )
    needed = required_stamps(sides)
    stamps: dict[Key, Stamp] = {}
    for side, tip, other in ((OURS, ours, theirs), (THEIRS, theirs, ours)):
        paths = sorted(path for s, path in needed if s == side)
        touches = history.last_touches(tip, [other], paths)
        for path in paths:
            # A path with no commit of its own on this side (changed only through a merge
            # that picked it) sorts first: the other side's dated change wins.
            stamps[(side, path)] = touches.get(path, Stamp(time=0, commit=tip))
    touched = set(sides.touched())
    # A path neither side touched is the same in both tips (and the base), so one tip's tree
    # tells what is occupied; and a moved file only lands beside a touched path, so only
    # their folders are listed (every path twice was a quarter of a merge into 10,000).
    folders = {path.rpartition("/")[0] for path in touched}
    prefixes = () if "" in folders else (*sorted(folders), SIDECAR_PATH)
    listed = git.list_tree(ours, prefixes)
    occupied = frozenset(entry.path for entry in listed if entry.path not in touched)
    if SIDECAR_PATH not in touched:
        # Untouched, it is still merged when rows must follow moved memories: give the plan
        # its (equal) versions, which ``touched`` ignores.
        held = {e.blob_sha for e in listed if e.path == SIDECAR_PATH}
        if held:
            same = {SIDECAR_PATH: Version(blob=held.pop())}
            sides = MergeSides(
                base={**sides.base, **same},
                ours={**sides.ours, **same},
                theirs={**sides.theirs, **same},
            )
    docs = {data[sha]: doc for sha, doc in parsed.items() if doc is not None}
    return MergeInput(sides=sides, stamps=stamps, occupied=occupied, docs=docs)


def decide(found: MergeInput) -> MergePlan:
    """The merge plan (pure; see ``domain/sync_merge``)."""
    return plan_merge(found.sides, found.stamps, found.occupied)


def merge_output(
    git: GitPort, codec: MemoryCodec, found: MergeInput, plan: MergePlan
) -> MergeOutput:
    """The edits and writes that turn our tree into the plan's."""
    sides = found.sides
    wanted: set[str] = set()
    for held in plan.final.values():
        if isinstance(held, SidecarMerge):
            wanted.update(
                v.blob for side in (OURS, THEIRS) if (v := sides.version(side, held.path))
            )
        elif held.edits:
            wanted.add(_blob_of(sides, held.side, held.source))
    data = git.read_blobs(sorted(wanted)) if wanted else {}
    edits: list[TreeEdit] = []
    writes: list[FileWrite] = []
    skipped = 0
    for path in sorted(set(sides.touched()) | set(plan.final)):
        placed = plan.final.get(path)
        current = sides.ours.get(path)
        if placed is None:
            if current is not None:
                edits.append(TreeEdit(path=path, blob_sha=None))
        elif isinstance(placed, SidecarMerge):
            first = other_side(placed.later)
            merged = merge_sidecars(
                _side_text(sides, data, first, path),
                _side_text(sides, data, placed.later, path),
                earlier_moves=_moves_of(plan, first),
                later_moves=_moves_of(plan, placed.later),
            )
            body = merged.text.encode("utf-8")
            if current is None or blob_sha(body) != current.blob:
                writes.append(FileWrite(path=path, data=body))
        elif placed.edits:
            body, refused = _edited(
                codec, data[_blob_of(sides, placed.side, placed.source)], placed
            )
            skipped += refused
            writes.append(FileWrite(path=path, data=body))
        else:
            sha = _blob_of(sides, placed.side, placed.source)
            if current is None or current.blob != sha:
                edits.append(TreeEdit(path=path, blob_sha=sha))
    return MergeOutput(plan=plan, edits=tuple(edits), writes=tuple(writes), skipped_edits=skipped)


def _blob_of(sides: MergeSides, side: Side, path: str) -> str:
    found = sides.version(side, path)
    if found is None:
        raise AssertionError(f"the plan placed a file {side} does not have")
    return found.blob


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _side_text(sides: MergeSides, data: Mapping[str, bytes], side: Side, path: str) -> str:
    """A side's sidecar text; empty where that side has none."""
    found = sides.version(side, path)
    return "" if found is None else _text(data[found.blob])


def _moves_of(plan: MergePlan, side: Side) -> dict[str, str]:
    """Where the merge moved ``side``'s memories, by their path on that side."""
    return {moved.source: moved.target for moved in plan.moved if moved.side == side}


def _edited(codec: MemoryCodec, data: bytes, placed: Placement) -> tuple[bytes, int]:
    """The file with the placement's head edits; an edit the file refuses is left out."""
    try:
        html = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, len(placed.edits)
    refused = 0
    for edit in placed.edits:
        try:
            html = _apply(codec, html, edit)
        except (InvalidInput, InvalidMemory):
            refused += 1
    return html.encode("utf-8"), refused


def _apply(codec: MemoryCodec, html: str, edit: HeadEdit) -> str:
    if isinstance(edit, AddLink):
        return codec.add_link(html, edit.rel, edit.target)
    if isinstance(edit, RetargetLink):
        return codec.retarget_link(html, edit.rel, edit.old, edit.new)
    if isinstance(edit, SetSupersededBy):
        return codec.set_meta(html, SUPERSEDED_BY, "/" + edit.target)
    raise AssertionError(f"unknown head edit {edit!r}")
