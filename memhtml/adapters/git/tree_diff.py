"""Which entries differ between two trees, without walking the entries that did not change.

dulwich's ``tree_changes`` builds a ``TreeEntry`` per entry of every subtree it enters and
compares them one by one in Python: an update after a one-file commit into a 2,500-file folder
paid that twice (the diff and the first-parent walk), ~10 ms each. Here a tree is read once into
a ``{name: (mode, sha)}`` dict (kept per tree id, since a tree id names its content), and two
trees are compared by the symmetric difference of their items, which is done in C; only the
names in it are looked at, and only subtrees whose ids differ are entered.
"""

from __future__ import annotations

import stat
from collections import OrderedDict
from collections.abc import Iterator
from typing import Final

from dulwich.errors import NotTreeError
from dulwich.object_store import BaseObjectStore
from dulwich.objects import ObjectID, Tree, parse_tree

# (mode, hex sha) of one tree entry.
Entry = tuple[int, bytes]
Entries = dict[bytes, Entry]
# (path, before, after): one leaf (a file, a symlink or a gitlink) that differs. ``None`` on
# a side where the path is no leaf; both sides set for a changed blob, mode or file type.
LeafChange = tuple[bytes, Entry | None, Entry | None]

_SHA_LENGTH: Final = 20
_MEMO_ENTRIES: Final = 200_000
_memo: OrderedDict[bytes, Entries] = OrderedDict()
_memo_size = [0]


def tree_entries(store: BaseObjectStore, tree_id: bytes) -> Entries:
    """The entries of tree ``tree_id``, by name; read once per process while the memo holds it.

    Raises:
        NotTreeError: ``tree_id`` names another kind of object.
        KeyError: The object is missing.
    """
    found = _memo.get(tree_id)
    if found is not None:
        _memo.move_to_end(tree_id)
        return found
    type_num, raw = store.get_raw(ObjectID(tree_id))
    if type_num != Tree.type_num:
        raise NotTreeError(tree_id)
    found = {name: (mode, sha) for name, mode, sha in parse_tree(raw, sha_len=_SHA_LENGTH)}
    _memo[tree_id] = found
    _memo_size[0] += len(found) + 1
    while _memo_size[0] > _MEMO_ENTRIES and len(_memo) > 1:
        _, dropped = _memo.popitem(last=False)
        _memo_size[0] -= len(dropped) + 1
    return found


def leaf_changes(
    store: BaseObjectStore, old: bytes | None, new: bytes | None, prefix: bytes = b""
) -> Iterator[LeafChange]:
    """Every leaf that differs between trees ``old`` and ``new`` (``None``: the empty tree).

    The same leaves as ``dulwich.diff_tree.tree_changes`` without rename detection, except
    that a leaf whose file type changed is one change with both sides instead of a delete
    and an add. A directory replaced by a leaf (or the reverse) is the delete of every leaf
    under it and the add of the leaf. Order is not sorted.
    """
    if old == new:
        return
    before = tree_entries(store, old) if old is not None else {}
    after = tree_entries(store, new) if new is not None else {}
    names = {name for name, _ in before.items() ^ after.items()}
    for name in names:
        path = prefix + name
        was, now = before.get(name), after.get(name)
        was_tree = was is not None and stat.S_ISDIR(was[0])
        now_tree = now is not None and stat.S_ISDIR(now[0])
        if was_tree or now_tree:
            yield from leaf_changes(
                store,
                was[1] if was is not None and was_tree else None,
                now[1] if now is not None and now_tree else None,
                path + b"/",
            )
            if was is not None and not was_tree:
                yield path, was, None
            if now is not None and not now_tree:
                yield path, None, now
        else:
            yield path, was, now


def forget_trees() -> None:
    """Drop the memo (tests that count reads)."""
    _memo.clear()
    _memo_size[0] = 0
