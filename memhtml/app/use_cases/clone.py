"""``memhtml clone URL DIR``: the next machine's first step (docs/sync.md §1).

The repository part only: an empty repository on ``main``, ``origin`` at the URL, the remote's
branch fetched and checked out. The facade then completes the scaffold (``init``) and runs a
first ``sync``, which builds the index and imports the access rows.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from memhtml.ports.git_landing import GitLanding
from memhtml.ports.git_remote import DEFAULT_REMOTE, GitRemote
from memhtml.ports.progress import NO_PROGRESS, ProgressSink


@attrs.frozen(kw_only=True)
class CloneResult:
    """``repo.cloned``.

    Attributes:
        root: The new store's root.
        remote, url: The remote's name and its redacted URL.
        head_sha: HEAD afterwards (``None`` only for an empty remote and a failed scaffold).
        fetched: The remote's branch had a commit (an empty remote starts a fresh store).
        indexed: Memory files the first index pass projected.
        state_rows: Access rows imported from the remote's sidecar.
    """

    root: str
    remote: str
    url: str
    head_sha: str | None
    fetched: bool
    indexed: int
    state_rows: int


def clone_into(
    url: str,
    *,
    init_repository: Callable[[], bool],
    remote: GitRemote,
    landing: GitLanding,
    name: str = DEFAULT_REMOTE,
    progress: ProgressSink = NO_PROGRESS,
) -> str | None:
    """Create the repository, point ``name`` at ``url``, fetch and check out its branch.

    Returns:
        The remote's commit now checked out, or ``None`` when the remote has no branch yet.

    Raises:
        RemoteUnreachable: The remote cannot be read.
        GitFailure: The repository cannot be created or written.
    """
    init_repository()
    remote.set_remote(name, url)
    fetched = remote.fetch(name, progress=progress)
    if fetched is not None:
        landing.advance(expected_head=None, target=fetched)
    return fetched
