"""Status amended from real inotify events equals a full walk, after every kind of change.

Every test here runs against the kernel's inotify on a real repository in a temporary folder;
changes by "another process" are made in a real subprocess. inotify queues an event inside
the system call that makes the change, so a change that returned before ``status`` drains the
queue is in it: nothing here waits or times anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.adapters.git.inotify_watch import InotifyTreeWatch
from memhtml.ports.git import StatusEntry
from memhtml.ports.git_writer import ChangeSet, FileWrite
from tests.integration.test_git_status_cache import (
    CONTENTS,
    PATHS,
    HandWrite,
    Step,
    _apply,
    oracle,
    steps,
)

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="inotify is Linux's; elsewhere status walks"
)

MEMORIES = {
    "projects/alpha/a.html": b"<p>alpha</p>\n",
    "projects/alpha/deep/b.html": b"<p>beta</p>\n",
    "areas/inbox/c.html": b"<p>gamma</p>\n",
    "resources/d.html": b"<p>delta</p>\n",
}


@attrs.frozen
class Store:
    """A repository, its writer, a watched port and a plain one."""

    root: Path
    writer: DulwichGitWriter
    watched: DulwichGit
    plain: DulwichGit

    def both(self) -> tuple[tuple[StatusEntry, ...], tuple[StatusEntry, ...]]:
        """(watched status, walked status), the watched one asked first."""
        return self.watched.status(), self.plain.status()


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """Four committed memories, ``.memhtml`` ignored, a watched port with its baseline."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "repo"
    writer = DulwichGitWriter(root, env={})
    writer.init()
    (root / ".gitignore").write_bytes(b".memhtml/\n")
    writes = (*(FileWrite(path=p, data=d) for p, d in MEMORIES.items()),)
    writes += (FileWrite(path=".gitignore", data=b".memhtml/\n"),)
    writer.commit(ChangeSet(writes=writes), "seed", expected_head=None)
    (root / ".memhtml").mkdir()
    watched = DulwichGit(
        root, status_cache=root / ".memhtml" / "gitstatus", watch=InotifyTreeWatch(root)
    )
    built = Store(root=root, writer=writer, watched=watched, plain=DulwichGit(root))
    assert () == watched.status()  # the first status walks; the second arms, then walks
    assert () == watched.status()
    assert 2 == watched.status_walks
    return built


def _run_elsewhere(code: str, root: Path) -> None:
    """Run ``code`` in another Python process with the working directory at ``root``."""
    subprocess.run([sys.executable, "-c", code], cwd=root, check=True)


def _git(root: Path, *args: str) -> None:
    identity = ("-c", "user.name=Someone", "-c", "user.email=someone@example.invalid")
    subprocess.run(["git", "-C", str(root), *identity, *args], check=True, capture_output=True)


def test_a_quiet_tree_is_answered_without_a_walk(store: Store) -> None:
    """With no event since the baseline, status answers and walks nothing."""
    answers = [store.watched.status() for _ in range(3)]
    assert ([(), (), ()], 2) == (answers, store.watched.status_walks)


def test_an_edit_by_another_process_is_seen_without_a_walk(store: Store) -> None:
    """An edit made by another process, same size and in the same tick, is in the next status."""
    path = store.root / "projects/alpha/a.html"
    before = os.lstat(path)
    _run_elsewhere("open('projects/alpha/a.html', 'wb').write(b'<p>ALPHA</p>\\n')", store.root)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the stamp says nothing
    watched, walked = store.both()
    expected = (StatusEntry(path="projects/alpha/a.html", deleted=False),)
    assert (expected, expected, 2) == (watched, walked, store.watched.status_walks)


def test_create_delete_and_rename_are_seen_without_a_walk(store: Store) -> None:
    """A new file, a deleted one and a renamed one, each seen by the next status."""
    results = []
    (store.root / "areas/inbox/new.html").write_bytes(b"<p>new</p>\n")
    results.append(store.both())
    (store.root / "resources/d.html").unlink()
    results.append(store.both())
    os.rename(store.root / "areas/inbox/c.html", store.root / "areas/inbox/c2.html")
    results.append(store.both())
    assert all(watched == walked for watched, walked in results)
    assert [1, 2, 4] == [len(watched) for watched, _ in results]
    assert 2 == store.watched.status_walks


