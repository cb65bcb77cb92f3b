"""Status with its cache answers exactly what a full walk that trusts no stat data answers.

Hypothesis drives random commits and hand edits (same-size edits with the mtime put back,
new directories, ignore rules, nested repositories, staged removals) into a real repository.
After every step three views must agree: the status of one long-lived port with a cache file,
that of a new port in a "new process" (memos forgotten, the cache read back from disk), and
an oracle that hashes every tracked file and walks every directory. Each history also runs on
a simulated filesystem with one-second timestamps, where edits land in the same tick as the
index write or the cached listing: only the racy rules keep those from passing as clean.
"""

from __future__ import annotations

import dataclasses
import marshal
import os
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from unittest import mock

import attrs
import pytest
from dulwich.ignore import IgnoreFilterManager
from dulwich.index import ConflictedIndexEntry, Index
from dulwich.refs import HEADREF
from dulwich.repo import Repo
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.git import status as status_module
from memhtml.adapters.git.dulwich_git import DulwichGit
from memhtml.adapters.git.dulwich_writer import DulwichGitWriter
from memhtml.adapters.git.index_snapshot import read_snapshot
from memhtml.adapters.git.status_cache import (
    Listing,
    forget_all,
    remembered_snapshot,
)
from memhtml.ports.git import PathRefused, StatusEntry, blob_sha
from memhtml.ports.git_writer import ChangeSet, FileWrite, HeadMoved

PATHS = (
    "areas/a.html",
    "areas/b.html",
    "projects/p/c.html",
    "projects/p/q/d.html",
    "resources/r/e.html",
    "notes.txt",
    "areas/x.tmp",
    "scratch/s.html",
)
# Pairs of equal length, so an edit can keep the size.
CONTENTS = (b"<p>one</p>\n", b"<p>two</p>\n", b"<p>a longer memory</p>\n", b"")
IGNORES = (b"", b"*.tmp\n", b"scratch/\n", b"projects/p/q/\n", b"*.html\n!areas/*.html\n")
_NS = 1_000_000_000


@attrs.frozen
class Commit:
    """Land writes (and deletes of existing paths) on HEAD through the writer."""

    writes: tuple[tuple[str, bytes], ...]


@attrs.frozen
class HandWrite:
    """Create or edit a working file without committing."""

    path: str
    data: bytes


@attrs.frozen
class KeepStamp:
    """Rewrite a file with same-size content and put its mtime back."""

    path: str
    data: bytes


@attrs.frozen
class HandRemove:
    """Delete a working file."""

    path: str


@attrs.frozen
class Ignore:
    """Rewrite the root ``.gitignore`` in place."""

    rules: bytes


@attrs.frozen
class Nest:
    """Make ``projects/p/q`` a nested repository, or stop it being one."""

    on: bool


@attrs.frozen
class StageRemove:
    """Drop a path from the index (``git rm --cached``)."""

    path: str


Step = Commit | HandWrite | KeepStamp | HandRemove | Ignore | Nest | StageRemove
paths = st.sampled_from(PATHS)
contents = st.sampled_from(CONTENTS)
steps: st.SearchStrategy[Step] = st.one_of(
    st.builds(
        Commit,
        st.dictionaries(paths, contents, min_size=1, max_size=3).map(lambda d: tuple(d.items())),
    ),
    st.builds(HandWrite, paths, contents),
    st.builds(KeepStamp, paths, contents),
    st.builds(HandRemove, paths),
    st.builds(Ignore, st.sampled_from(IGNORES)),
    st.builds(Nest, st.booleans()),
    st.builds(StageRemove, paths),
)


