"""The git write port's contract, for the dulwich adapter and the in-memory fake alike, and the
properties of the pure change-set planner both of them share.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from memhtml.ports.errors import GitFailure
from memhtml.ports.git import (
    REFUSED_ABSOLUTE,
    REFUSED_DOT_SEGMENT,
    REFUSED_GIT_DIR,
    DiffEntry,
    PathRefused,
    StatusEntry,
    TreeEntry,
    blob_sha,
)
from memhtml.ports.git_writer import (
    FILE_MODE,
    REFUSED_CONFLICTING_ROLES,
    REFUSED_NOT_A_FILE,
    REFUSED_OCCUPIED,
    REFUSED_UNDER_A_FILE,
    BaseNode,
    ChangeSet,
    FileMove,
    FileWrite,
    HeadMoved,
    TreeEdit,
    plan_tree_edits,
)
from tests.contract.test_git_port import IMPLEMENTATIONS, GitHarness, land, make_harness, writes
from tests.fakes.git import FakeGit


@pytest.fixture(params=IMPLEMENTATIONS)
def harness(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> GitHarness:
    """An initialized, empty repository of each implementation."""
    return make_harness(request.param, tmp_path, monkeypatch)


BASE = {
    "projects/p/a.html": b"<p>a</p>\n",
    "areas/inbox/b.html": b"<p>b</p>\n",
    "resources/r/c.html": b"<p>c</p>\n",
}


@pytest.fixture
def based(harness: GitHarness) -> tuple[GitHarness, str]:
    """A repository holding BASE in one commit, and that commit."""
    return harness, land(harness, writes(BASE))


def tree_of(harness: GitHarness) -> dict[str, str]:
    """HEAD's tree as path → blob sha."""
    return {entry.path: entry.blob_sha for entry in harness.git.list_tree("HEAD")}


