"""Access rows follow the memories a sync merge moves (docs/sync.md §4).

The merged sidecar already carries each side's rows at the paths the merge moved their memories
to (``domain/sync_sidecar``). This machine's access table still holds its rows at the old
paths, where another file may now be, so before the table imports the merged sidecar, the rows
of every memory a merge moved away from this machine's tree are moved too. The merge commit
records its moves (``domain/sync_moves``), so a machine that fast-forwards to a merge another
machine made moves its rows the same way as the machine that merged.
"""

from __future__ import annotations

from memhtml.app.use_cases.sync_trees import memory_facts
from memhtml.domain.commit_messages import OP_SYNC, commit_message
from memhtml.domain.sync_moves import parent_moves, read_moves, render_moves, rows_to_move
from memhtml.domain.sync_values import MergePlan
from memhtml.ports.git import GitPort
from memhtml.ports.git_history import GitHistory
from memhtml.ports.memory_codec import MemoryCodec
from memhtml.ports.state_plane import StatePlane


def merge_message(remote: str, plan: MergePlan) -> str:
    """A sync merge commit's message: the subject, then one trailer per moved memory."""
    cases = len(plan.cases)
    tail = "" if not cases else f" ({cases} case{'s' if cases != 1 else ''} reported)"
    message = commit_message(OP_SYNC, f"merge {remote}{tail}")
    trailers = render_moves(parent_moves(plan.moved))
    return message if not trailers else f"{message.rstrip()}\n\n{trailers}"


def follow_merge_moves(
    state: StatePlane | None,
    history: GitHistory,
    git: GitPort,
    codec: MemoryCodec,
    *,
    before: str | None,
    after: str | None,
) -> int:
    """Move the access rows of this machine's memories that the merges between ``before``
    (this machine's commit before it integrated) and ``after`` moved; the rows moved.

    A recorded move applies when this machine's file at its source, in ``before``'s tree, is
    the moved memory (same content hash), whichever line the merge joined. Applying the same
    moves twice moves nothing the second time (the old paths hold no row by then), so a sync
    killed after its branch moved repeats this safely from its last recorded head.

    Raises:
        GitFailure, StorageFailure: The history or the access table cannot be read or written.
    """
    if state is None or before is None or after is None or before == after:
        return 0
    recorded = [read_moves(m.message) for m in history.merge_commits(after, [before])]
    sources = {move.source for moves in recorded for move in moves}
    if not sources:
        return 0
    entries = {e.path: e.blob_sha for e in git.list_tree(before) if e.path in sources}
    blobs = git.read_blobs(sorted(set(entries.values()))) if entries else {}
    held: dict[str, str] = {}
    for path, sha in entries.items():
        facts = memory_facts(codec, blobs[sha])
        if facts is not None:
            held[path] = facts.content_hash
    moves = rows_to_move(held, recorded)
    return state.move_access(moves) if moves else 0