def _apply(root: Path, writer: DulwichGitWriter, step: Step) -> None:
    if isinstance(step, Commit):
        changes = ChangeSet(writes=tuple(FileWrite(path=p, data=d) for p, d in step.writes))
        with suppress(HeadMoved, PathRefused):
            writer.commit(changes, "step", expected_head=DulwichGit(root).head())
    elif isinstance(step, HandWrite):
        target = root / step.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(step.data)
    elif isinstance(step, KeepStamp):
        target = root / step.path
        if target.is_file():
            before = os.lstat(target)
            data = step.data.ljust(before.st_size, b" ")[: before.st_size]
            target.write_bytes(data)
            os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif isinstance(step, HandRemove):
        (root / step.path).unlink(missing_ok=True)
    elif isinstance(step, Ignore):
        (root / ".gitignore").write_bytes(step.rules)
    elif isinstance(step, Nest):
        marker = root / "projects" / "p" / "q" / ".git"
        if step.on:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_bytes(b"gitdir: elsewhere\n")
        else:
            marker.unlink(missing_ok=True)
    else:
        with Repo(str(root)) as repo:
            index = repo.open_index()
            if step.path.encode() in index:
                racy_after = os.stat(repo.index_path()).st_mtime_ns
                del index[step.path.encode()]
                _smudge_racily_clean(root, index, racy_after)
                index.write()


def _stamp_ns(mtime: int | float | tuple[int, int]) -> int:
    if isinstance(mtime, tuple):
        return mtime[0] * _NS + mtime[1]
    return int(mtime * _NS)


def _smudge_racily_clean(root: Path, index: Index, racy_after: int) -> None:
    """What git does to the entries it keeps when it rewrites the index (``git rm --cached``
    included): one stamped no earlier than the old index, whose stat still matches its file
    but whose content is not its blob, gets size 0, so status hashes it again. Without it,
    this step would make a same-tick edit look clean, which git never does (the writers do
    the same, ``commit_finish.smudged_if_racily_clean``)."""
    for path, entry in list(index.items()):
        if isinstance(entry, ConflictedIndexEntry):
            continue
        stamp = _stamp_ns(entry.mtime)
        if stamp < racy_after:
            continue
        full = root / os.fsdecode(path)
        try:
            info = os.lstat(full)
            if not stat.S_ISREG(info.st_mode) or (info.st_size, info.st_mtime_ns) != (
                entry.size,
                stamp,
            ):
                continue
            data = full.read_bytes()
        except OSError:
            continue
        if blob_sha(data).encode() != entry.sha:
            index[path] = dataclasses.replace(entry, size=0)


def oracle(root: Path) -> tuple[StatusEntry, ...]:
    """Status by brute force: every tracked file hashed, every directory walked."""
    with Repo(str(root)) as repo:
        index = repo.open_index()
        tracked = {
            path: entry
            for path, entry in index.items()
            if not isinstance(entry, ConflictedIndexEntry)
        }
        head: dict[bytes, bytes] = {}
        sha = repo.refs.follow(HEADREF)[1]
        if sha is not None:
            tree = repo[sha].tree  # type: ignore[attr-defined]
            for item in repo.object_store.iter_tree_contents(tree):
                assert item.path is not None
                assert item.sha is not None
                head[item.path] = item.sha
        ignore = IgnoreFilterManager.from_repo(repo)
    changed: set[bytes] = set()
    for path in tracked.keys() | head.keys():
        staged = tracked.get(path)
        if staged is None or head.get(path) != staged.sha:
            changed.add(path)
    for path, entry in tracked.items():
        full = root / os.fsdecode(path)
        if full.is_symlink():
            data: bytes | None = os.fsencode(os.readlink(full))
        else:
            data = full.read_bytes() if full.is_file() else None
        if data is None or blob_sha(data).encode() != entry.sha:
            changed.add(path)
    for directory, subdirectories, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        prefix = "" if relative == "." else relative + "/"
        subdirectories[:] = [
            name
            for name in subdirectories
            if not (not prefix and name == ".git")
            and not os.path.lexists(os.path.join(directory, name, ".git"))
            and not ignore.may_prune_directory(prefix + name + "/")
        ]
        for name in files:
            path = (prefix + name).encode()
            if path not in tracked and not ignore.is_ignored(prefix + name):
                changed.add(path)
    return tuple(
        StatusEntry(path=path.decode(), deleted=not (root / path.decode()).is_file())
        for path in sorted(changed)
    )


