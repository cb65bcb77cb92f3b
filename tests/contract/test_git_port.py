"""The git read port's contract, run against the dulwich adapter on a real repository in
``tmp_path`` and against the in-memory fake: the same assertions for both.

Repositories are built through the writer port, never the ``git`` binary.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import pytest
from dulwich.objects import Blob, Commit
from dulwich.repo import Repo
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.adapters.git.inotify_watch import InotifyTreeWatch
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import (
    REFUSED_ABSOLUTE,
    REFUSED_CHARACTER,
    REFUSED_DOT_SEGMENT,
    REFUSED_EMPTY,
    REFUSED_EMPTY_SEGMENT,
    REFUSED_GIT_DIR,
    DiffEntry,
    GitPort,
    PathRefused,
    StatusEntry,
    TreeEntry,
    blob_sha,
    check_repo_path,
)
from memhtml.ports.git_writer import ChangeSet, FileMove, FileWrite, GitWriter
from tests.fakes.git import FakeGit

PARA = ("projects", "areas", "resources", "archive")


class GitHarness(Protocol):
    """One repository behind both ports, plus the hand edits a person would make."""

    git: GitPort
    writer: GitWriter

    def write_file(self, path: str, data: bytes) -> None: ...

    def remove_file(self, path: str) -> None: ...

    def stage_move(self, source: str, target: str) -> None: ...

    def stage_remove(self, path: str) -> None: ...

    def detach_head(self) -> None: ...

    def history(self) -> tuple[str, ...]: ...

    def second_writer(self) -> GitWriter: ...


class DulwichHarness:
    """A real repository under ``tmp_path``, edited through the file system and dulwich."""

    def __init__(self, root: Path, *, watched: bool = False) -> None:
        self.root = root
        # Watched: status amends its first walk from inotify events (adapters/git/watched_status).
        watch = InotifyTreeWatch(root) if watched else None
        self.git: GitPort = DulwichGit(root, watch=watch, arm_watch_at=1)
        self.writer: GitWriter = DulwichGitWriter(root, env={})

    def write_file(self, path: str, data: bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)

    def remove_file(self, path: str) -> None:
        (self.root / path).unlink()

    def stage_move(self, source: str, target: str) -> None:
        with Repo(str(self.root)) as repo:
            index = repo.open_index()
            entry = index[source.encode()]
            del index[source.encode()]
            index[target.encode()] = entry
            (self.root / target).parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.root / source, self.root / target)
            index.write()

    def stage_remove(self, path: str) -> None:
        with Repo(str(self.root)) as repo:
            index = repo.open_index()
            del index[path.encode()]
            (self.root / path).unlink(missing_ok=True)
            index.write()

    def detach_head(self) -> None:
        head = self.git.head()
        assert head is not None
        (self.root / ".git" / "HEAD").write_text(head + "\n")

    def history(self) -> tuple[str, ...]:
        found: list[str] = []
        with Repo(str(self.root)) as repo:
            sha = self.git.head()
            while sha is not None:
                found.append(sha)
                commit = repo[sha.encode()]
                assert isinstance(commit, Commit)
                sha = commit.parents[0].decode() if commit.parents else None
        return tuple(found)

    def second_writer(self) -> GitWriter:
        return DulwichGitWriter(self.root, env={})


class FakeHarness:
    """The in-memory fake; both ports are the same object."""

    def __init__(self, fake: FakeGit) -> None:
        self.fake = fake
        self.git: GitPort = fake
        self.writer: GitWriter = fake

    def write_file(self, path: str, data: bytes) -> None:
        self.fake.write_file(path, data)

    def remove_file(self, path: str) -> None:
        self.fake.remove_file(path)

    def stage_move(self, source: str, target: str) -> None:
        self.fake.stage_move(source, target)

    def stage_remove(self, path: str) -> None:
        self.fake.stage_remove(path)

    def detach_head(self) -> None:
        self.fake.detach_head()

    def history(self) -> tuple[str, ...]:
        return self.fake.history()

    def second_writer(self) -> GitWriter:
        return self.fake


IMPLEMENTATIONS = ("dulwich", "dulwich-watched", "fake")


def make_harness(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, initialized: bool = True
) -> GitHarness:
    """A harness of the given kind; the machine's git config and identity are kept out."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    if kind == "fake":
        return FakeHarness(FakeGit(initialized=initialized))
    harness = DulwichHarness(tmp_path / "repo", watched=kind == "dulwich-watched")
    if initialized:
        harness.writer.init()
    return harness


