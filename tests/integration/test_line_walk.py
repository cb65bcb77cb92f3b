"""The line walk's set-based tree diff (adapters/git/line_walk.py) against dulwich's own
``tree_changes`` read file by file, over generated pairs of real trees in a dulwich object store:
files, executables, symlinks, submodules, files turned into directories and back, names that
are not UTF-8."""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path

import pytest
from dulwich.diff_tree import tree_changes
from dulwich.object_store import BaseObjectStore, MemoryObjectStore
from dulwich.objects import S_IFGITLINK, Blob, ObjectID, Tree
from dulwich.repo import Repo
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.git.line_walk import ListingMemo, changed_files
from memhtml.adapters.git.repository import decode_path, is_file_mode
from memhtml.ports.errors import GitFailure

NAMES = (b"a", b"b.html", b"c", b"\xff.html")
FILE_MODES = (0o100644, 0o100755, 0o120000, S_IFGITLINK)
CONTENTS = (b"one", b"two", b"three")

leaf = st.tuples(st.sampled_from(FILE_MODES), st.sampled_from(CONTENTS))
trees = st.recursive(
    st.dictionaries(st.sampled_from(NAMES), leaf, max_size=4),
    lambda inner: st.dictionaries(st.sampled_from(NAMES), st.one_of(leaf, inner), max_size=4),
    max_leaves=12,
)


def store_tree(store: BaseObjectStore, spec: dict[bytes, object]) -> ObjectID:
    """Write ``spec`` (name → (mode, content) or a nested spec) as real tree objects."""
    tree = Tree()
    for name, value in spec.items():
        if isinstance(value, dict):
            tree.add(name, stat.S_IFDIR, store_tree(store, value))
            continue
        assert isinstance(value, tuple)
        mode, content = value
        blob = Blob.from_string(content)
        store.add_object(blob)
        tree.add(name, mode, blob.id)
    store.add_object(tree)
    return tree.id


def reference(store: BaseObjectStore, old: ObjectID | None, new: ObjectID) -> tuple[object, ...]:
    """What the walk answered before: dulwich's diff, each side's files recorded in order."""
    found: dict[str, str | None] = {}
    for change in tree_changes(store, old, new):
        for side, blob in ((change.old, False), (change.new, True)):
            if side is None or side.path is None or side.mode is None:
                continue
            path = decode_path(side.path)
            if path is not None and is_file_mode(side.mode) and side.sha is not None:
                found[path] = side.sha.decode("ascii") if blob else None
    return tuple(sorted(found.items()))


@settings(max_examples=300, deadline=None)
@given(before=st.one_of(st.none(), trees), after=trees, on_disk=st.booleans())
def test_the_set_diff_reports_what_dulwichs_diff_reports(
    before: dict[bytes, object] | None, after: dict[bytes, object], on_disk: bool
) -> None:
    """In memory (read through dulwich) and in a repository on disk (loose trees read raw)."""
    with tempfile.TemporaryDirectory() as folder:
        repo = Repo.init(folder) if on_disk else None
        store = MemoryObjectStore() if repo is None else repo.object_store
        old = None if before is None else store_tree(store, before)
        new = store_tree(store, after)
        memo = ListingMemo(store, "first_parent_changes")
        assert reference(store, old, new) == changed_files(memo, old, new)
        if repo is not None:
            repo.close()


def test_packed_trees_are_read_through_dulwich_and_a_damaged_loose_tree_is_refused(
    tmp_path: Path,
) -> None:
    repo = Repo.init(str(tmp_path))
    store = repo.object_store
    first = store_tree(store, {b"areas": {b"a": (0o100644, b"one")}})
    second = store_tree(store, {b"areas": {b"a": (0o100644, b"two")}})
    expected = changed_files(ListingMemo(store, "walk"), first, second)
    store.pack_loose_objects()
    assert not (tmp_path / ".git" / "objects" / first.decode()[:2] / first.decode()[2:]).exists()
    packed = changed_files(ListingMemo(store, "walk"), first, second)
    third = store_tree(store, {b"areas": {b"a": (0o100644, b"three")}})
    loose = tmp_path / ".git" / "objects" / third.decode()[:2] / third.decode()[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"not zlib")
    with pytest.raises(GitFailure):
        changed_files(ListingMemo(store, "walk"), second, third)
    repo.close()
    assert ((("areas/a", Blob.from_string(b"two").id.decode()),),) * 2 == (expected, packed)


def test_a_line_reuses_listings_and_refuses_an_id_that_is_no_tree() -> None:
    store = MemoryObjectStore()
    first = store_tree(store, {b"areas": {b"a": (0o100644, b"one")}})
    second = store_tree(store, {b"areas": {b"a": (0o100644, b"two"), b"b.html": (0o100644, b"x")}})
    memo = ListingMemo(store, "first_parent_changes")
    steps = [changed_files(memo, None, first), changed_files(memo, first, second)]
    blob = Blob.from_string(b"not a tree")
    store.add_object(blob)
    try:
        changed_files(memo, first, blob.id)
    except GitFailure as error:
        refused = str(error)
    assert [
        (("areas/a", Blob.from_string(b"one").id.decode()),),
        (
            ("areas/a", Blob.from_string(b"two").id.decode()),
            ("areas/b.html", Blob.from_string(b"x").id.decode()),
        ),
    ] == steps
    assert "first_parent_changes" in refused