def _coarse(result: os.stat_result) -> os.stat_result:
    """``result`` as a filesystem with one-second timestamps would give it."""
    fields = {
        name: getattr(result, name)
        for name in ("st_atime", "st_mtime", "st_ctime", "st_blksize", "st_blocks", "st_rdev")
    }
    for name in ("st_atime_ns", "st_mtime_ns", "st_ctime_ns"):
        fields[name] = getattr(result, name) // _NS * _NS
    return os.stat_result(tuple(result[i] for i in range(10)), fields)


@contextmanager
def one_second_timestamps() -> Iterator[None]:
    """Every ``stat`` in this process reads times truncated to whole seconds."""
    real = {name: getattr(os, name) for name in ("stat", "lstat", "fstat")}

    def wrap(function: Any) -> Any:
        return lambda *args, **kwargs: _coarse(function(*args, **kwargs))

    with (
        mock.patch.object(os, "stat", wrap(real["stat"])),
        mock.patch.object(os, "lstat", wrap(real["lstat"])),
        mock.patch.object(os, "fstat", wrap(real["fstat"])),
    ):
        yield


def _run(history: list[Step], coarse: bool) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory) / "repo"
        cache = root / ".memhtml" / "index.db-gitstatus"
        writer = DulwichGitWriter(root, env={})
        writer.init()
        cache.parent.mkdir()
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "exclude").write_bytes(b".memhtml/\n")
        kept = DulwichGit(root, status_cache=cache)
        with one_second_timestamps() if coarse else _nothing():
            assert oracle(root) == kept.status()
            for step in history:
                _apply(root, writer, step)
                expected = oracle(root)
                assert expected == kept.status(), step
                forget_all()
                assert expected == DulwichGit(root, status_cache=cache).status(), step
                assert expected == DulwichGit(root).status(), step


@contextmanager
def _nothing() -> Iterator[None]:
    yield


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(steps, min_size=1, max_size=10), st.booleans())
@example([HandWrite("areas/a.html", CONTENTS[0]), HandWrite("areas/b.html", CONTENTS[0])], True)
@example([Commit((("areas/a.html", CONTENTS[0]),)), KeepStamp("areas/a.html", CONTENTS[1])], True)
@example([Commit((("areas/a.html", CONTENTS[0]),)), KeepStamp("areas/a.html", CONTENTS[1])], False)
@example([Ignore(IGNORES[1]), HandWrite("areas/x.tmp", b"x"), Ignore(IGNORES[0])], True)
@example([HandWrite("projects/p/q/d.html", b"d"), Nest(True), Nest(False)], True)
@example([Commit((("areas/a.html", b"a"),)), StageRemove("areas/a.html")], False)
def test_cached_status_is_the_full_walk(history: list[Step], coarse: bool) -> None:
    """After every step the cached, the reloaded and the uncached status equal brute force."""
    _run(history, coarse)


def test_a_listing_within_its_clock_tick_is_not_trusted() -> None:
    """A directory stamped at or after the clock of its listing is listed again."""
    listing = Listing(stamp=(100, 100, 7, 1), clock=101, files=(), subdirs=())
    assert (True, False, False, False) == (
        listing.trusted_at((100, 100, 7, 1)),
        attrs.evolve(listing, clock=100).trusted_at((100, 100, 7, 1)),
        listing.trusted_at((100, 101, 7, 1)),
        listing.trusted_at((100, 100, 8, 1)),
    )


@pytest.fixture
def repo_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with two committed memories and an excluded ``.memhtml``."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "repo"
    writer = DulwichGitWriter(root, env={})
    writer.init()
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_bytes(b".memhtml/\n")
    (root / ".memhtml").mkdir()
    changes = ChangeSet(writes=(FileWrite(path="areas/a.html", data=b"a"),))
    writer.commit(changes, "seed", expected_head=None)
    return root


def test_a_clean_check_writes_nothing(repo_root: Path) -> None:
    """Once the cache holds the tree, a status of the unchanged tree leaves the file alone."""
    cache = repo_root / ".memhtml" / "index.db-gitstatus"
    git = DulwichGit(repo_root, status_cache=cache)
    git.status()
    git.status()
    before = os.stat(cache)
    forget_all()
    assert () == DulwichGit(repo_root, status_cache=cache).status()
    after = os.stat(cache)
    assert (before.st_mtime_ns, before.st_ino) == (after.st_mtime_ns, after.st_ino)


