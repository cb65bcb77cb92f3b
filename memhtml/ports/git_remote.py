"""The remote side of a sync: which remote, fetch its branch, push ours (docs/sync.md §2).

Credentials come from the URL, the environment and git's configuration, exactly as the
transport finds them; nothing here carries one. Every URL a value or an error holds is the
redacted one (``RemoteInfo.url``), so a password in a remote URL never reaches output, a log
or an error.
"""

from __future__ import annotations

from typing import Final, Protocol

import attrs

from memhtml.ports.errors import GitFailure
from memhtml.ports.progress import NO_PROGRESS, ProgressSink

DEFAULT_REMOTE: Final = "origin"
SYNC_BRANCH: Final = "main"
"""The branch a store lives on (``init`` creates it) and the one sync exchanges."""


@attrs.frozen(kw_only=True)
class RemoteInfo:
    """A configured remote.

    Attributes:
        name: Its name in the repository's configuration (``origin``).
        url: Its URL with any password (and a user name beside one) replaced by ``***``.
    """

    name: str
    url: str


@attrs.frozen(kw_only=True)
class SyncMark:
    """The last sync that finished, as this machine recorded it.

    Attributes:
        remote: The remote synced with.
        at: When it finished (``YYYY-MM-DDTHH:MM:SSZ``).
        head: The local commit afterwards.
        remote_head: The remote's commit afterwards.
    """

    remote: str
    at: str
    head: str | None
    remote_head: str | None


class RemoteMissing(GitFailure):
    """No remote of that name is configured.

    Attributes:
        name: The remote asked for.
        suggestions: How to add one.
    """

    def __init__(self, name: str) -> None:
        GitFailure.__init__(self, "sync")
        self.args = (f"no remote named {name!r} is configured",)
        self.name = name
        self.suggestions = (
            "memhtml init --remote URL  # to add 'origin'",
            f"git remote add {name} URL",
        )


class RemoteUnreachable(GitFailure):
    """The remote could not be read or written: unreachable, not a repository, refused the
    credentials. The message names the remote and the redacted URL, never the transport's own
    output.

    Attributes:
        remote: The remote's name.
        url: Its redacted URL.
        reason: A short reason (``connection failed``, ``not a git repository``…).
    """

    def __init__(self, operation: str, remote: str, url: str, reason: str) -> None:
        GitFailure.__init__(self, operation)
        self.args = (f"{operation} {remote} ({url}) failed: {reason}",)
        self.remote = remote
        self.url = url
        self.reason = reason


class PushRejected(GitFailure):
    """The remote refused the push; nothing of ours was lost (the local branch is unchanged).

    Attributes:
        remote: The remote's name.
        reason: Why, as the remote said it (redacted): ``stale`` when the remote's branch
            moved since it was fetched, or the remote's own status text (a hook's refusal).
        moved: True when the remote's branch moved since it was fetched (a retry can merge and
            push again); False when the remote declined a push that was up to date.
    """

    def __init__(self, remote: str, reason: str, *, moved: bool) -> None:
        GitFailure.__init__(self, "push")
        self.args = (f"the remote {remote} rejected the push: {reason}",)
        self.remote = remote
        self.reason = reason
        self.moved = moved


class GitRemote(Protocol):
    """Remotes of one repository: configure, fetch, push, and remember the last sync.

    Errors are ``GitFailure``s whose messages name the remote and its redacted URL only.
    """

    def remote(self, name: str) -> RemoteInfo:
        """The configured remote ``name``.

        Raises:
            RemoteMissing: None is configured under that name.
        """
        ...

    def set_remote(self, name: str, url: str) -> bool:
        """Configure remote ``name`` to fetch ``url``'s branches; True when that changed the
        configuration (a remote of that name with another URL is re-pointed).

        Raises:
            GitFailure: The configuration cannot be written.
        """
        ...

    def fetch(self, name: str, *, progress: ProgressSink = NO_PROGRESS) -> str | None:
        """Bring the remote's branch and its objects here; return its commit (``None`` when
        the remote has no such branch yet). The remote-tracking ref follows it.

        Raises:
            RemoteMissing, RemoteUnreachable: As their names say.
        """
        ...

    def tracking(self, name: str) -> str | None:
        """The remote's branch as last fetched (no network); ``None`` before any fetch."""
        ...

    def push(
        self,
        name: str,
        *,
        new: str,
        expected: str | None,
        progress: ProgressSink = NO_PROGRESS,
    ) -> None:
        """Move the remote's branch from ``expected`` to ``new`` (sending what it lacks), only
        if it still holds ``expected`` (``None``: the remote has no branch yet). The
        remote-tracking ref follows on success.

        Raises:
            PushRejected: The branch moved (``moved``), or the remote declined.
            RemoteMissing, RemoteUnreachable: As their names say.
        """
        ...

    def last_sync(self, name: str) -> SyncMark | None:
        """The last finished sync with ``name`` recorded here, if any."""
        ...

    def record_sync(self, mark: SyncMark) -> None:
        """Remember a finished sync (kept out of the history, per machine).

        Raises:
            GitFailure: It cannot be written.
        """
        ...
