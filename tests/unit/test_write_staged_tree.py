"""The staged tree: occupancy, reads through staging, and the one change set it becomes."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.staged_tree import StagedTree
from memhtml.domain.errors import NotFound
from memhtml.ports.git import StatusEntry
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite
from tests.fakes.git import FakeGit


def _git(files: dict[str, bytes]) -> FakeGit:
    git = FakeGit()
    if files:
        writes = tuple(FileWrite(path=p, data=d) for p, d in files.items())
        git.commit(ChangeSet(writes=writes), "base", expected_head=None)
    return git


def _tree_files(git: FakeGit) -> dict[str, bytes]:
    head = git.head()
    if head is None:
        return {}
    entries = git.list_tree(head)
    blobs = git.read_blobs([e.blob_sha for e in entries])
    return {e.path: blobs[e.blob_sha] for e in entries}


def test_occupancy_sees_files_folders_parents_and_dirty_paths() -> None:
    """Not free: a file, a folder, a path under a file, and an untracked file."""
    git = _git({"areas/inbox/a.html": b"a"})
    git.write_file("areas/inbox/draft.html", b"unsaved")
    tree = StagedTree.load(git)
    assert (False, False, False, False, True) == (
        tree.is_free("areas/inbox/a.html"),
        tree.is_free("areas/inbox"),
        tree.is_free("areas/inbox/a.html/b.html"),
        tree.is_free("areas/inbox/draft.html"),
        tree.is_free("areas/inbox/b.html"),
    )


def test_staged_files_occupy_and_read_back() -> None:
    """A staged write exists, occupies its folder, and reads back its staged bytes."""
    tree = StagedTree.load(_git({}))
    tree.write("projects/x/a.html", b"new")
    assert (True, False, False, b"new") == (
        tree.exists("projects/x/a.html"),
        tree.is_free("projects/x"),
        tree.is_free("projects"),
        tree.read("projects/x/a.html"),
    )


def test_a_moved_file_is_gone_from_its_source() -> None:
    """After a staged move the source is free and unreadable; the target reads the new bytes."""
    tree = StagedTree.load(_git({"areas/a.html": b"old"}))
    tree.move("areas/a.html", "archive/2026/areas/a.html", b"stamped")
    with pytest.raises(NotFound):
        tree.read("areas/a.html")
    assert (True, b"stamped") == (
        tree.is_free("areas/a.html"),
        tree.read("archive/2026/areas/a.html"),
    )


def test_a_clean_move_is_a_file_move_plus_its_stamped_write() -> None:
    """An archive move becomes ``FileMove`` and a write of the stamped bytes to the target."""
    tree = StagedTree.load(_git({"areas/a.html": b"old"}))
    tree.move("areas/a.html", "archive/2026/areas/a.html", b"stamped")
    expected = ChangeSet(
        writes=(FileWrite(path="archive/2026/areas/a.html", data=b"stamped"),),
        moves=(FileMove(source="areas/a.html", target="archive/2026/areas/a.html"),),
    )
    assert expected == tree.change_set()


def test_a_rewritten_move_source_becomes_two_writes() -> None:
    """A correction reusing the old path cannot be a move (one role per path): two writes."""
    tree = StagedTree.load(_git({"areas/a.html": b"old"}))
    tree.move("areas/a.html", "archive/2026/areas/a.html", b"stamped")
    tree.write("areas/a.html", b"successor")
    expected = ChangeSet(
        writes=(
            FileWrite(path="archive/2026/areas/a.html", data=b"stamped"),
            FileWrite(path="areas/a.html", data=b"successor"),
        )
    )
    assert expected == tree.change_set()


def test_unchanged_content_is_not_written() -> None:
    """Writing a file's own bytes back changes nothing."""
    tree = StagedTree.load(_git({"areas/a.html": b"same"}))
    tree.write("areas/a.html", b"same")
    assert ChangeSet() == tree.change_set()


# One intent per step: ("write", path, _, bytes) or ("move", source, target, bytes). Small
# alphabets so steps collide: rewrites, moves of staged files, writes onto move sources.
_paths = st.sampled_from(["areas/a.html", "areas/b.html", "archive/2026/areas/a.html", "p/c.html"])
_data = st.sampled_from([b"1", b"2", b"3"])
_steps = st.lists(st.tuples(st.sampled_from(["write", "move"]), _paths, _paths, _data), max_size=6)


@given(
    base=st.dictionaries(st.sampled_from(["areas/a.html", "areas/b.html"]), _data, max_size=2),
    steps=_steps,
)
@example(
    base={"areas/a.html": b"1"},
    steps=[
        ("move", "areas/a.html", "archive/2026/areas/a.html", b"2"),
        ("write", "areas/a.html", "", b"3"),
    ],
)
@example(
    base={},
    steps=[("write", "areas/a.html", "", b"1"), ("move", "areas/a.html", "p/c.html", b"2")],
)
@example(
    # A move's target moved on, then another file moved onto it: two moves, never one target
    # given twice (found by a random seed in CI's property run).
    base={"areas/a.html": b"1", "areas/b.html": b"1"},
    steps=[
        ("move", "areas/a.html", "p/c.html", b"1"),
        ("move", "p/c.html", "archive/2026/areas/a.html", b"1"),
        ("move", "areas/b.html", "p/c.html", b"1"),
    ],
)
def test_change_set_lands_exactly_the_staged_state(
    base: dict[str, bytes], steps: list[tuple[str, str, str, bytes]]
) -> None:
    """Committing ``change_set()`` yields the staged view, and the writer accepts it."""
    git = _git(base)
    tree = StagedTree.load(git)
    model = dict(base)
    for kind, source, target, data in steps:
        if kind == "write":
            if source in model or tree.is_free(source):
                tree.write(source, data)
                model[source] = data
        elif source in model and source != target and tree.is_free(target):
            tree.move(source, target, data)
            del model[source]
            model[target] = data
    changes = tree.change_set()
    if changes != ChangeSet():
        git.commit(changes, "staged", expected_head=tree.head)
    assert model == _tree_files(git)


