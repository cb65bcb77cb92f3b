"""``GitHistory`` over dulwich: merge bases, ahead/behind counts, changed paths, last touches."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from dulwich.graph import find_merge_base
from dulwich.objects import Commit, ObjectID
from dulwich.repo import Repo
from dulwich.walk import ORDER_TOPO

from memhtml.adapters.git.failures import git_operation
from memhtml.adapters.git.repository import (
    commit_tree_or_empty,
    decode_path,
    is_file_mode,
    open_repository,
    tree_path_lookup,
)
from memhtml.adapters.git.tree_diff import leaf_changes
from memhtml.domain.sync_values import Stamp
from memhtml.ports.git_history import AheadBehind, MergeCommit, PathChange

HISTORY_OPERATION: Final = "history"


class DulwichHistory:
    """Questions about the commits of the repository at ``root``."""

    def __init__(self, root: str | Path) -> None:
        """Bind to a repository (a working tree or a bare one)."""
        self._root = str(root)

    def merge_bases(self, a: str, b: str) -> tuple[str, ...]:
        """See ``GitHistory.merge_bases``."""
        with self._repo() as repo:
            found = find_merge_base(repo, [_oid(a), _oid(b)])
            commits = [_commit(repo, sha) for sha in found]
        commits.sort(key=lambda c: (-c.commit_time, c.id))
        return tuple(c.id.decode("ascii") for c in commits)

    def ahead_behind(self, local: str | None, remote: str | None) -> AheadBehind:
        """See ``GitHistory.ahead_behind``."""
        with self._repo() as repo:
            return AheadBehind(
                ahead=_count(repo, local, remote), behind=_count(repo, remote, local)
            )

    def changes(self, old: str | None, new: str) -> tuple[PathChange, ...]:
        """See ``GitHistory.changes``."""
        with self._repo() as repo:
            before, after = commit_tree_or_empty(repo, old), commit_tree_or_empty(repo, new)
            found: dict[str, PathChange] = {}
            # ``tree_diff.leaf_changes``, not dulwich's ``tree_changes``, which compares every
            # entry of each folder it enters in Python (0.13 s per side of a merge into 10k).
            for raw, was, now in leaf_changes(repo.object_store, before, after):
                path = decode_path(raw)
                if path is None:
                    continue
                found[path] = PathChange(
                    path=path,
                    old=_file_sha(was),
                    new=_file_sha(now),
                )
        return tuple(found[path] for path in sorted(found) if found[path].old != found[path].new)

    def last_touches(
        self, tip: str, since: Sequence[str], paths: Sequence[str]
    ) -> Mapping[str, Stamp]:
        """See ``GitHistory.last_touches``."""
        wanted = set(paths)
        found: dict[str, Stamp] = {}
        if not wanted:
            return found
        with self._repo() as repo:
            lookups: dict[ObjectID, Callable[[str], tuple[int, ObjectID] | None]] = {}

            def at(commit: Commit, path: str) -> tuple[int, ObjectID] | None:
                if commit.id not in lookups:
                    lookups[commit.id] = tree_path_lookup(repo, ObjectID(commit.tree))
                return lookups[commit.id](path)

            walker = repo.get_walker(include=[_oid(tip)], exclude=[_oid(s) for s in since])
            for entry in walker:
                commit = entry.commit
                parents = [_commit(repo, p) for p in commit.parents]
                for path in sorted(wanted):
                    mine = at(commit, path)
                    changed = all(at(parent, path) != mine for parent in parents)
                    if (changed and parents) or (not parents and mine is not None):
                        found[path] = Stamp(
                            time=int(commit.commit_time), commit=commit.id.decode("ascii")
                        )
                wanted -= set(found)
                if not wanted:
                    break
        return found

    def merge_commits(self, tip: str, since: Sequence[str]) -> tuple[MergeCommit, ...]:
        """See ``GitHistory.merge_commits``."""
        with self._repo() as repo:
            walker = repo.get_walker(
                include=[_oid(tip)],
                exclude=[_oid(s) for s in since],
                order=ORDER_TOPO,
                reverse=True,
            )
            return tuple(
                MergeCommit(
                    sha=entry.commit.id.decode("ascii"),
                    parents=tuple(p.decode("ascii") for p in entry.commit.parents),
                    message=entry.commit.message.decode("utf-8", errors="replace"),
                )
                for entry in walker
                if len(entry.commit.parents) > 1
            )

    @contextmanager
    def _repo(self) -> Iterator[Repo]:
        with git_operation(HISTORY_OPERATION), open_repository(self._root, HISTORY_OPERATION) as r:
            yield r


def _oid(sha: str) -> ObjectID:
    return ObjectID(sha.encode("ascii"))


def _commit(repo: Repo, sha: ObjectID) -> Commit:
    found = repo[sha]
    if not isinstance(found, Commit):
        raise TypeError("not a commit")
    return found


def _count(repo: Repo, include: str | None, exclude: str | None) -> int:
    """Commits reachable from ``include`` and not from ``exclude``."""
    if include is None:
        return 0
    excluded = [] if exclude is None else [_oid(exclude)]
    return sum(1 for _ in repo.get_walker(include=[_oid(include)], exclude=excluded))


def _file_sha(entry: tuple[int, bytes] | None) -> str | None:
    """The blob id of a leaf that is a file (or a symlink); ``None`` for none or a gitlink."""
    if entry is None or not is_file_mode(entry[0]):
        return None
    return entry[1].decode("ascii")