def test_an_editor_writing_through_a_temporary_file_is_seen(store: Store) -> None:
    """A temporary file renamed over a memory (what editors do) is one modification."""
    temporary = store.root / "projects/alpha/.a.html.swp"
    temporary.write_bytes(b"<p>edited</p>\n")
    os.replace(temporary, store.root / "projects/alpha/a.html")
    watched, walked = store.both()
    expected = (StatusEntry(path="projects/alpha/a.html", deleted=False),)
    assert (expected, expected, 2) == (watched, walked, store.watched.status_walks)


def test_a_new_directory_and_its_files_are_seen(store: Store) -> None:
    """Folders created with files inside (before any watch could exist) are listed."""
    _run_elsewhere(
        "import os; os.makedirs('projects/new/deeper'); "
        "open('projects/new/deeper/n.html', 'wb').write(b'n'); "
        "open('projects/new/m.html', 'wb').write(b'm')",
        store.root,
    )
    first = store.both()
    (store.root / "projects/new/deeper/later.html").write_bytes(b"later")
    second = store.both()
    assert (first[1], second[1]) == (first[0], second[0])
    assert (2, 3, 2) == (len(first[0]), len(second[0]), store.watched.status_walks)


def test_a_removed_directory_is_seen(store: Store) -> None:
    """A folder of tracked memories removed whole: each memory is deleted."""
    shutil.rmtree(store.root / "projects/alpha")
    watched, walked = store.both()
    assert (walked, 2) == (watched, len(watched))
    assert all(entry.deleted for entry in watched)


def test_a_commit_by_git_in_another_process_is_seen(store: Store) -> None:
    """``git add`` and ``git commit`` by the git binary, between two statuses."""
    (store.root / "areas/inbox/c.html").write_bytes(b"<p>changed</p>\n")
    (store.root / "areas/inbox/fresh.html").write_bytes(b"<p>fresh</p>\n")
    assert store.watched.status() == store.plain.status()
    _git(store.root, "add", "-A")
    staged = store.both()
    _git(store.root, "commit", "-q", "-m", "by hand")
    committed = store.both()
    assert (staged[1], committed[1]) == (staged[0], committed[0])
    assert (2, 0) == (len(staged[0]), len(committed[0]))
    assert 2 == store.watched.status_walks


def test_a_branch_switch_by_another_process_is_seen(store: Store) -> None:
    """A checkout of another branch rewrites files, the index and HEAD: status follows."""
    _git(store.root, "checkout", "-q", "-b", "side")
    (store.root / "resources/d.html").write_bytes(b"<p>side</p>\n")
    _git(store.root, "commit", "-q", "-am", "side")
    assert store.watched.status() == store.plain.status() == ()
    _git(store.root, "checkout", "-q", "main")
    (store.root / "resources/d.html").write_bytes(b"<p>dirty</p>\n")
    watched, walked = store.both()
    assert (walked, 1) == (watched, len(watched))


def test_a_commit_by_this_process_is_amended_not_walked(store: Store) -> None:
    """The writer of this process commits: the next status re-checks what it touched only."""
    head = store.watched.head()
    change = ChangeSet(writes=(FileWrite(path="areas/inbox/c.html", data=b"<p>new</p>\n"),))
    store.writer.commit(change, "edit", expected_head=head)
    watched, walked = store.both()
    assert ((), (), 2) == (watched, walked, store.watched.status_walks)


def test_an_ignore_rule_edit_walks_again(store: Store) -> None:
    """Editing ``.gitignore`` changes what status walks: the watcher starts over."""
    (store.root / "areas/inbox/note.tmp").write_bytes(b"x")
    (store.root / ".gitignore").write_bytes(b".memhtml/\n*.tmp\n")
    watched, walked = store.both()
    assert (walked, 3) == (watched, store.watched.status_walks)
    assert [".gitignore"] == [entry.path for entry in watched]


def test_a_renamed_directory_walks_again(store: Store) -> None:
    """A folder renamed: its watches would keep the old name, so status walks afresh."""
    os.rename(store.root / "projects/alpha", store.root / "projects/beta")
    watched, walked = store.both()
    assert (walked, 4, 3) == (watched, len(watched), store.watched.status_walks)
    (store.root / "projects/beta/deep/b.html").write_bytes(b"<p>after</p>\n")
    assert store.watched.status() == store.plain.status()
    assert 3 == store.watched.status_walks


