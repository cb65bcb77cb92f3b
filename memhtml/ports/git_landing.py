"""Landing what a sync decided (docs/sync.md §2): a merge commit, and moving the branch to it.

The two steps are apart on purpose. Writing a commit object changes nothing anyone sees (a
killed sync leaves unreachable garbage); moving the branch is the commit point, journaled like
every memhtml commit, so a sync killed after it is finished by the next command.
"""

from __future__ import annotations

from typing import Protocol

from memhtml.ports.git_writer import FileWrite, TreeEdit


class GitLanding(Protocol):
    """Writes merge commits and moves the checked-out branch along the history."""

    def merge_commit(
        self,
        *,
        parents: tuple[str, ...],
        edits: tuple[TreeEdit, ...],
        writes: tuple[FileWrite, ...],
        message: str,
    ) -> str:
        """Write (without moving any ref) a commit whose tree is the first parent's with
        ``edits`` (blobs already in the repository) and ``writes`` (new bytes) applied, and
        whose parents are ``parents``, in order; return its id.

        Raises:
            PathRefused: A path is unsafe or plays two roles.
            GitFailure: A parent or blob is missing, or the objects cannot be written.
        """
        ...

    def advance(self, *, expected_head: str | None, target: str) -> None:
        """Move HEAD's branch from ``expected_head`` to ``target`` and bring the working tree
        and the index along, compare-and-swap, journaled.

        Working files that still hold the old commit's content (or are missing) get the new;
        a file someone edited is kept as it is (docs/faults.md). A crash after the branch
        moved is finished by the next command's recovery.

        Raises:
            HeadMoved: HEAD is not at ``expected_head``, or another writer holds the lock.
            GitFailure: Anything else.
        """
        ...
