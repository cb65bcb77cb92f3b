"""The write path over the real stack: dulwich, SQLite, the real indexer, parser and renderer."""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from dulwich.repo import Repo

from memhtml.adapters.git import DulwichGit, DulwichGitWriter
from memhtml.adapters.git.repo_config import ensure_merge_ours_driver
from memhtml.adapters.html import parse_memory
from memhtml.adapters.sqlite.assist_lookup import SqliteAssistLookup
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.recorder import SqliteRecorder
from memhtml.adapters.system.clock import FixedClock
from memhtml.app.apply_ops import parse_apply_lines
from memhtml.app.bootstrap import memory_codec
from memhtml.app.errors import DirtyTree
from memhtml.app.use_cases.apply import apply_batch
from memhtml.app.use_cases.archive import archive_memory
from memhtml.app.use_cases.collaborators import WriteDeps
from memhtml.app.use_cases.correct import CorrectRequest, correct_memory
from memhtml.app.use_cases.init import InitResult, init_store
from memhtml.app.use_cases.link import link_memories
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.errors import Conflict, InvalidInput, InvalidMemory, NotFound
from memhtml.domain.write_requests import WriteRequest
from memhtml.ports.git import PathRefused
from tests.support import sqlite_indexer

START = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)
SPACE = "all-MiniLM-L6-v2-int8@384"
EXPORT = WriteRequest(
    title="Invoice export runs at 03:30 UTC",
    memory_type="procedural",
    claim="The invoice export job starts at 03:30 UTC every night.",
    body=("Moved from 01:00 after the ledger lock contention.",),
    tags=("billing",),
    entities=("service:invoice-exporter",),
    importance=7,
)
EXPORT_PATH = "resources/billing/invoice-export-runs-at-03-30-utc.html"


def _databases(root: Path) -> tuple[Path, Path]:
    return root / ".memhtml" / "index.db", root / ".memhtml" / "state.db"


def _init(root: Path) -> InitResult:
    index_db, state_db = _databases(root)

    def create_databases() -> bool:
        existed = index_db.exists() and state_db.exists()
        Database.open(index_db, state_path=state_db).close()
        return not existed

    return init_store(
        root=root,
        git=DulwichGit(root),
        writer=DulwichGitWriter(root, clock=FixedClock(START), env={}),
        configure_repo=lambda: ensure_merge_ours_driver(root),
        create_databases=create_databases,
    )


@attrs.define
class Stack:
    """One process's view of a store: its own connection, git port and writer."""

    root: Path
    db: Database
    deps: WriteDeps

    def rows(self) -> list[tuple[str, int]]:
        """``(path, archived)`` of every indexed file, by path."""
        return [
            (str(p), int(a or 0))
            for p, a in self.db.all("SELECT path, archived FROM files ORDER BY path")
        ]

    def edges(self) -> list[tuple[str, str, str]]:
        """Authored edges in the index."""
        rows = self.db.all("SELECT src_path, rel, dst_path FROM edges ORDER BY 1, 2, 3")
        return [(str(s), str(r), str(d)) for s, r, d in rows]

    def messages(self) -> list[str]:
        """Commit subjects from HEAD back."""
        with Repo(str(self.root)) as repo:
            return [e.commit.message.decode().split("\n", 1)[0] for e in repo.get_walker()]


def _stack(root: Path) -> Stack:
    index_db, state_db = _databases(root)
    db = Database.open(index_db, state_path=state_db)
    git = DulwichGit(root)
    clock = FixedClock(START)
    indexer = sqlite_indexer(
        db=db, git=git, parser=parse_memory, clock=clock, embed_watermark=SPACE, embed_dim=384
    )
    deps = WriteDeps(
        git=git,
        writer=DulwichGitWriter(root, clock=clock, env={}),
        recorder=SqliteRecorder(db),
        indexer=indexer,
        clock=clock,
        codec=memory_codec(),
        assists=SqliteAssistLookup(db),
        embed=False,
    )
    return Stack(root=root, db=db, deps=deps)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    """An initialised store and one stack over it."""
    root = tmp_path / "store"
    _init(root)
    built = _stack(root)
    yield built
    built.db.close()


def _snapshot(root: Path) -> tuple[str | None, dict[str, bytes]]:
    """HEAD plus every working file's bytes (git internals and databases aside)."""
    files: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            relative = path.relative_to(root).as_posix()
            if not relative.startswith(".memhtml/index.db") and not relative.startswith(
                ".memhtml/state.db"
            ):
                files[relative] = path.read_bytes() if not path.is_symlink() else b"->"
    return DulwichGit(root).head(), files