_SEGMENTS = st.sampled_from(["a", "b", "c.html"])
_PATHS = st.lists(_SEGMENTS, min_size=1, max_size=3).map("/".join)
_STEPS = st.lists(st.tuples(st.sampled_from(["write", "move"]), _PATHS, _PATHS), max_size=8)


def _is_free_by_definition(
    base: set[str], dirty: set[str], staged: dict[str, bool], path: str
) -> bool:
    """``is_free`` spelt out by scanning every path, as it was before folders were counted.

    ``staged`` says, per touched path, whether a file is staged there (False: moved away).
    """

    def exists(p: str) -> bool:
        return staged.get(p, p in base)

    ancestors = ["/".join(path.split("/")[:end]) for end in range(1, path.count("/") + 1)]
    occupied = [p for p, present in staged.items() if present] + sorted(dirty)
    base_dirs = {"/".join(p.split("/")[:end]) for p in base for end in range(1, p.count("/") + 1)}
    return not (
        exists(path)
        or path in dirty
        or path in base_dirs
        or any(p.startswith(path + "/") for p in occupied)
        or any(exists(a) or a in dirty for a in ancestors)
    )


@given(
    st.sets(_PATHS, max_size=3), st.sets(_PATHS, max_size=2), _STEPS, st.lists(_PATHS, max_size=6)
)
@example({"a/b"}, set(), [("move", "a/b", "c.html/a"), ("write", "a/b", "a/b")], ["c.html", "a"])
@example(set(), set(), [("write", "a/b", "x"), ("move", "a/b", "c.html")], ["a"])
@example(set(), set(), [("write", "a/b", "x"), ("write", "a/b", "y"), ("move", "a/b", "c")], ["a"])
def test_occupancy_agrees_with_its_definition_after_any_staging(
    base: set[str], dirty: set[str], steps: list[tuple[str, str, str]], probes: list[str]
) -> None:
    """Counting staged folders answers ``is_free`` as scanning every staged path would."""
    files = {p: p.encode() for p in base if not any(o.startswith(p + "/") for o in base)}
    tree = StagedTree(
        head=None,
        base={p: f"{i:040x}" for i, p in enumerate(files)},
        dirty=frozenset(dirty),
        read_blob=lambda sha: b"",
    )
    staged: dict[str, bool] = {}
    for kind, first, second in steps:
        if kind == "write":
            tree.write(first, second.encode())
            staged[first] = True
        elif tree.exists(first) and first != second:
            tree.move(first, second, b"moved")
            staged.update({first: False, second: True})
    for path in [*probes, *files, *dirty, *staged]:
        assert _is_free_by_definition(set(files), dirty, staged, path) == tree.is_free(path)


class _UnwalkedGit(FakeGit):
    """A fake whose status must not be asked."""

    def status(self) -> tuple[StatusEntry, ...]:
        raise AssertionError("status walked although an answer was handed in")


def test_a_handed_status_answer_places_without_a_walk() -> None:
    """``load`` with a status answer takes its dirty paths from it and never walks."""
    git = _UnwalkedGit()
    git.commit(
        ChangeSet(writes=(FileWrite(path="areas/inbox/a.html", data=b"a"),)),
        "base",
        expected_head=None,
    )
    handed = (
        StatusEntry(path="areas/inbox/draft.html"),
        StatusEntry(path="areas/moved/b.html", from_path="areas/inbox/b.html"),
    )
    tree = StagedTree.load(git, handed)
    assert (True, True, True, False) == (
        tree.is_dirty("areas/inbox/draft.html"),
        tree.is_dirty("areas/moved/b.html"),
        tree.is_dirty("areas/inbox/b.html"),
        tree.is_free("areas/inbox/a.html"),
    )


def test_a_scratch_tree_has_the_base_and_dirt_but_nothing_staged() -> None:
    """``scratch`` starts again from the same HEAD and dirty paths, without the staging."""
    git = _git({"areas/inbox/a.html": b"a"})
    git.write_file("areas/inbox/draft.html", b"unsaved")
    tree = StagedTree.load(git)
    tree.write("areas/inbox/new.html", b"new")
    scratch = tree.scratch()
    assert (tree.head, False, True, b"a", ChangeSet()) == (
        scratch.head,
        scratch.exists("areas/inbox/new.html"),
        scratch.is_dirty("areas/inbox/draft.html"),
        scratch.read("areas/inbox/a.html"),
        scratch.change_set(),
    )


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        (ChangeSet(writes=(FileWrite(path="areas/inbox/new.html", data=b"n"),)), False),
        (ChangeSet(writes=(FileWrite(path="areas/inbox/draft.html", data=b"n"),)), True),
        (ChangeSet(deletes=("areas/inbox/draft.html",)), True),
        (
            ChangeSet(moves=(FileMove(source="areas/inbox/a.html", target="archive/a.html"),)),
            False,
        ),
        (
            ChangeSet(
                moves=(FileMove(source="areas/inbox/a.html", target="areas/inbox/draft.html"),)
            ),
            True,
        ),
    ],
)
def test_touches_dirty_names_a_change_to_an_uncommitted_path(
    changes: ChangeSet, expected: bool
) -> None:
    """A write, delete or either end of a move on a dirty path counts; a clean one does not."""
    git = _git({"areas/inbox/a.html": b"a"})
    git.write_file("areas/inbox/draft.html", b"unsaved")
    assert expected == StagedTree.load(git).touches_dirty(changes)
