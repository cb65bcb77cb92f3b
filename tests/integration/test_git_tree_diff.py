"""The tree diff that skips unchanged entries answers what a full comparison of the trees does.

Generated pairs of trees over a few short names, so that a path is a file in one tree and a
folder in the other, a file turns into a symlink or a gitlink, and whole folders appear and go.
The specification is brute force: both trees flattened to every leaf, compared path by path.
"""

from __future__ import annotations

import stat
import tempfile
from collections.abc import Mapping
from itertools import pairwise
from pathlib import Path

from dulwich.diff_tree import RenameDetector, tree_changes
from dulwich.object_store import BaseObjectStore, MemoryObjectStore, iter_tree_contents
from dulwich.objects import S_IFGITLINK, Blob, Commit, ObjectID, Tree
from dulwich.refs import HEADREF, Ref
from dulwich.repo import Repo
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.git.dulwich_git import DulwichGit, _name_status
from memhtml.adapters.git.tree_diff import forget_trees, leaf_changes
from memhtml.ports.git import DiffEntry

FILE, EXECUTABLE, LINK = 0o100644, 0o100755, 0o120000
_MODES = (FILE, FILE, FILE, EXECUTABLE, LINK, S_IFGITLINK)
_CONTENTS = (b"alpha", b"beta", b"gamma")
_GITLINK = b"1" * 40

Leaves = dict[tuple[str, ...], tuple[int, bytes]]

_leaf = st.tuples(
    st.lists(st.sampled_from("abc"), min_size=1, max_size=3).map(tuple),
    st.sampled_from(_MODES),
    st.sampled_from(_CONTENTS),
)


def _consistent(entries: list[tuple[tuple[str, ...], int, bytes]]) -> Leaves:
    """Drop every entry whose path is a folder of an earlier one, or the reverse."""
    leaves: Leaves = {}
    for path, mode, content in entries:
        clash = any(other[: len(path)] == path or path[: len(other)] == other for other in leaves)
        if not clash:
            leaves[path] = (mode, content)
    return leaves


trees = st.lists(_leaf, max_size=12).map(_consistent)


def _write(store: BaseObjectStore, leaves: Leaves) -> ObjectID:
    """Store ``leaves`` as nested tree objects; the root tree's id."""
    tree = Tree()
    folders: dict[str, Leaves] = {}
    for path, (mode, content) in leaves.items():
        if len(path) > 1:
            folders.setdefault(path[0], {})[path[1:]] = (mode, content)
            continue
        if mode == S_IFGITLINK:
            sha = ObjectID(_GITLINK)
        else:
            blob = Blob.from_string(content)
            store.add_object(blob)
            sha = blob.id
        tree.add(path[0].encode(), mode, sha)
    for name, inner in folders.items():
        tree.add(name.encode(), stat.S_IFDIR, _write(store, inner))
    store.add_object(tree)
    return tree.id


def _flat(store: BaseObjectStore, tree: ObjectID | None) -> dict[bytes, tuple[int, bytes]]:
    if tree is None:
        return {}
    return {
        entry.path: (entry.mode, entry.sha)
        for entry in iter_tree_contents(store, tree)
        if entry.path is not None and entry.mode is not None and entry.sha is not None
    }


def _is_file(mode: int) -> bool:
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)


@settings(max_examples=200, deadline=None)
@given(old=trees, new=trees, empty_old=st.booleans())
def test_leaf_changes_are_the_leaves_whose_entries_differ(
    old: Leaves, new: Leaves, empty_old: bool
) -> None:
    """Each leaf whose (mode, sha) differs between the flattened trees, once, with both sides."""
    store = MemoryObjectStore()
    forget_trees()
    old_id = None if empty_old else _write(store, old)
    new_id = _write(store, new)
    before, after = _flat(store, old_id), _flat(store, new_id)
    expected = {
        path: (before.get(path), after.get(path))
        for path in before.keys() | after.keys()
        if before.get(path) != after.get(path)
    }
    changes = list(leaf_changes(store, old_id, new_id))
    actual = {path: (was, now) for path, was, now in changes}
    assert (expected, len(changes)) == (actual, len(actual))