def test_init_creates_a_repo_on_main_with_the_merge_driver(tmp_path: Path) -> None:
    """Repo on ``main``, scaffold committed, ``merge.ours.driver=true``, both databases."""
    root = tmp_path / "store"
    result = _init(root)
    with Repo(str(root)) as repo:
        branch = (root / ".git" / "HEAD").read_bytes().strip()
        driver = repo.get_config().get((b"merge", b"ours"), b"driver")
    assert (True, b"ref: refs/heads/main", b"true") == (result.created, branch, driver)
    assert all(p.exists() for p in _databases(root))
    assert (root / "areas" / "inbox" / ".gitkeep").exists()


def test_init_twice_is_a_no_op(tmp_path: Path) -> None:
    """The second run reports created false and leaves HEAD and every file as they were."""
    root = tmp_path / "store"
    first = _init(root)
    before = _snapshot(root)
    again = _init(root)
    assert (False, first.head_sha, ()) == (again.created, again.head_sha, again.wrote)
    assert before == _snapshot(root)


def test_write_commits_indexes_and_dedups(stack: Stack) -> None:
    """Example 1 lands committed and indexed; the same content again is deduped."""
    first = write_memory(stack.deps, EXPORT)
    second = write_memory(stack.deps, attrs.evolve(EXPORT, title="Another title"))
    assert (EXPORT_PATH, True, True, EXPORT_PATH) == (
        first.path,
        first.indexed,
        second.deduped,
        second.existing_path,
    )
    assert [(EXPORT_PATH, 0)] == stack.rows()
    assert "memhtml(write): Invoice export runs at 03:30 UTC" == stack.messages()[0]
    assert () == stack.deps.git.status()


def test_correct_archive_and_link_keep_index_and_tree_in_step(stack: Stack) -> None:
    """A correction, an archive and a link each land as one commit the index follows."""
    write_memory(stack.deps, EXPORT)
    fixed = correct_memory(
        stack.deps,
        EXPORT_PATH,
        CorrectRequest(title="Invoice export runs at 04:00 UTC", claim="It starts at 04:00 UTC."),
    )
    other = write_memory(
        stack.deps, WriteRequest(title="Ledger", memory_type="semantic", claim="Ledger holds.")
    )
    link_memories(stack.deps, fixed.path, "caused_by", other.path)
    archived = archive_memory(stack.deps, other.path, "merged into the runbook")
    assert [
        (archived.archived_path, 1),
        (fixed.archived_path, 1),
        (fixed.path, 0),
    ] == stack.rows()
    assert [
        (fixed.path, "caused_by", other.path),
        (fixed.path, "supersedes", fixed.archived_path),
    ] == stack.edges()
    assert 6 == len(stack.messages())
    assert () == stack.deps.git.status()


def test_apply_worked_example_is_one_commit(stack: Stack) -> None:
    """Example 3 on a store holding the export: one write, one dedup, one link, ``2 ops``."""
    write_memory(stack.deps, EXPORT)
    lines = [
        '{"op":"write","title":"Ledger lock holds for 40 minutes","type":"semantic",'
        '"claim":"The nightly ledger lock is held for about 40 minutes.","tag":"billing"}',
        '{"op":"write","title":"Invoice export runs at 03:30 UTC","type":"procedural",'
        '"claim":"The invoice export job starts at 03:30 UTC every night.",'
        '"body":["Moved from 01:00 after the ledger lock contention."],"tag":"billing"}',
        '{"op":"link","src":"resources/billing/invoice-export-runs-at-03-30-utc.html",'
        '"rel":"caused_by","dst":"resources/billing/ledger-lock-holds-for-40-minutes.html"}',
    ]
    result = apply_batch(stack.deps, parse_apply_lines(lines))
    assert ("memhtml(batch): 2 ops", False, True) == (
        stack.messages()[0],
        result.aborted,
        result.indexed,
    )
    assert [(s.written, s.deduped, s.linked) for s in [result.summary]] == [(1, 1, 1)]


