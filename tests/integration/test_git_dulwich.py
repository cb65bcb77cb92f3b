"""What only a real repository can show: bare clones, submodule entries, identity resolution,
symlinks, the on-disk index, lock contention and threads racing for one branch.

Every repository is built with dulwich; no test runs the ``git`` binary.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path

import pytest
from dulwich import porcelain
from dulwich.config import ConfigFile
from dulwich.index import ConflictedIndexEntry, IndexEntry
from dulwich.objects import S_IFGITLINK, Blob, Commit, ObjectID, Tree
from dulwich.refs import HEADREF, Ref
from dulwich.repo import Repo

from memhtml.adapters.git import dulwich_writer
from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import PACK_THRESHOLD, DulwichGitWriter
from memhtml.adapters.git.identity import FALLBACK_EMAIL, FALLBACK_NAME, Identity
from memhtml.ports.errors import GitFailure
from memhtml.ports.git import (
    REFUSED_SYMLINK,
    REFUSED_SYMLINK_ESCAPE,
    DiffEntry,
    PathRefused,
    StatusEntry,
    TreeEntry,
    blob_sha,
)
from memhtml.ports.git_writer import ChangeSet, FileWrite, HeadMoved

IDENTITY_VARIABLES = ("NAME", "EMAIL")


@pytest.fixture(autouse=True)
def no_machine_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the machine's git config and identity variables out of every test."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for kind in ("AUTHOR", "COMMITTER"):
        for part in IDENTITY_VARIABLES:
            monkeypatch.delenv(f"GIT_{kind}_{part}", raising=False)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An initialized, empty repository."""
    path = tmp_path / "repo"
    DulwichGitWriter(path).init()
    return path


def write(root: Path, files: dict[str, bytes], *, env: dict[str, str] | None = None) -> str:
    """Commit files on top of HEAD."""
    changes = ChangeSet(writes=tuple(FileWrite(path=p, data=d) for p, d in files.items()))
    writer = DulwichGitWriter(root, env={} if env is None else env)
    return writer.commit(changes, "write", expected_head=DulwichGit(root).head())


def commit_object(root: Path, sha: str) -> Commit:
    """The dulwich commit object for a sha."""
    with Repo(str(root)) as repo:
        commit = repo[sha.encode()]
    assert isinstance(commit, Commit)
    return commit


# --- init ---------------------------------------------------------------------------------


def test_init_starts_main_and_writes_no_identity(root: Path) -> None:
    """A new repository's HEAD names main, and its config holds no user section."""
    with Repo(str(root)) as repo:
        assert [b"HEAD", b"refs/heads/main"] == repo.refs.follow(HEADREF)[0]
    assert b"[user]" not in (root / ".git" / "config").read_bytes()


# --- bare repositories --------------------------------------------------------------------


def test_a_bare_clone_answers_tree_reads_and_refuses_the_rest(root: Path, tmp_path: Path) -> None:
    """Tree, blob and diff reads work on a bare repository; working-tree operations fail."""
    first = write(root, {"projects/a.html": b"a"})
    second = write(root, {"areas/b.html": b"b"})
    bare = tmp_path / "bare.git"
    with Repo(str(root)) as repo:
        repo.clone(str(bare), bare=True).close()
    git = DulwichGit(bare)
    assert second == git.head()
    expected = (
        TreeEntry(path="areas/b.html", blob_sha=blob_sha(b"b")),
        TreeEntry(path="projects/a.html", blob_sha=blob_sha(b"a")),
    )
    assert expected == git.list_tree(second)
    assert {blob_sha(b"b"): b"b"} == dict(git.read_blobs([blob_sha(b"b")]))
    assert (DiffEntry(status="A", path="areas/b.html"),) == git.diff(first, second)
    for call, operation in [
        (git.status, "status"),
        (lambda: git.read_working_file("areas/b.html"), "read_working_file"),
        (lambda: git.hash_working_file("areas/b.html"), "hash_working_file"),
        (
            lambda: DulwichGitWriter(bare).commit(ChangeSet(), "x", expected_head=second),
            "commit",
        ),
    ]:
        with pytest.raises(GitFailure) as caught:
            call()
        assert f"git operation failed: {operation} (bare repository)" == str(caught.value)
    assert DulwichGitWriter(bare).init() is False