@pytest.mark.parametrize(
    "content",
    [b"", b"not marshal", marshal.dumps({"v": 1}), marshal.dumps({"v": 999}), marshal.dumps([])],
)
def test_a_damaged_cache_is_ignored(repo_root: Path, content: bytes) -> None:
    """A cache file that does not parse, or is of another version, is read as no cache."""
    cache = repo_root / ".memhtml" / "index.db-gitstatus"
    cache.write_bytes(content)
    (repo_root / "areas" / "new.html").write_bytes(b"n")
    forget_all()
    assert (StatusEntry(path="areas/new.html"),) == DulwichGit(
        repo_root, status_cache=cache
    ).status()


def test_another_repositorys_cache_is_ignored(repo_root: Path, tmp_path: Path) -> None:
    """A cache copied from another repository (same layout) lists nothing of this one."""
    cache = repo_root / ".memhtml" / "index.db-gitstatus"
    DulwichGit(repo_root, status_cache=cache).status()
    twin = tmp_path / "twin"
    writer = DulwichGitWriter(twin, env={})
    writer.init()
    (twin / ".memhtml").mkdir()
    (twin / "areas").mkdir()
    (twin / "areas" / "only-here.html").write_bytes(b"x")
    (twin / ".memhtml" / "index.db-gitstatus").write_bytes(cache.read_bytes())
    forget_all()
    found = DulwichGit(twin, status_cache=twin / ".memhtml" / "index.db-gitstatus").status()
    assert {"areas/only-here.html", ".memhtml/index.db-gitstatus"} <= {e.path for e in found}


def test_a_commit_hands_status_the_snapshot_decoding_would_give(repo_root: Path) -> None:
    """The writer's derived snapshot of the new index equals a decode of the file it wrote,
    down to the signatures and full paths it carries over from the old one."""
    git = DulwichGit(repo_root)
    git.status()
    writer = DulwichGitWriter(repo_root, env={})
    changes = ChangeSet(
        writes=(
            FileWrite(path="areas/a.html", data=b"a, edited"),
            FileWrite(path="projects/p/b.html", data=b"b"),
        )
    )
    writer.commit(changes, "edit", expected_head=git.head())
    index_path = str(repo_root / ".git" / "index")
    data = Path(index_path).read_bytes()
    decoded = read_snapshot(data)
    derived = remembered_snapshot(index_path, decoded.key)
    assert derived is not None
    assert derived.tree_known

    def rows(snapshot: Any) -> list[tuple[object, ...]]:
        columns = (snapshot.paths, snapshot.modes, snapshot.sizes, snapshot.mtimes)
        shas = [snapshot.sha(i) for i in range(len(snapshot.paths))]
        return sorted(zip(*columns, snapshot.ctimes, shas, strict=True))

    assert (rows(decoded), decoded.tree()) == (rows(derived), derived.tree())
    # The columns status derived for the old snapshot were carried over, not rebuilt: they
    # must be what building them from the new columns gives.
    root = os.fsencode(str(repo_root))
    carried = (derived._signatures[0], derived._full_paths[root])
    rebuilt = (
        list(zip(derived.mtimes, derived.ctimes, derived.sizes, strict=True)),
        [root + b"/" + path for path in derived.paths],
    )
    assert rebuilt == carried
    assert () == git.status()


def _after_tick(root: Path, stamp_ns: int) -> None:
    """Return once the filesystem's clock reads later than ``stamp_ns`` (a probe file's mtime)."""
    probe = root / ".memhtml" / "clock-probe"
    while True:
        probe.write_bytes(b"")
        if os.lstat(probe).st_mtime_ns > stamp_ns:
            probe.unlink()
            return