@pytest.mark.parametrize(
    ("action", "error"),
    [
        (lambda d: archive_memory(d, "areas/inbox/unknown.html", "r"), NotFound),
        (lambda d: link_memories(d, EXPORT_PATH, "supports", "areas/inbox/unknown.html"), NotFound),
        (
            lambda d: correct_memory(
                d, "areas/inbox/unknown.html", CorrectRequest(title="T", claim="C.")
            ),
            NotFound,
        ),
        (
            lambda d: write_memory(
                d,
                WriteRequest(
                    title="T",
                    memory_type="semantic",
                    article_html="<p><mark>x</mark><script>1</script></p>",
                ),
            ),
            InvalidMemory,
        ),
        (
            lambda d: write_memory(d, WriteRequest(title="T", memory_type="belief", claim="x")),
            InvalidInput,
        ),
        (
            lambda d: write_memory(
                d, WriteRequest(title="T", memory_type="semantic", claim="x", path="../escape.html")
            ),
            InvalidInput,
        ),
        (lambda d: archive_memory(d, "../../etc/passwd", "r"), InvalidInput),
        (lambda d: archive_memory(d, "/etc/passwd", "r"), NotFound),
    ],
    ids=[
        "archive-unknown",
        "link-unknown",
        "correct-unknown",
        "invalid-html",
        "type-outside-vocabulary",
        "write-path-escaping",
        "archive-path-escaping",
        "archive-absolute",
    ],
)
def test_bad_input_leaves_the_store_byte_identical(
    stack: Stack, action: object, error: type[Exception]
) -> None:
    """Each refusal raises its error and leaves HEAD and every file exactly as they were."""
    write_memory(stack.deps, EXPORT)
    before = _snapshot(stack.root)
    assert callable(action)
    with pytest.raises(error):
        action(stack.deps)
    assert before == _snapshot(stack.root)


def test_a_symlinked_folder_cannot_carry_a_write_out(stack: Stack, tmp_path: Path) -> None:
    """A workspace folder that is a symlink out of the store is refused; nothing lands outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (stack.root / "projects" / "evil").symlink_to(outside, target_is_directory=True)
    before = _snapshot(stack.root)
    request = WriteRequest(title="T", memory_type="semantic", claim="x", workspace="evil")
    with pytest.raises(Conflict):
        write_memory(stack.deps, request)
    assert (before, []) == (_snapshot(stack.root), list(outside.iterdir()))


def test_an_ignored_symlink_is_refused_by_the_writer(stack: Stack, tmp_path: Path) -> None:
    """Even a symlink git does not report is caught: the writer refuses the path, nothing lands."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (stack.root / ".git" / "info").mkdir(exist_ok=True)
    (stack.root / ".git" / "info" / "exclude").write_text("projects/evil\n")
    (stack.root / "projects" / "evil").symlink_to(outside, target_is_directory=True)
    before = _snapshot(stack.root)
    request = WriteRequest(title="T", memory_type="semantic", claim="x", workspace="evil")
    with pytest.raises(PathRefused):
        write_memory(stack.deps, request)
    assert (before, []) == (_snapshot(stack.root), list(outside.iterdir()))


def test_a_dirty_target_is_refused(stack: Stack) -> None:
    """Hand edits to the file an archive would move: DirtyTree, the edit kept."""
    write_memory(stack.deps, EXPORT)
    path = stack.root / EXPORT_PATH
    path.write_bytes(path.read_bytes() + b"\n")
    before = _snapshot(stack.root)
    with pytest.raises(DirtyTree):
        archive_memory(stack.deps, EXPORT_PATH, "r")
    assert before == _snapshot(stack.root)


def test_two_concurrent_writers_both_land(stack: Stack) -> None:
    """Two threads with their own connection and writer write 5 memories each: all 10 land."""
    errors: list[BaseException] = []

    def worker(name: str) -> None:
        own = _stack(stack.root)
        try:
            for n in range(5):
                claim = f"Writer {name} states fact {n}."
                write_memory(
                    own.deps, WriteRequest(title=f"{name} {n}", memory_type="semantic", claim=claim)
                )
        except BaseException as error:  # reported to the main thread below
            errors.append(error)
        finally:
            own.db.close()

    # The index's first build, before the race: these writers take no write lock (the commit's
    # compare-and-swap is what is under test), and a lock-free preflight that meets another
    # writer's first build in flight refuses with IndexStale rather than wait (seen under load).
    stack.deps.indexer.update(embed=False)
    threads = [threading.Thread(target=worker, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [] == errors
    stack.deps.indexer.update(embed=False)
    expected = sorted(f"areas/inbox/{name}-{n}.html" for name in ("a", "b") for n in range(5))
    assert expected == [path for path, _ in stack.rows()]
    assert 11 == len(stack.messages())
