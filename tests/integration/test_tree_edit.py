"""Editing a tree from its cached entries builds the same trees as dulwich's own edit."""

from __future__ import annotations

from dulwich.object_store import MemoryObjectStore, commit_tree_changes
from dulwich.objects import Blob, ObjectID, Tree
from hypothesis import given, settings
from hypothesis import strategies as st

from memhtml.adapters.git.tree_edit import edit_tree

FILE = 0o100644
EXECUTABLE = 0o100755
# Folders and files never share a name, so no path is both a file and a folder.
PATHS = st.builds(
    lambda folders, name: b"/".join([*folders, name]),
    st.lists(st.sampled_from([b"d0", b"d1", b"d2"]), max_size=3),
    st.sampled_from([b"f0", b"f1", b"f2.html"]),
)
BODIES = st.sampled_from([b"a", b"b", b"c"])


def blob(store: MemoryObjectStore, data: bytes) -> ObjectID:
    """The id of ``data`` stored as a blob."""
    made = Blob.from_string(data)
    store.add_object(made)
    return made.id


def dulwich_tree(store: MemoryObjectStore, base: ObjectID, changes: list[tuple]) -> ObjectID:  # type: ignore[type-arg]
    """dulwich's edit of ``base`` (it edits a tree object in place, so a fresh one)."""
    fresh = store[base]
    assert isinstance(fresh, Tree)
    copy = Tree.from_raw_string(Tree.type_num, fresh.as_raw_string())
    assert isinstance(copy, Tree)
    return commit_tree_changes(store, copy, changes)


@settings(max_examples=150, deadline=None)
@given(
    base=st.dictionaries(PATHS, BODIES, max_size=8),
    sets=st.dictionaries(PATHS, st.tuples(BODIES, st.sampled_from([FILE, EXECUTABLE])), max_size=6),
    removals=st.sets(st.integers(min_value=0, max_value=7), max_size=4),
)
def test_an_edit_gives_the_tree_dulwich_gives(
    base: dict[bytes, bytes],
    sets: dict[bytes, tuple[bytes, int]],
    removals: set[int],
) -> None:
    """Set and removed paths, new and emptied folders: the same root tree id either way."""
    store = MemoryObjectStore()
    root = commit_tree_changes(
        store, Tree(), [(path, FILE, blob(store, data)) for path, data in base.items()]
    )
    held = sorted(base)
    gone = {held[i] for i in removals if i < len(held)} - set(sets)
    changes: list[tuple[bytes, int | None, ObjectID | None]] = [
        (path, mode, blob(store, data)) for path, (data, mode) in sets.items()
    ]
    changes += [(path, None, None) for path in sorted(gone)]
    expected = dulwich_tree(store, root, changes)
    assert expected == edit_tree(store, root, changes)


def test_an_edit_of_no_tree_builds_one_from_nothing() -> None:
    """``None`` stands for the empty tree; removing everything gives the empty tree."""
    store = MemoryObjectStore()
    made = edit_tree(store, None, [(b"a/b/c.html", FILE, blob(store, b"x"))])
    emptied = edit_tree(store, made, [(b"a/b/c.html", None, None)])
    expected = commit_tree_changes(store, Tree(), [(b"a/b/c.html", FILE, blob(store, b"x"))])
    assert (expected, Tree().id) == (made, emptied)
