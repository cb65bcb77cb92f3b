"""What a command already did, found by its request id, when it runs a second time.

The console script hands ``archive`` and ``correct`` to the warm helper with a request id
(``bootstrap/warm_forward.py``); the helper's commit carries it in a ``Memhtml-Request``
trailer (``use_cases/mutation.py``). When the helper dies after committing and before
answering, the script runs the same command in its own process with the same id. Its target
has moved into ``archive/`` by then, so instead of "no memory at <path>" the command answers
with the commit its first run made: the move is done once, and reported as done.

Only a commit that moved this very target counts; any other miss stays ``NotFound``.
"""

from __future__ import annotations

import re
from typing import Final

import attrs

from memhtml.domain.commit_messages import request_of
from memhtml.domain.paths import HTML_SUFFIX, is_archived_path, normalize_path, origin_path
from memhtml.ports.git import GitPort

LOOKBACK: Final = 64
"""Commits of HEAD's line searched for the request's own: other writers may have committed
between the lost run and this one, never this many in practice."""


@attrs.frozen(kw_only=True)
class LandedMove:
    """The commit a request made that moved its target into ``archive/``.

    Attributes:
        commit_sha: The commit.
        path: The target's path before the move.
        archived_path: Where the commit moved it.
        successor: The live path the commit wrote in the target's place: the one it added,
            else the target itself when the commit rewrote it (a correction keeping its
            title); ``None`` for an archive.
    """

    commit_sha: str
    path: str
    archived_path: str
    successor: str | None


def landed_move(git: GitPort, request_id: str | None, raw_target: str) -> LandedMove | None:
    """The commit of ``request_id`` that archived ``raw_target``, or ``None`` (no id, no such
    commit among the last :data:`LOOKBACK`, or that commit did not move this target)."""
    if request_id is None:
        return None
    target = normalize_path(raw_target)
    note = next(
        (n for n in git.recent_commits(LOOKBACK) if request_of(n.message) == request_id), None
    )
    if note is None:
        return None
    entries = git.diff(note.parent, note.sha)
    moved = [e.path for e in entries if e.status in {"A", "R"} and _archived_from(e.path, target)]
    if len(moved) != 1:
        return None
    added = [e.path for e in entries if e.status in {"A", "R"} and not is_archived_path(e.path)]
    rewritten = any(e.status == "M" and e.path == target for e in entries)
    successor = added[0] if len(added) == 1 else target if rewritten and not added else None
    return LandedMove(commit_sha=note.sha, path=target, archived_path=moved[0], successor=successor)


def _archived_from(path: str, target: str) -> bool:
    """Whether ``path`` is where an archive move puts ``target``: ``archive/<YYYY>/<target>``,
    or its ``-<n>`` variant when that year already held one (``archive_destination``)."""
    origin = origin_path(path)
    if origin is None:
        return False
    stem = re.escape(target.removesuffix(HTML_SUFFIX))
    return (
        origin == target or re.fullmatch(rf"{stem}-\d+{re.escape(HTML_SUFFIX)}", origin) is not None
    )
