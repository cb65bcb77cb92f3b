"""Status amended from a watcher's news instead of walked, as git's fsmonitor does.

The first status of a ``DulwichGit`` walks as always (a one-shot command never pays for a
watcher). The second arms the watcher and then walks: that walk is the baseline, and every
change made after the watch existed is queued as an event. From then on a status drains the
queue first and re-checks only what the events name: a working-tree path (a file, or a
directory and what status knew below it), and after a git event the index entries that
differ from the baseline's index and the staged changes that moved. No event: the baseline's
answer stands. A watcher that cannot say (``TreeNews.complete`` false: overflow, a lost
watch, a moved directory, an ignore rule edited) gets a new baseline: arm, then walk.
See docs/freshness-watch.md.
"""

from __future__ import annotations

import bisect
import os
import stat
import threading
from collections.abc import Iterable
from typing import Final

import attrs
from dulwich.ignore import IgnoreFilterManager
from dulwich.repo import Repo

from memhtml.adapters.git.index_diff import entry_changes
from memhtml.adapters.git.index_snapshot import IndexSnapshot
from memhtml.adapters.git.inotify_events import GIT_DIR
from memhtml.adapters.git.status import full_status, git_side, staged_of, tracked_state
from memhtml.adapters.git.status_cache import StatusCache
from memhtml.adapters.git.status_parts import StatusParts, status_entry
from memhtml.ports.git import StatusEntry
from memhtml.ports.tree_watch import UNKNOWN, TreeWatch

# Beyond this many named paths a walk is no slower than checking each (a checkout, say).
_PATH_LIMIT: Final = 2000
# Up to this many paths to place, scanning the path column beats building a lookup.
_SCAN_LIMIT: Final = 16
_MISSING: Final = b"\x00missing"


@attrs.frozen(kw_only=True, eq=False)
class _Baseline:
    parts: StatusParts
    entries: dict[bytes, StatusEntry]
    answer: tuple[StatusEntry, ...]