def test_files_the_index_cannot_vouch_for_are_read_once_then_trusted(repo_root: Path) -> None:
    """Clean files whose stat data no longer matches the index (a copy, a touch) are hashed
    by one status and trusted by the next, in this process and in a new one; an edit that
    keeps size and mtime is still seen (its ctime moved)."""
    cache = repo_root / ".memhtml" / "index.db-gitstatus"
    target = repo_root / "areas" / "a.html"
    os.utime(target, ns=(1_600_000_000 * _NS, 1_600_000_000 * _NS))
    _after_tick(repo_root, os.lstat(target).st_ctime_ns)
    reads: list[bytes] = []
    real = status_module._working_state

    def counted(root: bytes, path: bytes, sha: bytes) -> str:
        reads.append(path)
        return real(root, path, sha)

    with mock.patch.object(status_module, "_working_state", counted):
        kept = DulwichGit(repo_root, status_cache=cache)
        first = kept.status()
        second = kept.status()
        forget_all()
        fresh = DulwichGit(repo_root, status_cache=cache).status()
        assert ((), (), (), [b"areas/a.html"]) == (first, second, fresh, reads)
        before = os.lstat(target)
        target.write_bytes(b"b")
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        edited = kept.status()
    assert (StatusEntry(path="areas/a.html", deleted=False),) == edited


def _same_tick_edit(root: Path, writer: DulwichGitWriter) -> str:
    """Commit ``areas/a.html``, then edit it keeping its size and mtime, inside one second of
    a filesystem with one-second timestamps (retried when a second boundary falls between).
    Returns the commit."""
    target = root / "areas" / "a.html"
    for attempt in range(20):
        second = time.time_ns() // _NS
        landed = writer.commit(
            ChangeSet(writes=(FileWrite(path="areas/a.html", data=CONTENTS[attempt % 2]),)),
            "stamp",
            expected_head=DulwichGit(root).head(),
        )
        before = os.lstat(target)
        target.write_bytes(CONTENTS[1 - attempt % 2])
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
        if time.time_ns() // _NS == second:
            return landed
    raise AssertionError("no commit and edit fitted in one second")


def _next_second() -> None:
    time.sleep(1.02 - (time.time_ns() % _NS) / _NS)


@pytest.mark.parametrize("cached", [True, False])
def test_a_racily_clean_edit_stays_dirty_after_another_commit(
    repo_root: Path, cached: bool
) -> None:
    """An edit in the same tick as the index write, same size, stays visible once a commit a
    second later rewrites the index: the writer smudges the entry, as git does (the property
    above found it)."""
    cache = repo_root / ".memhtml" / "index.db-gitstatus" if cached else None
    writer = DulwichGitWriter(repo_root, env={})
    edited = (StatusEntry(path="areas/a.html"),)
    with one_second_timestamps():
        head = _same_tick_edit(repo_root, writer)
        git = DulwichGit(repo_root, status_cache=cache)
        assert edited == git.status()
        _next_second()
        changes = ChangeSet(writes=(FileWrite(path="areas/other.html", data=b"o"),))
        writer.commit(changes, "another", expected_head=head)
        assert edited == git.status()
        forget_all()
        assert edited == DulwichGit(repo_root).status()


def test_a_racily_clean_entry_that_holds_its_blob_keeps_its_stamp(repo_root: Path) -> None:
    """Smudging is for hidden edits only: a racy entry whose file is its blob keeps its size."""
    writer = DulwichGitWriter(repo_root, env={})
    target = repo_root / "areas" / "a.html"
    with one_second_timestamps():
        head = _same_tick_edit(repo_root, writer)
        with Repo(str(repo_root)) as repo:
            stamped = repo.open_index()[b"areas/a.html"]
            assert not isinstance(stamped, ConflictedIndexEntry)
            target.write_bytes(repo[stamped.sha].as_raw_string())  # the blob back, same size
        _next_second()
        changes = ChangeSet(writes=(FileWrite(path="areas/other.html", data=b"o"),))
        writer.commit(changes, "another", expected_head=head)
        with Repo(str(repo_root)) as repo:
            entry = repo.open_index()[b"areas/a.html"]
        assert not isinstance(entry, ConflictedIndexEntry)
        assert len(CONTENTS[0]) == entry.size
        assert () == DulwichGit(repo_root).status()
