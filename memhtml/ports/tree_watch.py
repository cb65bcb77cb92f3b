"""The tree-watch port: what changed in a working tree since the last time anyone asked.

A warm process asks for status on every read; walking 10,000 files to learn that nothing
moved costs more than the read. A watcher armed before a walk can tell afterwards which paths
can have changed since (docs/freshness-watch.md). It answers in what it knows and says when
it does not know: then the caller walks everything, as it would without a watcher.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs


@attrs.frozen(kw_only=True)
class TreeNews:
    """What a watcher saw since its previous answer (or since it was armed).

    Attributes:
        complete: The events below are everything that happened. False when the watcher
            cannot say (not armed, its queue overflowed, a watch was lost, a directory moved,
            ignore rules changed): the caller must walk the whole tree and arm it again.
        git_state: Something that decides status in the git directory changed: HEAD, a ref,
            the packed refs, or the git index file.
        paths: Working-tree paths named by events, relative to the root, as the file system
            spells them (bytes). A path may name a file or a directory; for a directory, the
            caller checks it and everything it knew below it. A directory that appeared has
            every file found in it listed too.
    """

    complete: bool
    git_state: bool = False
    paths: frozenset[bytes] = frozenset()

    @property
    def quiet(self) -> bool:
        """Nothing happened, and the watcher is sure of it."""
        return self.complete and not self.git_state and not self.paths


UNKNOWN = TreeNews(complete=False)
"""The answer of a watcher that cannot say what changed."""


class TreeWatch(Protocol):
    """Watches one working tree and its git state; one consumer drains it.

    Events are queued by the operating system as a change happens (before the writing call
    returns), so a change made before ``news`` is called is in its answer or a later one,
    never lost. Errors never cross this port: a watcher that fails answers ``UNKNOWN``.
    """

    def arm(self, prune: Callable[[bytes], bool]) -> bool:
        """Drop every watch and queued event, then watch the tree again from scratch.

        Every directory of the working tree is watched (a directory for which ``prune``, given
        its root-relative path, says True is skipped with everything below it; the git
        directory is never entered as a tree), and the files in the git directory that
        decide status. Call it before the walk whose answer later ``news`` will amend.

        Returns:
            True when every watch was placed; False when the watcher cannot watch this tree
            (no support on this system, a watch limit reached): ``news`` then answers
            ``UNKNOWN`` until an ``arm`` succeeds.
        """
        ...

    def news(self) -> TreeNews:
        """Everything queued since the last call (or since ``arm``), without waiting.

        A directory that appeared is watched and listed before this returns, so files
        written into it before its watch existed are named too.
        """
        ...

    def close(self) -> None:
        """Release the watcher; ``news`` answers ``UNKNOWN`` afterwards."""
        ...