# --- init ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
def test_init_creates_once(kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first init creates an unborn repository; the second changes nothing."""
    harness = make_harness(kind, tmp_path, monkeypatch, initialized=False)
    assert harness.writer.init() is True
    assert harness.writer.init() is False
    assert harness.git.head() is None


# --- commit -------------------------------------------------------------------------------


def test_commit_lands_files_tree_and_index(harness: GitHarness) -> None:
    """Written files are on disk, in HEAD's tree, and the tree is clean."""
    land(harness, writes(BASE))
    assert {path: blob_sha(data) for path, data in BASE.items()} == tree_of(harness)
    assert BASE == {path: harness.git.read_working_file(path) for path in BASE}
    assert () == harness.git.status()


def test_commits_chain_on_their_parent(based: tuple[GitHarness, str]) -> None:
    """Each commit's parent is the head it was built on."""
    harness, first = based
    second = land(harness, writes({"areas/x.html": b"x"}))
    assert (second, first) == harness.history()


def test_an_empty_change_set_still_commits(based: tuple[GitHarness, str]) -> None:
    """Every call makes one commit, even one that changes no file."""
    harness, first = based
    before = tree_of(harness)
    second = land(harness, ChangeSet())
    assert (second, first) == harness.history()
    assert before == tree_of(harness)


def test_stale_expected_head_is_refused_and_changes_nothing(
    based: tuple[GitHarness, str],
) -> None:
    """A commit built on an old head fails with HeadMoved and leaves tree and disk alone."""
    harness, first = based
    second = land(harness, writes({"areas/x.html": b"x"}))
    with pytest.raises(HeadMoved) as caught:
        harness.writer.commit(writes({"areas/y.html": b"y"}), "late", expected_head=first)
    assert (first, second) == (caught.value.expected, caught.value.actual)
    assert (second, first) == harness.history()
    assert () == harness.git.status()


def test_concurrent_writers_lose_nothing(based: tuple[GitHarness, str]) -> None:
    """Two writers on one head: one lands, the other is told, retries, and both survive."""
    harness, first = based
    other = harness.second_writer()
    mine = harness.writer.commit(writes({"areas/mine.html": b"m"}), "mine", expected_head=first)
    with pytest.raises(HeadMoved):
        other.commit(writes({"areas/theirs.html": b"t"}), "theirs", expected_head=first)
    theirs = other.commit(writes({"areas/theirs.html": b"t"}), "theirs", expected_head=mine)
    assert (theirs, mine, first) == harness.history()
    assert {"areas/mine.html", "areas/theirs.html"} <= set(tree_of(harness))
    assert () == harness.git.status()


@pytest.mark.parametrize("stale", ["unborn", "born"])
def test_unborn_and_born_expectations_are_checked(harness: GitHarness, stale: str) -> None:
    """Expecting a commit on an unborn branch, or no commit on a born one, is HeadMoved."""
    if stale == "born":
        land(harness, writes(BASE))
        expected = None
    else:
        expected = "0" * 40
    with pytest.raises(HeadMoved):
        harness.writer.commit(writes({"areas/x.html": b"x"}), "x", expected_head=expected)


def test_a_move_keeps_the_blob_and_diffs_as_a_rename(based: tuple[GitHarness, str]) -> None:
    """``git mv``: the target holds the source's blob, the source is gone everywhere."""
    harness, first = based
    target = "archive/2026/projects/p/a.html"
    second = land(harness, ChangeSet(moves=(FileMove(source="projects/p/a.html", target=target),)))
    assert blob_sha(BASE["projects/p/a.html"]) == tree_of(harness)[target]
    assert "projects/p/a.html" not in tree_of(harness)
    assert BASE["projects/p/a.html"] == harness.git.read_working_file(target)
    with pytest.raises(GitFailure):
        harness.git.read_working_file("projects/p/a.html")
    expected = (DiffEntry(status="R", path=target, from_path="projects/p/a.html"),)
    assert expected == harness.git.diff(first, second)
    assert () == harness.git.status()


def test_a_written_move_target_takes_the_written_bytes(based: tuple[GitHarness, str]) -> None:
    """A move plus a write to its target commits the written content at the target."""
    harness, _ = based
    target = "archive/2026/areas/inbox/b.html"
    land(
        harness,
        ChangeSet(
            moves=(FileMove(source="areas/inbox/b.html", target=target),),
            writes=(FileWrite(path=target, data=b"<p>b, archived</p>\n"),),
        ),
    )
    assert blob_sha(b"<p>b, archived</p>\n") == tree_of(harness)[target]
    assert b"<p>b, archived</p>\n" == harness.git.read_working_file(target)
    assert () == harness.git.status()


def test_a_move_carries_unstaged_edits_along(based: tuple[GitHarness, str]) -> None:
    """The committed blob is HEAD's, and the edit on disk moves with the file, still dirty."""
    harness, _ = based
    harness.write_file("projects/p/a.html", b"<p>a, edited by hand</p>\n")
    land(harness, ChangeSet(moves=(FileMove(source="projects/p/a.html", target="areas/a.html"),)))
    assert blob_sha(BASE["projects/p/a.html"]) == tree_of(harness)["areas/a.html"]
    assert b"<p>a, edited by hand</p>\n" == harness.git.read_working_file("areas/a.html")
    assert (StatusEntry(path="areas/a.html"),) == harness.git.status()


def test_a_move_of_a_file_missing_on_disk_restores_it(based: tuple[GitHarness, str]) -> None:
    """A move whose source was deleted by hand lands the committed bytes at the target."""
    harness, _ = based
    harness.remove_file("projects/p/a.html")
    land(harness, ChangeSet(moves=(FileMove(source="projects/p/a.html", target="areas/a.html"),)))
    assert BASE["projects/p/a.html"] == harness.git.read_working_file("areas/a.html")
    assert () == harness.git.status()


def test_a_delete_removes_file_and_entry(based: tuple[GitHarness, str]) -> None:
    """A deleted path leaves the tree and the disk."""
    harness, _ = based
    land(harness, ChangeSet(deletes=("resources/r/c.html",)))
    assert "resources/r/c.html" not in tree_of(harness)
    with pytest.raises(GitFailure):
        harness.git.read_working_file("resources/r/c.html")
    assert () == harness.git.status()


def test_a_commit_keeps_unrelated_dirt(based: tuple[GitHarness, str]) -> None:
    """Edits and untracked files the change set does not name stay as they were."""
    harness, _ = based
    harness.write_file("areas/inbox/b.html", b"<p>b, by hand, longer</p>\n")
    harness.write_file("areas/notes.txt", b"untracked")
    land(harness, writes({"resources/r/new.html": b"new"}))
    expected = (StatusEntry(path="areas/inbox/b.html"), StatusEntry(path="areas/notes.txt"))
    assert expected == harness.git.status()
    assert blob_sha(BASE["areas/inbox/b.html"]) == tree_of(harness)["areas/inbox/b.html"]


REFUSALS: list[tuple[str, ChangeSet, str]] = [
    ("absolute", writes({"/etc/x.html": b"x"}), REFUSED_ABSOLUTE),
    ("dot-dot", writes({"areas/../../x.html": b"x"}), REFUSED_DOT_SEGMENT),
    ("git-dir", writes({".git/hooks/post-commit": b"x"}), REFUSED_GIT_DIR),
    (
        "write-and-delete",
        ChangeSet(
            writes=(FileWrite(path="areas/inbox/b.html", data=b"x"),),
            deletes=("areas/inbox/b.html",),
        ),
        REFUSED_CONFLICTING_ROLES,
    ),
    (
        "write-the-move-source",
        ChangeSet(
            moves=(FileMove(source="areas/inbox/b.html", target="areas/b.html"),),
            writes=(FileWrite(path="areas/inbox/b.html", data=b"x"),),
        ),
        REFUSED_CONFLICTING_ROLES,
    ),
    ("delete-missing", ChangeSet(deletes=("areas/none.html",)), REFUSED_NOT_A_FILE),
    ("delete-directory", ChangeSet(deletes=("areas/inbox",)), REFUSED_NOT_A_FILE),
    (
        "move-onto-tracked",
        ChangeSet(moves=(FileMove(source="areas/inbox/b.html", target="projects/p/a.html"),)),
        REFUSED_OCCUPIED,
    ),
    ("write-over-directory", writes({"areas/inbox": b"x"}), REFUSED_OCCUPIED),
    ("write-below-file", writes({"projects/p/a.html/x.html": b"x"}), REFUSED_UNDER_A_FILE),
    (
        "write-below-a-new-file",
        writes({"areas/new": b"x", "areas/new/x.html": b"x"}),
        REFUSED_UNDER_A_FILE,
    ),
]


@pytest.mark.parametrize(
    ("changes", "reason"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_refused_change_sets_leave_no_trace(
    based: tuple[GitHarness, str], changes: ChangeSet, reason: str
) -> None:
    """A refused change set names why, and HEAD, tree and disk stay as they were."""
    harness, first = based
    with pytest.raises(PathRefused) as caught:
        harness.writer.commit(changes, "refused", expected_head=first)
    assert reason == caught.value.reason
    assert first == harness.git.head()
    assert () == harness.git.status()
    assert BASE == {path: harness.git.read_working_file(path) for path in BASE}


def test_a_move_onto_a_tracked_file_missing_from_disk_is_refused(
    based: tuple[GitHarness, str],
) -> None:
    """A move never replaces a committed file, even one deleted by hand."""
    harness, first = based
    harness.remove_file("projects/p/a.html")
    move = ChangeSet(moves=(FileMove(source="areas/inbox/b.html", target="projects/p/a.html"),))
    with pytest.raises(PathRefused) as caught:
        harness.writer.commit(move, "refused", expected_head=first)
    assert REFUSED_OCCUPIED == caught.value.reason
    assert first == harness.git.head()


def test_a_move_onto_an_untracked_file_is_refused(based: tuple[GitHarness, str]) -> None:
    """A move never overwrites a file on disk that the commit does not name."""
    harness, first = based
    harness.write_file("areas/b.html", b"someone's notes")
    move = ChangeSet(moves=(FileMove(source="areas/inbox/b.html", target="areas/b.html"),))
    with pytest.raises(PathRefused) as caught:
        harness.writer.commit(move, "refused", expected_head=first)
    assert REFUSED_OCCUPIED == caught.value.reason
    assert b"someone's notes" == harness.git.read_working_file("areas/b.html")


def test_a_write_onto_a_directory_on_disk_is_refused(based: tuple[GitHarness, str]) -> None:
    """A write whose path is an untracked directory on disk is refused before anything lands."""
    harness, first = based
    harness.write_file("areas/notes/todo.txt", b"mine")
    with pytest.raises(PathRefused) as caught:
        harness.writer.commit(writes({"areas/notes": b"x"}), "refused", expected_head=first)
    assert REFUSED_OCCUPIED == caught.value.reason
    assert first == harness.git.head()
    assert b"mine" == harness.git.read_working_file("areas/notes/todo.txt")


def test_detached_head_moves_itself(based: tuple[GitHarness, str]) -> None:
    """On a detached HEAD a commit moves HEAD, compare-and-swap all the same."""
    harness, first = based
    harness.detach_head()
    second = land(harness, writes({"areas/x.html": b"x"}))
    assert second == harness.git.head()
    assert (second, first) == harness.history()
    with pytest.raises(HeadMoved):
        harness.writer.commit(writes({"areas/y.html": b"y"}), "late", expected_head=first)


def test_a_bare_fake_refuses_working_tree_operations() -> None:
    """The fake mirrors a bare repository: commits and status fail as GitFailure."""
    fake = FakeGit(bare=True)
    with pytest.raises(GitFailure) as caught:
        fake.commit(ChangeSet(), "x", expected_head=None)
    assert "git operation failed: commit (bare repository)" == str(caught.value)
    with pytest.raises(GitFailure):
        fake.status()


# --- the planner, as a pure function ------------------------------------------------------

names = st.sampled_from(["a", "b", "c", "d.html", "e.html"])
paths = st.lists(names, min_size=1, max_size=3).map("/".join)


def _consistent(files: set[str]) -> bool:
    return not any(other.startswith(path + "/") for path in files for other in files)


bases = st.sets(paths, max_size=6).filter(_consistent)


def _lookup_in(files: dict[str, str]) -> Callable[[str], BaseNode | None]:
    def lookup(path: str) -> BaseNode | None:
        if path in files:
            return BaseNode(kind="file", blob_sha=files[path])
        if any(other.startswith(path + "/") for other in files):
            return BaseNode(kind="tree")
        return None

    return lookup


def _apply(files: dict[str, str], edits: tuple[TreeEdit, ...]) -> dict[str, str]:
    result = dict(files)
    for edit in edits:
        if edit.blob_sha is None:
            del result[edit.path]
        else:
            result[edit.path] = edit.blob_sha
    return result


@st.composite
def valid_change_sets(draw: st.DrawFn) -> tuple[dict[str, str], ChangeSet]:
    """A base tree and a change set that breaks no rule, built role by role."""
    base = {path: blob_sha(path.encode()) for path in draw(bases)}
    existing = sorted(base)
    removed = draw(st.lists(st.sampled_from(existing), unique=True) if existing else st.just([]))
    split = draw(st.integers(min_value=0, max_value=len(removed)))
    deletes, sources = removed[:split], removed[split:]
    free = [
        f"new/{n}/{m}.html" for n in range(4) for m in range(3)
    ]  # below "new/", never a base path
    targets = draw(
        st.lists(st.sampled_from(free), unique=True, min_size=len(sources), max_size=len(sources))
    )
    untouched = [p for p in existing if p not in removed]
    written_targets = draw(
        st.lists(st.sampled_from(targets), unique=True) if targets else st.just([])
    )
    overwrites = draw(
        st.lists(st.sampled_from(untouched), unique=True) if untouched else st.just([])
    )
    fresh = [p for p in free if p not in targets]
    additions = draw(st.lists(st.sampled_from(fresh), unique=True, max_size=3))
    changes = ChangeSet(
        writes=tuple(
            FileWrite(path=p, data=p.encode() + b"!")
            for p in [*written_targets, *overwrites, *additions]
        ),
        deletes=tuple(deletes),
        moves=tuple(FileMove(source=s, target=t) for s, t in zip(sources, targets, strict=True)),
    )
    return base, changes


@given(valid_change_sets())
@example(({"a": blob_sha(b"a")}, ChangeSet(moves=(FileMove(source="a", target="new/0/0.html"),))))
def test_valid_change_sets_apply_as_their_roles_say(case: tuple[dict[str, str], ChangeSet]) -> None:
    """Deletes and sources vanish, targets take their source's blob unless written, writes land."""
    base, changes = case
    edits = plan_tree_edits(changes, _lookup_in(base))
    expected = dict(base)
    for path in [*changes.deletes, *(m.source for m in changes.moves)]:
        del expected[path]
    for move in changes.moves:
        expected[move.target] = base[move.source]
    for write in changes.writes:
        expected[write.path] = blob_sha(write.data)
    assert expected == _apply(base, edits)
    assert sorted({e.path for e in edits}) == [e.path for e in edits]
    assert all(e.mode == FILE_MODE for e in edits)


@given(valid_change_sets(), st.data())
def test_a_path_in_two_roles_is_refused(
    case: tuple[dict[str, str], ChangeSet], data: st.DataObject
) -> None:
    """Deleting a path the change set also writes or moves (either end) is always refused."""
    base, changes = case
    named = [
        *(w.path for w in changes.writes),
        *(p for m in changes.moves for p in (m.source, m.target)),
    ]
    assume(named)
    clash = data.draw(st.sampled_from(named))
    doubled = ChangeSet(
        writes=changes.writes, deletes=(*changes.deletes, clash), moves=changes.moves
    )
    with pytest.raises(PathRefused) as caught:
        plan_tree_edits(doubled, _lookup_in(base))
    assert REFUSED_CONFLICTING_ROLES == caught.value.reason


@given(bases, paths)
def test_new_paths_never_break_the_tree_shape(files: set[str], path: str) -> None:
    """A write is accepted exactly when the resulting tree has no file above another path."""
    base = {p: blob_sha(p.encode()) for p in files}
    changes = writes({path: b"x"})
    try:
        edits = plan_tree_edits(changes, _lookup_in(base))
    except PathRefused:
        assert not _consistent(set(base) | {path})
    else:
        assert _consistent(set(_apply(base, edits)))


@given(bases, st.lists(paths, min_size=1, max_size=5, unique=True), st.booleans())
@example({"a/b"}, ["a/b/c", "a/d.html", "a/e.html"], False)
def test_the_planner_asks_the_tree_about_each_path_once(
    files: set[str], new: list[str], as_moves: bool
) -> None:
    """Each path is looked up at most once, and never below a path found absent or a file."""
    base = {p: blob_sha(p.encode()) for p in files}
    answer = _lookup_in(base)
    asked: list[str] = []

    def lookup(path: str) -> BaseNode | None:
        asked.append(path)
        return answer(path)

    sources = sorted(base)[: len(new)] if as_moves else []
    changes = ChangeSet(
        writes=tuple(FileWrite(path=p, data=b"x") for p in new[len(sources) :]),
        moves=tuple(FileMove(source=s, target=t) for s, t in zip(sources, new, strict=False)),
    )
    with contextlib.suppress(PathRefused):  # refusals must ask no more than acceptances
        plan_tree_edits(changes, lookup)
    assert len(set(asked)) == len(asked)
    for path in asked:
        parts = path.split("/")
        above = ["/".join(parts[:end]) for end in range(1, len(parts))]
        assert all(answer(a) == BaseNode(kind="tree") for a in above)


def test_the_planner_reports_each_edit_once_by_path() -> None:
    """A moved-and-written target is one edit carrying the written blob."""
    base = {"areas/b.html": blob_sha(b"b")}
    changes = ChangeSet(
        moves=(FileMove(source="areas/b.html", target="archive/2026/areas/b.html"),),
        writes=(FileWrite(path="archive/2026/areas/b.html", data=b"b2"),),
    )
    expected = (
        TreeEdit(path="archive/2026/areas/b.html", blob_sha=blob_sha(b"b2")),
        TreeEdit(path="areas/b.html", blob_sha=None),
    )
    assert expected == plan_tree_edits(changes, _lookup_in(base))


def test_tree_entries_are_plain_values() -> None:
    """Port values compare by value and cannot be mutated."""
    entry = TreeEntry(path="a.html", blob_sha=blob_sha(b""))
    assert TreeEntry(path="a.html", blob_sha=blob_sha(b"")) == entry
    with pytest.raises(AttributeError):
        entry.path = "b.html"  # type: ignore[misc]