def test_a_sha256_repository_is_refused(tmp_path: Path) -> None:
    """Object ids cross the port as 40 hex digits, so a SHA-256 repository is refused, not
    misread."""
    Repo.init(str(tmp_path), object_format="sha256").close()
    with pytest.raises(GitFailure) as caught:
        DulwichGit(tmp_path).head()
    assert "git operation failed: head (unsupported object format)" == str(caught.value)


def test_a_large_commit_lands_as_one_pack(root: Path) -> None:
    """Past the threshold the blobs go into a pack; they read back and the tree is clean."""
    files = {f"resources/r/m{n}.html": b"<p>%d</p>\n" % n for n in range(PACK_THRESHOLD + 1)}
    sha = write(root, files)
    git = DulwichGit(root)
    entries = git.list_tree(sha)
    blobs = git.read_blobs([entry.blob_sha for entry in entries])
    assert files == {entry.path: blobs[entry.blob_sha] for entry in entries}
    assert 1 == len(list((root / ".git" / "objects" / "pack").glob("*.pack")))
    assert () == git.status()


# --- submodule entries and odd paths -------------------------------------------------------


def _add_gitlink(root: Path, parent: str) -> str:
    """Commit by hand a tree that adds a gitlink at projects/sub, index and disk included."""
    with Repo(str(root)) as repo:
        parent_commit = repo[parent.encode()]
        assert isinstance(parent_commit, Commit)
        tree = repo[parent_commit.tree]
        assert isinstance(tree, Tree)
        projects = repo[tree[b"projects"][1]]
        assert isinstance(projects, Tree)
        projects[b"sub"] = (S_IFGITLINK, ObjectID(parent.encode()))
        repo.object_store.add_object(projects)
        tree[b"projects"] = (0o040000, projects.id)
        repo.object_store.add_object(tree)
        commit = Commit()
        commit.tree = tree.id
        commit.parents = [ObjectID(parent.encode())]
        commit.author = commit.committer = b"t <t@example.invalid>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"submodule\n"
        repo.object_store.add_object(commit)
        repo.refs[Ref(b"refs/heads/main")] = commit.id
        index = repo.open_index()
        index[b"projects/sub"] = IndexEntry(
            ctime=0,
            mtime=0,
            dev=0,
            ino=0,
            mode=S_IFGITLINK,
            uid=0,
            gid=0,
            size=0,
            sha=ObjectID(parent.encode()),
        )
        index.write()
    (root / "projects" / "sub").mkdir()
    return commit.id.decode()


def test_submodule_entries_are_not_blobs(root: Path) -> None:
    """A gitlink is dropped from listings, diffs and status, and survives later commits."""
    first = write(root, {"projects/a.html": b"a"})
    second = _add_gitlink(root, first)
    git = DulwichGit(root)
    assert (TreeEntry(path="projects/a.html", blob_sha=blob_sha(b"a")),) == git.list_tree(second)
    assert () == git.diff(first, second)
    assert () == git.status()
    third = write(root, {"projects/b.html": b"b"})
    with Repo(str(root)) as repo:
        tree = repo[commit_object(root, third).tree]
        assert isinstance(tree, Tree)
        mode, _ = tree.lookup_path(repo.__getitem__, b"projects/sub")
    assert S_IFGITLINK == mode