def test_an_overflowing_queue_falls_back_to_a_walk(store: Store) -> None:
    """More events than the kernel queues (``IN_Q_OVERFLOW``): the next status walks."""
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 100_000:
        pytest.skip("this kernel queues too many events to overflow in a test")
    # Alternating names, so the kernel cannot merge an event into the one before it.
    paths = [os.fspath(store.root / f"areas/inbox/f{n}.tmp") for n in range(2)]
    for round_ in range(limit // 2 + 10):
        for path in paths:
            with open(path, "wb") as handle:
                handle.write(b"%d" % round_)
    (store.root / "projects/alpha/a.html").write_bytes(b"<p>lost in the flood</p>\n")
    watched, walked = store.both()
    assert (walked, 3, 3) == (watched, len(watched), store.watched.status_walks)
    assert store.watched.status() == watched  # armed again: quiet, no walk
    assert 3 == store.watched.status_walks


def test_a_closed_watcher_walks_every_time(store: Store) -> None:
    """After ``close`` status is the plain walk, and still right."""
    store.watched.close()
    (store.root / "resources/d.html").write_bytes(b"<p>after close</p>\n")
    watched, walked = store.both()
    assert (walked, 3) == (watched, store.watched.status_walks)


def test_the_store_folder_removed_and_made_again_changes_nothing(store: Store) -> None:
    """``.memhtml`` is ignored and unwatched: rebuilding it is no event status cares about."""
    shutil.rmtree(store.root / ".memhtml")
    (store.root / ".memhtml").mkdir()
    (store.root / ".memhtml" / "index.db").write_bytes(b"rebuilt")
    watched, walked = store.both()
    assert ((), (), 2) == (watched, walked, store.watched.status_walks)


def test_a_tree_that_cannot_be_watched_walks_every_time(tmp_path: Path) -> None:
    """A repository whose ``.git`` is a file (a linked worktree) gets no watch: every status
    walks, and answers as a plain one does."""
    real = tmp_path / "real"
    DulwichGitWriter(real, env={}).init()
    root = tmp_path / "linked"
    root.mkdir()
    shutil.move(real / ".git", tmp_path / "gitdir")
    (root / ".git").write_text(f"gitdir: {tmp_path / 'gitdir'}\n")
    (root / "a.html").write_bytes(b"a")
    watched = DulwichGit(root, watch=InotifyTreeWatch(root), arm_watch_at=1)
    answers = [watched.status() for _ in range(3)]
    expected = DulwichGit(root).status()
    assert ([expected] * 3, 3) == (answers, watched.status_walks)
    assert StatusEntry(path="a.html", deleted=False) in expected


@attrs.frozen
class DirectoryMove:
    """Rename ``projects/p`` to ``projects/p2`` or back (whichever exists)."""


@attrs.frozen
class EditorWrite:
    """Write ``data`` to a temporary name, then rename it over ``path``."""

    path: str
    data: bytes


@attrs.frozen
class RemoveTree:
    """Remove ``projects/p`` and everything below it."""


WatchStep = Step | DirectoryMove | EditorWrite | RemoveTree
watch_steps: st.SearchStrategy[WatchStep] = st.one_of(
    steps,
    st.just(DirectoryMove()),
    st.builds(EditorWrite, st.sampled_from(PATHS), st.sampled_from(CONTENTS)),
    st.just(RemoveTree()),
)


def _apply_watch_step(root: Path, writer: DulwichGitWriter, step: WatchStep) -> None:
    if isinstance(step, DirectoryMove):
        source, target = root / "projects/p", root / "projects/p2"
        if not source.exists():
            source, target = target, source
        if source.exists() and not target.exists():
            os.rename(source, target)
    elif isinstance(step, EditorWrite):
        target = root / step.path
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.tmp~")
        temporary.write_bytes(step.data)
        os.replace(temporary, target)
    elif isinstance(step, RemoveTree):
        shutil.rmtree(root / "projects/p", ignore_errors=True)
    else:
        _apply(root, writer, step)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(watch_steps, min_size=1, max_size=12))
@example([HandWrite("projects/p/q/d.html", CONTENTS[0]), DirectoryMove(), RemoveTree()])
@example([EditorWrite("areas/a.html", CONTENTS[1]), EditorWrite("areas/a.html", CONTENTS[0])])
def test_watched_status_is_the_full_walk(history: list[WatchStep]) -> None:
    """After every step, the watched status equals brute force (the walk's own oracle)."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "repo"
        writer = DulwichGitWriter(root, env={})
        writer.init()
        (root / ".memhtml").mkdir()
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "exclude").write_bytes(b".memhtml/\n")
        watched = DulwichGit(
            root,
            status_cache=root / ".memhtml" / "gitstatus",
            watch=InotifyTreeWatch(root),
            arm_watch_at=1,
        )
        try:
            assert oracle(root) == watched.status()
            for step in history:
                _apply_watch_step(root, writer, step)
                assert oracle(root) == watched.status(), step
        finally:
            watched.close()