class WatchedStatus:
    """Status for one working tree, amended from ``watch``'s news once a baseline exists.

    Thread-safe: one status runs at a time (the watcher has one consumer).
    """

    def __init__(self, watch: TreeWatch, *, arm_at_call: int = 2) -> None:
        """Use ``watch``; arm it at the ``arm_at_call``-th status (1 arms at the first)."""
        self._watch = watch
        self._arm_at = arm_at_call
        self._calls = 0
        self._enabled = True
        self._base: _Baseline | None = None
        self._pruned: set[bytes] = set()
        self._sorted: tuple[bytes, tuple[bytes, ...]] | None = None
        self._positions: tuple[bytes, dict[bytes, int]] | None = None
        self._lock = threading.Lock()
        self.walks = 0
        """Whole walks so far (before arming, baselines and fallbacks alike)."""

    @property
    def watching(self) -> bool:
        """Whether the next status can be amended from events (a baseline is held)."""
        return self._base is not None

    def status(self, repo: Repo, cache: StatusCache) -> tuple[StatusEntry, ...]:
        """See ``GitPort.status``."""
        with self._lock:
            self._calls += 1
            root = os.fsencode(repo.path)
            if not self._enabled or self._calls < self._arm_at:
                self.walks += 1
                parts = full_status(repo, cache)
                return _ordered(_entries_of(root, parts))
            news = UNKNOWN if self._base is None else self._watch.news()
            if self._base is None or not news.complete or len(news.paths) > _PATH_LIMIT:
                return self._baseline(repo, cache)
            if news.quiet:
                return self._base.answer
            try:
                return self._amend(repo, cache, self._base, news.paths, git_state=news.git_state)
            except BaseException:
                # The events are drained: a baseline they no longer amend must not answer.
                self._base = None
                raise

    def close(self) -> None:
        """Release the watcher; later calls walk."""
        with self._lock:
            self._enabled = False
            self._base = None
            self._watch.close()

    def _baseline(self, repo: Repo, cache: StatusCache) -> tuple[StatusEntry, ...]:
        """Arm the watcher, then walk: the walk is what later events amend."""
        self._base = None
        root = os.fsencode(repo.path)
        holding = git_side(repo, cache)[0].directories()
        self._pruned = set()
        # Built now: the watcher asks about new folders later, after ``repo`` is closed.
        ignore = IgnoreFilterManager.from_repo(repo)
        pruned = self._pruned

        def prune(path: bytes) -> bool:
            if path in holding:
                return False
            if ignore.may_prune_directory(os.fsdecode(path) + "/"):
                pruned.add(path)
                return True
            return False

        armed = self._watch.arm(prune)
        self.walks += 1
        parts = full_status(repo, cache)
        entries = _entries_of(root, parts)
        if not armed or self._pruned_but_tracked(parts.snapshot.known_paths()):
            # No watcher here (no inotify, a limit), or tracked files sit in a folder the
            # ignore rules keep unwatched: walk every time, as without a watcher.
            self._enabled = False
            self._watch.close()
        else:
            self._base = _Baseline(parts=parts, entries=entries, answer=_ordered(entries))
        return _ordered(entries)

    def _pruned_but_tracked(self, paths: Iterable[bytes]) -> bool:
        """Some of ``paths`` lies in a directory left unwatched as ignored (``git add -f``)."""
        if not self._pruned:
            return False
        for path in paths:
            parent = path.rpartition(b"/")[0]
            while parent:
                if parent in self._pruned:
                    return True
                parent = parent.rpartition(b"/")[0]
        return False

    def _amend(
        self,
        repo: Repo,
        cache: StatusCache,
        base: _Baseline,
        named: frozenset[bytes],
        *,
        git_state: bool,
    ) -> tuple[StatusEntry, ...]:
        root = os.fsencode(repo.path)
        old = base.parts
        snapshot, head, tree, racy_after = old.snapshot, old.head, old.tree, old.racy_after
        staged = old.staged
        affected: set[bytes] = set()
        if git_state:
            snapshot, head, tree, racy_after = git_side(repo, cache)
            if snapshot.key != old.snapshot.key:
                affected |= entry_changes(old.snapshot, snapshot)
                if self._pruned_but_tracked(affected):
                    return self._baseline(repo, cache)
            staged = staged_of(repo, snapshot, tree, cache)
            affected.update(
                path
                for path in old.staged.keys() | staged.keys()
                if old.staged.get(path, _MISSING) != staged.get(path, _MISSING)
            )
        known_before = old.dirty | old.untracked | old.staged.keys()
        for path in named:
            affected.add(path)
            if not _is_plain_file(os.path.join(root, path)):
                # Maybe a directory (one that went, or came): everything known below it.
                affected.update(_below(path, self._sorted_paths(snapshot)))
                prefix = path + b"/"
                affected.update(p for p in known_before if p.startswith(prefix))
        dirty, untracked = set(old.dirty), set(old.untracked)
        ignore: list[IgnoreFilterManager] = []
        for path in affected:
            dirty.discard(path)
            untracked.discard(path)
            if path in staged:
                continue
            position = self._position(snapshot, path, len(affected))
            if position is not None:
                if tracked_state(root, snapshot, position, racy_after) != "clean":
                    dirty.add(path)
            elif path not in snapshot.unmerged and _untracked(repo, root, path, ignore):
                untracked.add(path)
        parts = StatusParts(
            snapshot=snapshot,
            head=head,
            tree=tree,
            racy_after=racy_after,
            staged=staged,
            dirty=frozenset(dirty),
            untracked=frozenset(untracked),
        )
        changed = parts.changed()
        entries = dict(base.entries)
        for path in affected | (old.staged.keys() ^ staged.keys()):
            entries.pop(path, None)
            if path in changed:
                entry = status_entry(root, path, changed[path])
                if entry is not None:
                    entries[path] = entry
        answer = _ordered(entries)
        self._base = _Baseline(parts=parts, entries=entries, answer=answer)
        return answer

    def _sorted_paths(self, snapshot: IndexSnapshot) -> tuple[bytes, ...]:
        """The snapshot's paths sorted (a folder's entries are one run); built once per
        snapshot, and only when a folder is named."""
        if self._sorted is None or self._sorted[0] != snapshot.key:
            self._sorted = (snapshot.key, tuple(sorted(snapshot.paths)))
        return self._sorted[1]

    def _position(self, snapshot: IndexSnapshot, path: bytes, asked: int) -> int | None:
        """Where ``path`` sits in the snapshot, ``None`` when untracked. A few questions scan
        the path column (in C); many build a lookup once per snapshot."""
        if asked <= _SCAN_LIMIT and (self._positions is None or self._positions[0] != snapshot.key):
            try:
                return snapshot.paths.index(path)
            except ValueError:
                return None
        if self._positions is None or self._positions[0] != snapshot.key:
            lookup = {known: position for position, known in enumerate(snapshot.paths)}
            self._positions = (snapshot.key, lookup)
        return self._positions[1].get(path)


def _below(directory: bytes, paths: tuple[bytes, ...]) -> list[bytes]:
    """The sorted ``paths`` under ``directory/``."""
    prefix = directory + b"/"
    start = bisect.bisect_left(paths, prefix)
    stop = bisect.bisect_left(paths, directory + b"0")  # "0" sorts right after "/"
    return list(paths[start:stop])


def _is_plain_file(full: bytes) -> bool:
    try:
        mode = os.lstat(full).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)


def _untracked(repo: Repo, root: bytes, path: bytes, ignore: list[IgnoreFilterManager]) -> bool:
    """Whether the untracked walk would list ``path``: a file (or symlink) outside the git
    directory and any nested repository, in real directories, not ignored."""
    if path.split(b"/", 1)[0] == GIT_DIR or not _is_plain_file(os.path.join(root, path)):
        return False
    parent = path.rpartition(b"/")[0]
    while parent:
        full = os.path.join(root, parent)
        try:
            if not stat.S_ISDIR(os.lstat(full).st_mode):
                return False
        except OSError:
            return False
        if os.path.lexists(os.path.join(full, GIT_DIR)):
            return False
        parent = parent.rpartition(b"/")[0]
    if not ignore:
        ignore.append(IgnoreFilterManager.from_repo(repo))
    return not ignore[0].is_ignored(os.fsdecode(path))


def _entries_of(root: bytes, parts: StatusParts) -> dict[bytes, StatusEntry]:
    entries: dict[bytes, StatusEntry] = {}
    for path, source in parts.changed().items():
        entry = status_entry(root, path, source)
        if entry is not None:
            entries[path] = entry
    return entries


def _ordered(entries: dict[bytes, StatusEntry]) -> tuple[StatusEntry, ...]:
    return tuple(sorted(entries.values(), key=lambda entry: entry.path))