def test_paths_that_are_not_utf8_are_skipped(root: Path) -> None:
    """A tree path git can hold but text cannot is left out rather than failing the listing."""
    first = write(root, {"projects/a.html": b"a"})
    with Repo(str(root)) as repo:
        blob = Blob.from_string(b"odd")
        repo.object_store.add_object(blob)
        tree = Tree()
        tree[b"\xff.html"] = (0o100644, blob.id)
        tree[b"ok.html"] = (0o100644, blob.id)
        repo.object_store.add_object(tree)
        commit = Commit()
        commit.tree = tree.id
        commit.parents = [ObjectID(first.encode())]
        commit.author = commit.committer = b"t <t@example.invalid>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"odd\n"
        repo.object_store.add_object(commit)
    git = DulwichGit(root)
    sha = commit.id.decode()
    assert ("ok.html",) == tuple(entry.path for entry in git.list_tree(sha))
    assert (
        DiffEntry(status="A", path="ok.html"),
        DiffEntry(status="D", path="projects/a.html"),
    ) == (git.diff(first, sha))


# --- identity -----------------------------------------------------------------------------


def test_identity_falls_back_without_any_configuration(root: Path) -> None:
    """With no variables and no config, author and committer are the documented fallback."""
    commit = commit_object(root, write(root, {"areas/a.html": b"a"}))
    expected = f"{FALLBACK_NAME} <{FALLBACK_EMAIL}>".encode()
    assert (expected, expected) == (commit.author, commit.committer)


def test_identity_variables_win(root: Path) -> None:
    """GIT_AUTHOR_* and GIT_COMMITTER_* name the author and committer, over the config."""
    config_path = root / ".git" / "config"
    config = ConfigFile.from_path(str(config_path))
    config.set((b"user",), b"name", b"Config User")
    config.set((b"user",), b"email", b"config@example.invalid")
    config.write_to_path()
    env = {
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.invalid",
        "GIT_COMMITTER_NAME": "Bot",
        "GIT_COMMITTER_EMAIL": "<bot@example.invalid>",
    }
    commit = commit_object(root, write(root, {"areas/a.html": b"a"}, env=env))
    assert b"Ada <ada@example.invalid>" == commit.author
    assert b"Bot <bot@example.invalid>" == commit.committer


def test_repository_config_is_read_and_never_written(root: Path) -> None:
    """user.name/user.email from the repository config are used; the file stays unchanged."""
    config_path = root / ".git" / "config"
    config = ConfigFile.from_path(str(config_path))
    config.set((b"user",), b"name", b"Config User")
    config.set((b"user",), b"email", b"config@example.invalid")
    config.write_to_path()
    before = config_path.read_bytes()
    commit = commit_object(root, write(root, {"areas/a.html": b"a"}))
    assert b"Config User <config@example.invalid>" == commit.author
    assert before == config_path.read_bytes()


def test_half_an_identity_is_replaced_whole(root: Path) -> None:
    """A name without an email falls back entirely, with the fallback the caller chose."""
    writer = DulwichGitWriter(
        root,
        env={"GIT_AUTHOR_NAME": "Ada", "GIT_COMMITTER_NAME": "Ada"},
        fallback=Identity(name="Agent", email="agent@example.invalid"),
    )
    changes = ChangeSet(writes=(FileWrite(path="areas/a.html", data=b"a"),))
    commit = commit_object(root, writer.commit(changes, "subject\n\nbody", expected_head=None))
    assert b"Agent <agent@example.invalid>" == commit.author
    assert b"subject\n\nbody\n" == commit.message


# --- symlinks -----------------------------------------------------------------------------


def test_writes_never_pass_through_a_symlinked_directory(root: Path, tmp_path: Path) -> None:
    """A directory symlink, out of the root or into .git, refuses the write; nothing lands."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "areas").mkdir()
    os.symlink(outside, root / "areas" / "link")
    os.symlink(root / ".git", root / "g")
    writer = DulwichGitWriter(root, env={})
    for path in ("areas/link/x.html", "g/hooks/post-commit"):
        changes = ChangeSet(writes=(FileWrite(path=path, data=b"x"),))
        with pytest.raises(PathRefused) as caught:
            writer.commit(changes, "x", expected_head=None)
        assert REFUSED_SYMLINK == caught.value.reason
    assert [] == list(outside.iterdir())
    assert not (root / ".git" / "hooks" / "post-commit").exists()
    assert DulwichGit(root).head() is None


def test_reads_never_follow_a_link_out_of_the_root(root: Path, tmp_path: Path) -> None:
    """A symlinked file pointing outside the root is refused; one pointing inside is read."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"secret")
    os.symlink(secret, root / "leak.html")
    (root / "real.html").write_bytes(b"real")
    os.symlink(root / "real.html", root / "alias.html")
    git = DulwichGit(root)
    with pytest.raises(PathRefused) as caught:
        git.read_working_file("leak.html")
    assert REFUSED_SYMLINK_ESCAPE == caught.value.reason
    assert b"real" == git.read_working_file("alias.html")


