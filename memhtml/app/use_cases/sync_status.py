"""Where a store stands against its sync remote, for ``index status`` and ``doctor``
(docs/sync.md §6, issue 19 item 4).

Read from local refs only, never the network: the remote-tracking branch is the remote's
``main`` as the last fetch (a ``sync``, or its ``--dry-run``) saw it, so the counts are as of
that fetch, and the last sync is the record ``sync`` keeps per machine.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.ports.git_history import GitHistory
from memhtml.ports.git_remote import DEFAULT_REMOTE, GitRemote, RemoteMissing, SyncMark

NO_REMOTE_NOTE: Final = (
    "no remote named {name!r} is configured, so this store does not sync; "
    "memhtml init --remote URL (or git remote add {name} URL) sets one"
)
NEVER_FETCHED_NOTE: Final = (
    "{name} is configured but was never fetched here, so ahead and behind are unknown; "
    "memhtml sync fetches it"
)
COUNTS_NOTE: Final = (
    "{ahead} commit{ahead_s} here not on {name}, {behind} on {name} not here, "
    "as of the last fetch (no network was used)"
)


@attrs.frozen(kw_only=True)
class LastSync:
    """The last sync that finished on this machine (``.git/memhtml-sync.json``).

    Attributes:
        at: When it finished (``YYYY-MM-DDTHH:MM:SSZ``).
        head_sha: The local branch it left.
        remote_sha: The remote's branch it left.
    """

    at: str
    head_sha: str | None
    remote_sha: str | None


@attrs.frozen(kw_only=True)
class SyncStatus:
    """``sync`` in ``index status`` and ``doctor``.

    Attributes:
        remote: The remote ``sync`` uses by default (``origin``).
        configured: A remote of that name is configured.
        url: Its URL with any secret hidden; ``None`` when none is configured.
        tracking_sha: The remote's ``main`` as last fetched; ``None`` before any fetch.
        ahead, behind: Commits on HEAD's line and not the remote-tracking branch's, and the
            reverse; ``None`` when there is no remote or it was never fetched.
        last_sync: The last finished sync with it here; ``None`` before the first.
        note: The same in one sentence, for a person.
    """

    remote: str
    configured: bool
    url: str | None
    tracking_sha: str | None
    ahead: int | None
    behind: int | None
    last_sync: LastSync | None
    note: str


def sync_status_with(
    remote: GitRemote,
    history: GitHistory,
    *,
    head: str | None,
    name: str = DEFAULT_REMOTE,
) -> SyncStatus:
    """The store's standing against remote ``name``: no fetch, no push, nothing written.

    A store without that remote is an answer (``configured`` false), not an error.

    Raises:
        GitFailure: The repository cannot be read.
    """
    try:
        info = remote.remote(name)
    except RemoteMissing:
        return SyncStatus(
            remote=name,
            configured=False,
            url=None,
            tracking_sha=None,
            ahead=None,
            behind=None,
            last_sync=None,
            note=NO_REMOTE_NOTE.format(name=name),
        )
    tracking = remote.tracking(name)
    last = _last(remote.last_sync(name))
    if tracking is None:
        return SyncStatus(
            remote=name,
            configured=True,
            url=info.url,
            tracking_sha=None,
            ahead=None,
            behind=None,
            last_sync=last,
            note=NEVER_FETCHED_NOTE.format(name=name),
        )
    counts = history.ahead_behind(head, tracking)
    return SyncStatus(
        remote=name,
        configured=True,
        url=info.url,
        tracking_sha=tracking,
        ahead=counts.ahead,
        behind=counts.behind,
        last_sync=last,
        note=counts_note(name, counts.ahead, counts.behind),
    )


def counts_note(name: str, ahead: int, behind: int) -> str:
    """The counts in words (pure)."""
    return COUNTS_NOTE.format(
        name=name, ahead=ahead, ahead_s="" if ahead == 1 else "s", behind=behind
    )


def _last(mark: SyncMark | None) -> LastSync | None:
    if mark is None:
        return None
    return LastSync(at=mark.at, head_sha=mark.head, remote_sha=mark.remote_head)
