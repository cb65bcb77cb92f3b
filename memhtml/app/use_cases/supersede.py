"""``--on-conflict supersede``: the new memory replaces the live memories it conflicts with.

Each older memory is archived as ``correct`` archives its target: moved to
``archive/<YYYY>/<path>``, stamped archived, ``memhtml-valid-until`` now (an earlier value it
already states stays) and ``memhtml-superseded-by`` the new path; the new memory gets one
``supersedes`` link per archived copy. Only heads change, so no content hash moves. Staged on
the command's tree, so it lands in the command's one commit or not at all.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import MutableMapping, Sequence

from memhtml.app.staged_tree import StagedTree
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.conflicts import ConflictingMemory
from memhtml.app.use_cases.memory_files import archive_destination, require_clean, text_of
from memhtml.domain import meta_names
from memhtml.domain.datetimes import utc_stamp

SUPERSEDES: str = "supersedes"


def stage_supersede(
    deps: WriteDeps,
    tree: StagedTree,
    new_path: str,
    older: Sequence[ConflictingMemory],
    *,
    now: dt.datetime,
    archived: MutableMapping[str, str],
) -> tuple[str, ...]:
    """Archive each of ``older`` in favour of ``new_path`` and link the new memory to the
    archived copies; returns those copies' paths, in ``older``'s order.

    ``archived`` maps an older path already archived by this command to its copy, so two
    writes of one batch superseding the same memory archive it once and both link to it.

    Raises:
        DirtyTree: An older memory (or the new one) has uncommitted edits.
        InvalidMemory: A file is not UTF-8.
        Conflict: No free archive path.
    """
    stamp = utc_stamp(now)
    copies: list[str] = []
    for memory in older:
        copy = archived.get(memory.path)
        if copy is None:
            copy = _archive_one(deps, tree, memory.path, new_path, stamp, now.year)
            archived[memory.path] = copy
        copies.append(copy)
    text = text_of(tree.read(new_path))
    linked = text
    for copy in copies:
        linked = deps.codec.add_link(linked, SUPERSEDES, copy)
    if linked != text:
        tree.write(new_path, linked.encode("utf-8"))
    return tuple(copies)


def _archive_one(
    deps: WriteDeps, tree: StagedTree, path: str, new_path: str, stamp: str, year: int
) -> str:
    require_clean(tree, path)
    old_data = tree.read(path)
    old = deps.codec.parse(old_data)
    until = old.valid_until if old.valid_until and old.valid_until < stamp else stamp
    copy = archive_destination(tree, path, year)
    tree.move(path, copy, old_data)
    stamped = deps.codec.mark_archived(text_of(old_data), stamp)
    stamped = deps.codec.set_meta(stamped, meta_names.VALID_UNTIL, until)
    stamped = deps.codec.set_meta(stamped, meta_names.SUPERSEDED_BY, "/" + new_path)
    tree.write(copy, stamped.encode("utf-8"))
    return copy