# --- the index and concurrency -------------------------------------------------------------


def test_the_index_after_a_commit_is_heads_tree(root: Path) -> None:
    """The index the writer leaves builds exactly the committed tree, and dulwich sees no dirt."""
    sha = write(root, {"projects/p/a.html": b"a", "areas/b.html": b"b"})
    with Repo(str(root)) as repo:
        assert commit_object(root, sha).tree == repo.open_index().commit(repo.object_store)
    status = porcelain.status(str(root), optional_locks=False)
    assert ({"add": [], "delete": [], "modify": []}, [], []) == (
        status.staged,
        status.unstaged,
        status.untracked,
    )


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(root: Path) -> None:
    """Same size, mtime put back: the change is still found (ctime and the racy rule)."""
    write(root, {"areas/a.html": b"aaaa"})
    path = root / "areas" / "a.html"
    before = path.stat()
    path.write_bytes(b"bbbb")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (StatusEntry(path="areas/a.html"),) == DulwichGit(root).status()


def test_an_edit_keeping_size_and_mtime_is_seen_by_its_ctime(root: Path) -> None:
    """With the index plainly newer than the file, a same-size edit is still found."""
    write(root, {"areas/a.html": b"aaaa"})
    path = root / "areas" / "a.html"
    before = path.stat()
    path.write_bytes(b"bbbb")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    later = before.st_mtime_ns + 10_000_000_000
    os.utime(root / ".git" / "index", ns=(later, later))
    assert (StatusEntry(path="areas/a.html"),) == DulwichGit(root).status()


def test_unmerged_paths_are_dropped(root: Path) -> None:
    """A path in conflict is left out of status; its neighbours still show."""
    write(root, {"areas/a.html": b"a", "areas/b.html": b"b"})
    (root / "areas" / "b.html").write_bytes(b"b, edited")
    with Repo(str(root)) as repo:
        index = repo.open_index()
        ours = index[b"areas/a.html"]
        assert isinstance(ours, IndexEntry)
        theirs = IndexEntry(
            ctime=0,
            mtime=0,
            dev=0,
            ino=0,
            mode=0o100644,
            uid=0,
            gid=0,
            size=0,
            sha=ObjectID(blob_sha(b"theirs").encode()),
        )
        index[b"areas/a.html"] = ConflictedIndexEntry(this=ours, other=theirs)
        index.write()
    (root / "areas" / "a.html").write_bytes(b"<<<<<<< conflict")
    assert (StatusEntry(path="areas/b.html"),) == DulwichGit(root).status()


def test_a_file_turned_symlink_diffs_as_modified(root: Path) -> None:
    """A type change walks as a delete plus an add of one path and is reported as M."""
    first = write(root, {"areas/a.html": b"a"})
    with Repo(str(root)) as repo:
        link = Blob.from_string(b"elsewhere.html")
        repo.object_store.add_object(link)
        areas = Tree()
        areas[b"a.html"] = (0o120000, link.id)
        tree = Tree()
        tree[b"areas"] = (0o040000, areas.id)
        repo.object_store.add_object(areas)
        repo.object_store.add_object(tree)
        commit = Commit()
        commit.tree = tree.id
        commit.parents = [ObjectID(first.encode())]
        commit.author = commit.committer = b"t <t@example.invalid>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"link\n"
        repo.object_store.add_object(commit)
    second = commit.id.decode()
    assert (DiffEntry(status="M", path="areas/a.html"),) == DulwichGit(root).diff(first, second)


