"""The moves a sync merge made, written into its commit so every machine can make its access
rows follow them (docs/sync.md §4).

The machine that merges knows which memories it moved; a machine that later fast-forwards to
that merge commit (or merges past it) does not, and its access table still holds the rows at
the old paths. So the merge commit's message carries one trailer per moved memory, naming the
parent (1 or 2) whose file moved, the two paths and the memory's content hash: a machine whose
own file at the old path is that memory moves its row (:func:`rows_to_move`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from memhtml.domain.sync_values import OURS, Moved

MOVED_TRAILER: Final = "Memhtml-Moved"


@attrs.frozen(kw_only=True)
class ParentMove:
    """A memory (``content_hash``) of the merge commit's ``parent`` (1: ours, 2: theirs)
    moved from ``source`` to ``target``."""

    parent: int
    source: str
    target: str
    content_hash: str


def parent_moves(moved: Iterable[Moved]) -> tuple[ParentMove, ...]:
    """The plan's moves, by the parent whose file moved (ours is the first parent)."""
    return tuple(
        ParentMove(
            parent=1 if m.side == OURS else 2,
            source=m.source,
            target=m.target,
            content_hash=m.content_hash,
        )
        for m in moved
    )


def render_moves(moves: Iterable[ParentMove]) -> str:
    """One trailer line per move (JSON, so any path round-trips); empty for none."""
    return "".join(f"{MOVED_TRAILER}: {json.dumps(_fields(m), ensure_ascii=True)}\n" for m in moves)


def read_moves(message: str) -> tuple[ParentMove, ...]:
    """The moves a merge commit's message records; a malformed trailer is ignored."""
    found: list[ParentMove] = []
    prefix = f"{MOVED_TRAILER}: "
    for line in message.splitlines():
        if not line.startswith(prefix):
            continue
        try:
            parent, source, target, content_hash = json.loads(line[len(prefix) :])
        except (ValueError, TypeError):
            continue
        texts = (source, target, content_hash)
        if parent in (1, 2) and all(isinstance(t, str) for t in texts):
            found.append(
                ParentMove(parent=parent, source=source, target=target, content_hash=content_hash)
            )
    return tuple(found)


def _fields(move: ParentMove) -> list[object]:
    return [move.parent, move.source, move.target, move.content_hash]


def rows_to_move(
    held: Mapping[str, str], merges: Iterable[Iterable[ParentMove]]
) -> tuple[tuple[str, str], ...]:
    """The row moves this machine makes for the merges it integrated, oldest first.

    Args:
        held: The content hash of this machine's memory at each path a move starts from, as its
            tree had it before integrating (paths it held no memory at are absent).
        merges: Each merge's recorded moves, oldest merge first.

    A move applies when the memory this machine holds at its source is the moved memory; this
    machine's memory then counts as being at the target for the later merges.
    """
    where = dict(held)
    found: list[tuple[str, str]] = []
    for moves in merges:
        applied: list[ParentMove] = []
        for move in moves:
            # One move per source: a memory goes to one place (a recorded plan never repeats).
            taken = {m.source for m in applied}
            fresh = move.source != move.target and move.source not in taken
            if fresh and where.get(move.source) == move.content_hash:
                applied.append(move)
        for move in applied:
            del where[move.source]
        for move in applied:
            where[move.target] = move.content_hash
        found.extend(_in_table_order([(m.source, m.target) for m in applied]))
    return tuple(found)


def _in_table_order(moves: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One merge's moves in an order the table can run one by one: a move into a path another
    move leaves runs after that one (a cycle, which no merge makes, keeps its order)."""
    ordered: list[tuple[str, str]] = []
    pending = list(moves)
    while pending:
        sources = {source for source, _ in pending}
        ready = [m for m in pending if m[1] not in sources - {m[0]}] or pending
        ordered.extend(ready)
        pending = [m for m in pending if m not in ready]
    return ordered