def _commit(repo: Repo, leaves: Leaves, parent: ObjectID | None) -> ObjectID:
    commit = Commit()
    commit.tree = _write(repo.object_store, leaves)
    commit.parents = [] if parent is None else [parent]
    commit.author = commit.committer = b"t <t@example.invalid>"
    commit.author_time = commit.commit_time = 1_700_000_000
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"m"
    repo.object_store.add_object(commit)
    return commit.id


def _reference_diff(repo: Repo, old: ObjectID, new: ObjectID) -> tuple[DiffEntry, ...]:
    """The diff as the port computed it before the fast path: dulwich with rename detection."""
    store = repo.object_store
    old_tree, new_tree = repo[old].tree, repo[new].tree  # type: ignore[attr-defined]
    detector = RenameDetector(store)
    return _name_status(list(tree_changes(store, old_tree, new_tree, rename_detector=detector)))


def _expected_steps(
    store: BaseObjectStore, trees_along: list[ObjectID | None]
) -> list[tuple[tuple[str, str | None], ...]]:
    steps = []
    for before_id, after_id in pairwise(trees_along):
        before, after = _flat(store, before_id), _flat(store, after_id)
        changes: dict[str, str | None] = {}
        for path in before.keys() | after.keys():
            was, now = before.get(path), after.get(path)
            if was == now:
                continue
            if now is not None and _is_file(now[0]):
                changes[path.decode()] = now[1].decode()
            elif was is not None and _is_file(was[0]):
                changes[path.decode()] = None
        steps.append(tuple(sorted(changes.items())))
    return steps


@settings(max_examples=60, deadline=None)
@given(line=st.lists(trees, min_size=1, max_size=4), moved=st.booleans())
def test_diff_and_line_walk_match_the_full_comparison(line: list[Leaves], moved: bool) -> None:
    """``diff`` equals dulwich's rename-detecting diff (a moved file included), each
    first-parent step lists every file whose blob changed, with its blob after, and
    ``list_tree`` lists the files under each prefix (a folder, a file, or nothing)."""
    if moved and line[-1]:
        # Move one leaf to a fresh name, so rename detection has something to pair.
        path, leaf = next(iter(line[-1].items()))
        line.append({**{p: v for p, v in line[-1].items() if p != path}, ("zz",): leaf})
    forget_trees()
    with tempfile.TemporaryDirectory() as scratch, Repo.init(scratch) as repo:
        commits: list[ObjectID] = []
        for leaves in line:
            commits.append(_commit(repo, leaves, commits[-1] if commits else None))
        repo.refs.set_symbolic_ref(HEADREF, Ref(b"refs/heads/main"))
        repo.refs[Ref(b"refs/heads/main")] = commits[-1]
        git = DulwichGit(Path(scratch))
        hexes = [sha.decode() for sha in commits]
        assert _reference_diff(repo, commits[0], commits[-1]) == git.diff(hexes[0], hexes[-1])
        assert _expected_steps(repo.object_store, [None, *_trees(repo, commits)]) == [
            step.changes for step in git.first_parent_changes(None) or ()
        ]
        assert _spec_adds(repo, commits[-1]) == git.diff(None, hexes[-1])
        flat = _flat(repo.object_store, _trees(repo, commits)[-1])
        files = {
            path.decode(): sha.decode() for path, (mode, sha) in flat.items() if _is_file(mode)
        }
        for prefixes in ((), ("a",), ("a/b", "c"), ("b/a/c", "zz", "q")):
            expected = {
                path: sha
                for path, sha in files.items()
                if not prefixes or any(path == p or path.startswith(p + "/") for p in prefixes)
            }
            listed = git.list_tree(hexes[-1], prefixes)
            assert expected == {entry.path: entry.blob_sha for entry in listed}


def _trees(repo: Repo, commits: list[ObjectID]) -> list[ObjectID | None]:
    return [repo[sha].tree for sha in commits]  # type: ignore[attr-defined]


def _spec_adds(repo: Repo, commit: ObjectID) -> tuple[DiffEntry, ...]:
    flat: Mapping[bytes, tuple[int, bytes]] = _flat(repo.object_store, _trees(repo, [commit])[0])
    return tuple(
        DiffEntry(status="A", path=path.decode())
        for path in sorted(flat)
        if _is_file(flat[path][0])
    )