class _MovingClock:
    """A clock that, when read mid-commit, lets a foreign writer move the branch."""

    def __init__(self, root: Path, to: str) -> None:
        self.root, self.to = root, to

    def now(self) -> dt.datetime:
        with Repo(str(self.root)) as repo:
            repo.refs[Ref(b"refs/heads/main")] = ObjectID(self.to.encode())
        return dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def test_a_foreign_ref_move_mid_commit_is_caught(root: Path) -> None:
    """A branch moved after the HEAD check (by a writer not taking the index lock) fails the
    compare-and-swap: HeadMoved, and the working tree is left alone."""
    first = write(root, {"areas/a.html": b"a"})
    second = write(root, {"areas/b.html": b"b"})
    writer = DulwichGitWriter(root, env={}, clock=_MovingClock(root, first))
    changes = ChangeSet(writes=(FileWrite(path="areas/c.html", data=b"c"),))
    with pytest.raises(HeadMoved) as caught:
        writer.commit(changes, "c", expected_head=second)
    assert (second, first) == (caught.value.expected, caught.value.actual)
    assert not (root / "areas" / "c.html").exists()


def test_a_failure_after_head_moved_keeps_the_index_true(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If the working files cannot be updated once HEAD moved, the commit stands, the index
    describes it, and status shows the file that did not land."""
    first = write(root, {"areas/a.html": b"a"})

    def disk_full(*_: object) -> None:
        raise OSError("no space left on device")

    monkeypatch.setattr(dulwich_writer, "apply_change_set", disk_full)
    changes = ChangeSet(writes=(FileWrite(path="areas/b.html", data=b"b"),))
    with pytest.raises(GitFailure):
        DulwichGitWriter(root, env={}).commit(changes, "b", expected_head=first)
    git = DulwichGit(root)
    head = git.head()
    assert head is not None
    assert first != head
    with Repo(str(root)) as repo:
        assert commit_object(root, head).tree == repo.open_index().commit(repo.object_store)
    assert (StatusEntry(path="areas/b.html", deleted=True),) == git.status()


def test_a_held_index_lock_reads_as_head_moved(root: Path) -> None:
    """Another writer's lock refuses the commit without touching anything; released, it lands."""
    first = write(root, {"areas/a.html": b"a"})
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")
    changes = ChangeSet(writes=(FileWrite(path="areas/b.html", data=b"b"),))
    writer = DulwichGitWriter(root, env={})
    with pytest.raises(HeadMoved):
        writer.commit(changes, "b", expected_head=first)
    assert not (root / "areas" / "b.html").exists()
    lock.unlink()
    assert first != writer.commit(changes, "b", expected_head=first)


def test_racing_threads_all_land(root: Path) -> None:
    """Writers racing on one branch, each retrying on HeadMoved, all land exactly once."""
    first = write(root, {"areas/seed.html": b"seed"})
    writers = 4
    failures: list[BaseException] = []

    def run(number: int) -> None:
        git, writer = DulwichGit(root), DulwichGitWriter(root, env={})
        changes = ChangeSet(writes=(FileWrite(path=f"areas/t{number}.html", data=b"%d" % number),))
        for _ in range(100_000):
            try:
                writer.commit(changes, f"thread {number}", expected_head=git.head())
            except HeadMoved:
                continue
            except BaseException as error:  # surfaced in the main thread below
                failures.append(error)
            return
        failures.append(AssertionError("never landed"))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [] == failures
    git = DulwichGit(root)
    head = git.head()
    assert head is not None
    paths = {entry.path for entry in git.list_tree(head)}
    assert {"areas/seed.html", *(f"areas/t{n}.html" for n in range(writers))} == paths
    chain = [head]
    while chain[-1] != first:
        chain.append(commit_object(root, chain[-1]).parents[0].decode())
    assert writers + 1 == len(chain)
    assert () == git.status()