@pytest.fixture(params=IMPLEMENTATIONS)
def harness(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> GitHarness:
    """An initialized, empty repository of each implementation."""
    return make_harness(request.param, tmp_path, monkeypatch)


def land(harness: GitHarness, changes: ChangeSet, message: str = "change") -> str:
    """Commit on top of the current HEAD."""
    return harness.writer.commit(changes, message, expected_head=harness.git.head())


def writes(files: dict[str, bytes]) -> ChangeSet:
    """A change set that only writes."""
    return ChangeSet(writes=tuple(FileWrite(path=p, data=d) for p, d in files.items()))


LAYOUT = {
    "projects/checkout/a.html": b"<p>alpha</p>\n",
    "areas/inbox/b.html": b"<p>beta</p>\n",
    "resources/rate-limits/c.html": b"<p>gamma</p>\n",
    "archive/2025/projects/d.html": b"<p>delta</p>\n",
    "projects-old/e.html": b"<p>epsilon</p>\n",
    "README.html": b"<p>readme</p>\n",
    ".memhtml/state/access.jsonl": b"{}\n",
}


@pytest.fixture
def laid_out(harness: GitHarness) -> tuple[GitHarness, str]:
    """A repository holding LAYOUT in one commit, and that commit."""
    return harness, land(harness, writes(LAYOUT))


# --- HEAD ---------------------------------------------------------------------------------


def test_unborn_head_is_none(harness: GitHarness) -> None:
    """A repository with no commit reports no HEAD rather than failing."""
    assert harness.git.head() is None


def test_head_is_the_commit_just_landed(harness: GitHarness) -> None:
    """HEAD names the commit the writer returned."""
    sha = land(harness, writes({"areas/inbox/x.html": b"x"}))
    assert sha == harness.git.head()


def test_detached_head_reports_the_commit(laid_out: tuple[GitHarness, str]) -> None:
    """A detached HEAD still answers with its commit, and its tree lists."""
    harness, sha = laid_out
    harness.detach_head()
    assert sha == harness.git.head()
    assert len(harness.git.list_tree("HEAD", PARA)) == 4


# --- list_tree ----------------------------------------------------------------------------


def test_list_tree_keeps_only_the_prefixes(laid_out: tuple[GitHarness, str]) -> None:
    """Only paths under a PARA bucket come back, by path, with git's blob shas."""
    harness, sha = laid_out
    expected = tuple(
        TreeEntry(path=p, blob_sha=blob_sha(LAYOUT[p]))
        for p in sorted(LAYOUT)
        if p.split("/")[0] in PARA
    )
    assert expected == harness.git.list_tree(sha, PARA)


def test_list_tree_without_prefixes_is_the_whole_tree(laid_out: tuple[GitHarness, str]) -> None:
    """No prefixes lists every blob of the tree."""
    harness, sha = laid_out
    assert sorted(LAYOUT) == [entry.path for entry in harness.git.list_tree(sha)]


def test_list_tree_prefix_forms(laid_out: tuple[GitHarness, str]) -> None:
    """A trailing slash, a file prefix, an overlap and a missing prefix behave like git."""
    harness, sha = laid_out
    assert ["projects/checkout/a.html"] == [
        e.path for e in harness.git.list_tree(sha, ("projects/", "projects/checkout"))
    ]
    assert ["README.html"] == [e.path for e in harness.git.list_tree(sha, ("README.html",))]
    assert () == harness.git.list_tree(sha, ("nothing-here",))


def test_list_tree_reads_an_older_commit(laid_out: tuple[GitHarness, str]) -> None:
    """A ref names its own tree, not HEAD's."""
    harness, first = laid_out
    land(harness, writes({"areas/inbox/new.html": b"new"}))
    assert 4 == len(harness.git.list_tree(first, PARA))
    assert 5 == len(harness.git.list_tree("HEAD", PARA))


# --- read_blobs ---------------------------------------------------------------------------


def test_read_blobs_returns_each_blob(laid_out: tuple[GitHarness, str]) -> None:
    """One batch read returns every requested blob's bytes; a repeated sha is fine."""
    harness, sha = laid_out
    entries = harness.git.list_tree(sha, PARA)
    shas = [entry.blob_sha for entry in entries]
    expected = {blob_sha(LAYOUT[e.path]): LAYOUT[e.path] for e in entries}
    assert expected == dict(harness.git.read_blobs([*shas, shas[0]]))


# --- diff ---------------------------------------------------------------------------------


def test_diff_reports_rename_modify_delete_add(laid_out: tuple[GitHarness, str]) -> None:
    """The archive move is an R with its source; edits, deletions and additions follow."""
    harness, first = laid_out
    second = land(
        harness,
        ChangeSet(
            writes=(
                FileWrite(path="areas/inbox/b.html", data=b"<p>beta, edited</p>\n"),
                FileWrite(path="resources/new.html", data=b"<p>new</p>\n"),
            ),
            deletes=("resources/rate-limits/c.html",),
            moves=(
                FileMove(
                    source="projects/checkout/a.html",
                    target="archive/2026/projects/checkout/a.html",
                ),
            ),
        ),
    )
    expected = (
        DiffEntry(
            status="R",
            path="archive/2026/projects/checkout/a.html",
            from_path="projects/checkout/a.html",
        ),
        DiffEntry(status="M", path="areas/inbox/b.html"),
        DiffEntry(status="A", path="resources/new.html"),
        DiffEntry(status="D", path="resources/rate-limits/c.html"),
    )
    assert expected == harness.git.diff(first, second)


def test_diff_sees_an_edited_move_as_a_rename(harness: GitHarness) -> None:
    """A move whose file was stamped on the way (one line of twenty) is still a rename."""
    body = b"".join(b"<p>line %d of the memory</p>\n" % n for n in range(20))
    first = land(harness, writes({"projects/p/m.html": body}))
    stamped = body.replace(b"line 3 of", b"LINE 3 OF")
    second = land(
        harness,
        ChangeSet(
            moves=(FileMove(source="projects/p/m.html", target="archive/2026/projects/p/m.html"),),
            writes=(FileWrite(path="archive/2026/projects/p/m.html", data=stamped),),
        ),
    )
    expected = (
        DiffEntry(status="R", path="archive/2026/projects/p/m.html", from_path="projects/p/m.html"),
    )
    assert expected == harness.git.diff(first, second)


def test_diff_sees_unrelated_content_as_delete_and_add(harness: GitHarness) -> None:
    """A deletion and an addition with nothing in common are not paired."""
    first = land(harness, writes({"areas/x.html": b"one\ntwo\nthree\n"}))
    second = land(
        harness,
        ChangeSet(
            deletes=("areas/x.html",),
            writes=(FileWrite(path="areas/y.html", data=b"four\nfive\nsix\n"),),
        ),
    )
    expected = (
        DiffEntry(status="D", path="areas/x.html"),
        DiffEntry(status="A", path="areas/y.html"),
    )
    assert expected == harness.git.diff(first, second)


def test_diff_maps_a_copy_to_an_add(laid_out: tuple[GitHarness, str]) -> None:
    """A new file equal to one that stays is an add: the copy's source still exists."""
    harness, first = laid_out
    second = land(harness, writes({"areas/copy.html": LAYOUT["areas/inbox/b.html"]}))
    assert (DiffEntry(status="A", path="areas/copy.html"),) == harness.git.diff(first, second)


def test_diff_maps_a_match_with_modified_content_to_an_add(harness: GitHarness) -> None:
    """A new file holding what an edited file used to hold is a copy, so an add, even when a
    similar file was deleted in the same commit."""
    body = b"".join(b"<p>line %d</p>\n" % n for n in range(10))
    first = land(harness, writes({"areas/a.html": body, "areas/b.html": body + b"<p>+</p>\n"}))
    second = land(
        harness,
        ChangeSet(
            writes=(
                FileWrite(path="areas/a.html", data=b"<p>rewritten</p>\n"),
                FileWrite(path="areas/c.html", data=body),
            ),
            deletes=("areas/b.html",),
        ),
    )
    expected = (
        DiffEntry(status="M", path="areas/a.html"),
        DiffEntry(status="D", path="areas/b.html"),
        DiffEntry(status="A", path="areas/c.html"),
    )
    assert expected == harness.git.diff(first, second)


def test_diff_from_the_empty_tree_adds_everything(laid_out: tuple[GitHarness, str]) -> None:
    """An unborn side is the empty tree; a commit against itself has no changes."""
    harness, sha = laid_out
    expected = tuple(DiffEntry(status="A", path=p) for p in sorted(LAYOUT))
    assert expected == harness.git.diff(None, sha)
    assert () == harness.git.diff(sha, sha)


def test_only_a_rename_carries_a_source() -> None:
    """A diff row has a from_path exactly when it is a rename."""
    with pytest.raises(ValueError, match="from_path"):
        DiffEntry(status="R", path="b.html")
    with pytest.raises(ValueError, match="from_path"):
        DiffEntry(status="M", path="b.html", from_path="a.html")


# --- status -------------------------------------------------------------------------------


def test_status_is_empty_after_a_commit(laid_out: tuple[GitHarness, str]) -> None:
    """A commit leaves the working tree and the index equal to HEAD."""
    harness, _ = laid_out
    assert () == harness.git.status()


def test_status_reports_every_kind_of_dirt(harness: GitHarness) -> None:
    """Unstaged edit, untracked file, staged rename, deletions staged or not show; ignored
    files do not."""
    land(
        harness,
        writes(
            {
                ".gitignore": b".memhtml/index.db\n*.tmp\n",
                "areas/edit.html": b"before\n",
                "areas/gone.html": b"gone\n",
                "areas/removed.html": b"removed\n",
                "projects/p/moved.html": b"moved\n",
            }
        ),
    )
    harness.write_file("areas/edit.html", b"after, and longer\n")
    harness.write_file("areas/new.html", b"untracked\n")
    harness.remove_file("areas/gone.html")
    harness.stage_remove("areas/removed.html")
    harness.stage_move("projects/p/moved.html", "archive/2026/projects/p/moved.html")
    harness.write_file(".memhtml/index.db", b"ignored")
    harness.write_file("areas/scratch.tmp", b"ignored")
    expected = (
        StatusEntry(path="archive/2026/projects/p/moved.html", from_path="projects/p/moved.html"),
        StatusEntry(path="areas/edit.html"),
        StatusEntry(path="areas/gone.html", deleted=True),
        StatusEntry(path="areas/new.html"),
        StatusEntry(path="areas/removed.html", deleted=True),
    )
    assert sorted(expected, key=lambda e: e.path) == list(harness.git.status())


def test_status_marks_a_staged_rename_deleted_from_disk(harness: GitHarness) -> None:
    """A staged rename whose destination then vanished keeps its source and is deleted."""
    land(harness, writes({"projects/p/m.html": b"m\n"}))
    harness.stage_move("projects/p/m.html", "archive/2026/m.html")
    harness.remove_file("archive/2026/m.html")
    expected = (
        StatusEntry(path="archive/2026/m.html", deleted=True, from_path="projects/p/m.html"),
    )
    assert expected == harness.git.status()


# --- working files ------------------------------------------------------------------------


def test_hash_working_file_equals_the_committed_blob(laid_out: tuple[GitHarness, str]) -> None:
    """A clean file hashes to the blob sha its tree entry carries."""
    harness, sha = laid_out
    for entry in harness.git.list_tree(sha, PARA):
        assert entry.blob_sha == harness.git.hash_working_file(entry.path)


def test_read_working_file_sees_uncommitted_bytes(laid_out: tuple[GitHarness, str]) -> None:
    """The working file is read as it is on disk, not as committed."""
    harness, _ = laid_out
    harness.write_file("areas/inbox/b.html", b"edited")
    assert b"edited" == harness.git.read_working_file("areas/inbox/b.html")
    assert blob_sha(b"edited") == harness.git.hash_working_file("areas/inbox/b.html")


UNSAFE = [
    ("/etc/passwd", REFUSED_ABSOLUTE),
    ("../outside.html", REFUSED_DOT_SEGMENT),
    ("areas/../../outside.html", REFUSED_DOT_SEGMENT),
    ("areas/./x.html", REFUSED_DOT_SEGMENT),
    ("", REFUSED_EMPTY),
    ("areas//x.html", REFUSED_EMPTY_SEGMENT),
    (".git/config", REFUSED_GIT_DIR),
    ("areas/.GIT/x", REFUSED_GIT_DIR),
    ("areas\\x.html", REFUSED_CHARACTER),
]


@pytest.mark.parametrize(("path", "reason"), UNSAFE)
def test_working_file_reads_refuse_unsafe_paths(
    laid_out: tuple[GitHarness, str], path: str, reason: str
) -> None:
    """Reads refuse a path that could leave the working tree, naming why."""
    harness, _ = laid_out
    for read in (harness.git.read_working_file, harness.git.hash_working_file):
        with pytest.raises(PathRefused) as caught:
            read(path)
        assert reason == caught.value.reason


# --- failures -----------------------------------------------------------------------------

FAILING_CALLS: list[tuple[str, Callable[[GitPort], object]]] = [
    ("read_blobs", lambda git: git.read_blobs(["0" * 40])),
    ("read_blobs", lambda git: git.read_blobs(["not a sha"])),
    ("list_tree", lambda git: git.list_tree("0" * 40)),
    ("list_tree", lambda git: git.list_tree("no-such-branch")),
    ("diff", lambda git: git.diff("0" * 40, None)),
    ("read_working_file", lambda git: git.read_working_file("areas/missing.html")),
    ("hash_working_file", lambda git: git.hash_working_file("areas/missing.html")),
]


@pytest.mark.parametrize(("operation", "call"), FAILING_CALLS, ids=[f[0] for f in FAILING_CALLS])
def test_failures_name_the_operation_only(
    laid_out: tuple[GitHarness, str], operation: str, call: Callable[[GitPort], object]
) -> None:
    """Every failure is a GitFailure whose message is the operation, no git output."""
    harness, _ = laid_out
    with pytest.raises(GitFailure) as caught:
        call(harness.git)
    assert GitFailure is type(caught.value)
    assert f"git operation failed: {operation}" == str(caught.value)


READS: list[tuple[str, Callable[[GitPort], object]]] = [
    ("head", lambda git: git.head()),
    ("list_tree", lambda git: git.list_tree("HEAD")),
    ("read_blobs", lambda git: git.read_blobs([])),
    ("diff", lambda git: git.diff(None, None)),
    ("status", lambda git: git.status()),
    ("read_working_file", lambda git: git.read_working_file("a.html")),
]


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
@pytest.mark.parametrize(("operation", "call"), READS, ids=[r[0] for r in READS])
def test_reads_fail_cleanly_without_a_repository(
    kind: str,
    operation: str,
    call: Callable[[GitPort], object],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before ``init`` every read is a GitFailure naming its operation."""
    harness = make_harness(kind, tmp_path, monkeypatch, initialized=False)
    with pytest.raises(GitFailure) as caught:
        call(harness.git)
    assert f"git operation failed: {operation}" == str(caught.value)


# --- pure helpers -------------------------------------------------------------------------

segments = st.text(alphabet="abcdefghij-_.0123456789", min_size=1, max_size=8).filter(
    lambda s: s not in {".", ".."} and s.lower() != ".git"
)
safe_paths = st.lists(segments, min_size=1, max_size=5).map("/".join)


@given(safe_paths)
@example("archive/2026/projects/a.html")
def test_safe_paths_pass_unchanged(path: str) -> None:
    """A relative path of ordinary segments is accepted as given."""
    assert path == check_repo_path(path, "op")


@given(
    st.lists(segments, min_size=1, max_size=4),
    st.sampled_from(
        [
            ("..", REFUSED_DOT_SEGMENT),
            (".", REFUSED_DOT_SEGMENT),
            ("", REFUSED_EMPTY_SEGMENT),
            (".Git", REFUSED_GIT_DIR),
        ]
    ),
    st.data(),
)
def test_one_bad_segment_anywhere_refuses(
    parts: list[str], bad: tuple[str, str], data: st.DataObject
) -> None:
    """A single dot, dot-dot, empty or .git segment at any position refuses the path."""
    segment, reason = bad
    position = data.draw(st.integers(min_value=0, max_value=len(parts)))
    path = "/".join([*parts[:position], segment, *parts[position:]])
    with pytest.raises(PathRefused) as caught:
        check_repo_path(path, "op")
    expected = REFUSED_ABSOLUTE if path.startswith("/") else reason
    assert expected == caught.value.reason


@given(safe_paths)
def test_a_leading_slash_refuses(path: str) -> None:
    """An absolute path is refused as absolute."""
    with pytest.raises(PathRefused) as caught:
        check_repo_path("/" + path, "op")
    assert REFUSED_ABSOLUTE == caught.value.reason


@given(st.binary(max_size=2048))
@example(b"")
def test_blob_sha_is_gits(data: bytes) -> None:
    """The port's blob sha is the one git (here dulwich) gives the same bytes."""
    assert Blob.from_string(data).id.decode() == blob_sha(data)


# --- commit_at (read --known-at) ----------------------------------------------------------

EPOCH_2026 = 1_767_225_600  # 2026-01-01T00:00:00Z


class SteppingClock:
    """Hands out the listed instants (seconds since the epoch) in order, one per commit."""

    def __init__(self, seconds: list[int]) -> None:
        self._left = list(seconds)

    def now(self) -> dt.datetime:
        return dt.datetime.fromtimestamp(self._left.pop(0), dt.UTC)


def timed_repository(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: list[int]
) -> tuple[GitPort, GitWriter]:
    """An initialized, empty repository whose commits are stamped with ``seconds`` in turn."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    clock = SteppingClock(seconds)
    if kind == "fake":
        fake = FakeGit(clock=clock)
        return fake, fake
    root = tmp_path / "repo"
    writer = DulwichGitWriter(root, clock=clock, env={})
    writer.init()
    return DulwichGit(root), writer


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
def test_commit_at_answers_with_the_last_commit_not_after_the_instant(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three commits an hour apart: an instant between two names the older, an instant on a
    commit names that commit, and one before the first names none."""
    git, writer = timed_repository(
        kind, tmp_path, monkeypatch, [EPOCH_2026, EPOCH_2026 + 3600, EPOCH_2026 + 7200]
    )
    shas = []
    for n in range(3):
        change = writes({"areas/inbox/a.html": f"<p>v{n}</p>\n".encode()})
        shas.append(writer.commit(change, f"v{n}", expected_head=git.head()))
    asked = [EPOCH_2026 - 1, EPOCH_2026, EPOCH_2026 + 3599, EPOCH_2026 + 3600, EPOCH_2026 + 10**6]
    assert [None, shas[0], shas[0], shas[1], shas[2]] == [git.commit_at(t) for t in asked]


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
def test_commit_at_stops_at_the_first_commit_not_after_the_instant(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock that ran backwards: walking back from HEAD, the first commit not after the
    instant wins, so an older commit stamped later never answers."""
    git, writer = timed_repository(kind, tmp_path, monkeypatch, [EPOCH_2026 + 100, EPOCH_2026])
    first = writer.commit(writes({"a.html": b"1"}), "one", expected_head=None)
    second = writer.commit(writes({"a.html": b"2"}), "two", expected_head=first)
    assert (second, None) == (git.commit_at(EPOCH_2026 + 100), git.commit_at(EPOCH_2026 - 1))


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
def test_commit_at_on_an_unborn_head_is_none(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No commit yet: nothing was known at any instant."""
    git, _ = timed_repository(kind, tmp_path, monkeypatch, [])
    assert None is git.commit_at(EPOCH_2026)


# --- recent_commits (a command's own commit, found by its trailer) ----------------------------


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
def test_recent_commits_walk_first_parents_from_head_with_whole_messages(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Newest first, each with its first parent and its message as written (trailers and
    non-ASCII kept), cut at ``limit``; an unborn HEAD has none."""
    git, writer = timed_repository(kind, tmp_path, monkeypatch, [EPOCH_2026 + n for n in range(3)])
    assert () == git.recent_commits(5)
    messages = ["memhtml(write): one\n", "memhtml(archive): zwei — ü\n", "three\n\nMemhtml-X: y\n"]
    shas: list[str] = []
    for n, message in enumerate(messages):
        change = writes({"areas/inbox/a.html": f"<p>v{n}</p>\n".encode()})
        shas.append(writer.commit(change, message, expected_head=git.head()))
    notes = git.recent_commits(5)
    assert [(shas[2], shas[1]), (shas[1], shas[0]), (shas[0], None)] == [
        (note.sha, note.parent) for note in notes
    ]
    assert messages[::-1] == [note.message for note in notes]
    assert notes[:2] == git.recent_commits(2)
    assert () == git.recent_commits(0)


# --- first_parent_changes (the transaction-time spans) ---------------------------------------


@pytest.mark.parametrize("kind", IMPLEMENTATIONS)
def test_first_parent_changes_list_each_commits_blobs_oldest_first(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Add, edit, rename and delete: each commit's changed paths with their blob after it (a
    rename is a path gone and a path added); from a stop on the line only what follows it; a
    stop off the line is None; an unborn HEAD has an empty line."""
    git, writer = timed_repository(kind, tmp_path, monkeypatch, [EPOCH_2026 + n for n in range(3)])
    assert () == git.first_parent_changes(None)
    a, b = b"<p>a</p>\n", b"<p>b</p>\n"
    one = writer.commit(
        writes({"areas/x/a.html": a, "areas/x/b.html": b}), "one", expected_head=None
    )
    two = writer.commit(
        ChangeSet(writes=(FileWrite(path="areas/x/a.html", data=b),), deletes=("areas/x/b.html",)),
        "two",
        expected_head=one,
    )
    three = writer.commit(
        ChangeSet(moves=(FileMove(source="areas/x/a.html", target="areas/y/a.html"),)),
        "three",
        expected_head=two,
    )
    line = git.first_parent_changes(None)
    assert line is not None
    assert [(one, EPOCH_2026), (two, EPOCH_2026 + 1), (three, EPOCH_2026 + 2)] == [
        (step.sha, step.at) for step in line
    ]
    assert [
        (("areas/x/a.html", blob_sha(a)), ("areas/x/b.html", blob_sha(b))),
        (("areas/x/a.html", blob_sha(b)), ("areas/x/b.html", None)),
        (("areas/x/a.html", None), ("areas/y/a.html", blob_sha(b))),
    ] == [step.changes for step in line]
    assert line[1:] == git.first_parent_changes(one)
    assert () == git.first_parent_changes(three)
    assert None is git.first_parent_changes("f" * 40)
