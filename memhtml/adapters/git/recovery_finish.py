"""Finishing one dead writer's commit: the lock it held, the working tree and index it never
brought to its commit, and what it left lying around (``recovery.run_recovery`` decides whom).

A lock is the dead writer's by its recorded inode, or, before the inode was recorded, by its age
(``journal.claims_lock``); one recognised by age alone is never taken from a live writer or a
git command that may own it.
"""

from __future__ import annotations

import time
from pathlib import Path

import attrs
from dulwich.file import FileLocked, GitFile
from dulwich.repo import Repo

from memhtml.adapters.git import journal as journals
from memhtml.adapters.git.commit_finish import (
    finish_working_tree,
    index_mtime_ns,
    tree_records,
    updated_index,
)
from memhtml.adapters.git.index_file import read_index
from memhtml.adapters.git.journal import Journal
from memhtml.adapters.git.leftovers import (
    LOCK_SUFFIX,
    SHOWN_PATHS,
    made_since,
    object_leftovers,
    removed,
    temp_files_in,
)
from memhtml.adapters.git.locks import git_process_in, inode_of, judge_unclaimed_lock
from memhtml.faults import fault_point
from memhtml.ports.git_writer import (
    FOUND_INTERRUPTED_COMMIT,
    FOUND_OBJECT_LEFTOVERS,
    FOUND_STALE_LOCK,
    FOUND_TEMP_FILES,
    RecoveryFinding,
)


def make_finding(
    kind: str, detail: str, repaired: bool, path: Path | None = None
) -> RecoveryFinding:
    """A finding of ``kind``; ``path`` is the file it is about, when there is one."""
    return RecoveryFinding(
        kind=kind, detail=detail, repaired=repaired, path=None if path is None else str(path)
    )


def short(sha: str | None) -> str:
    """A commit id as findings show it: seven digits, or ``(unborn)``."""
    return "(unborn)" if sha is None else sha[:7]


def index_lock(repo: Repo) -> Path:
    """``.git/index.lock``."""
    return Path(repo.index_path() + LOCK_SUFFIX)


def claimed_inode(repo: Repo, entry: Journal) -> int | None:
    """The inode of the index lock ``entry``'s writer holds (or held), if it is there."""
    lock = index_lock(repo)
    if journals.claims_lock(entry, lock, Path(repo.index_path())):
        return inode_of(lock)
    return None


def drop_own_index_lock(repo: Repo, entry: Journal, *, others_live: bool) -> bool:
    """Remove the index lock the dead writer created; never one a git command took later.

    See ``journal.claims_lock``. A lock recognised only by its time (the writer died before
    recording its inode) is left while another writer is committing or a git process works
    here: it may be theirs.
    """
    lock = index_lock(repo)
    if claimed_inode(repo, entry) is None:
        return False
    if entry.lock_inode is None and (others_live or git_process_in(Path(repo.path)) is not None):
        return False
    lock.unlink(missing_ok=True)
    return True


def finish(
    repo: Repo,
    root: Path,
    git_dir: Path,
    entry: Journal,
    commits: tuple[str | None, str],
    *,
    others_live: bool,
) -> list[RecoveryFinding]:
    """Bring the working tree and the index to a landed commit under a fresh index lock.

    ``commits`` is the branch's commit before and after the interrupted commit.
    """
    old, new = commits
    found: list[RecoveryFinding] = []
    lock_path = index_lock(repo)
    if lock_path.exists() and not drop_own_index_lock(repo, entry, others_live=others_live):
        verdict = judge_unclaimed_lock(lock_path, root)
        if not verdict.stale:
            detail = f"{lock_path} is held ({verdict.reason}); commit {short(new)} waits for it"
            return [make_finding(FOUND_INTERRUPTED_COMMIT, detail, False, lock_path)]
        lock_path.unlink(missing_ok=True)
        found.append(
            make_finding(FOUND_STALE_LOCK, f"{lock_path} ({verdict.reason})", True, lock_path)
        )
    # The journal names this process before the lock is taken (as a commit's does), so a
    # finish killed at any instant leaves a lock its successor recognises.
    entry = attrs.evolve(
        entry, owner=journals.current_owner(), lock_inode=None, started_ns=time.time_ns()
    )
    journals.write(entry)
    try:
        lock = GitFile(repo.index_path(), "wb")
    except FileLocked:
        detail = f"{lock_path} was taken meanwhile; commit {short(new)} waits for it"
        return [make_finding(FOUND_INTERRUPTED_COMMIT, detail, False, lock_path)]
    with lock:
        entry = attrs.evolve(entry, lock_inode=inode_of(lock_path))
        journals.write(entry)
        tree = finish_working_tree(repo, root, old, new)
        racy_after = index_mtime_ns(repo.index_path())
        try:
            records = read_index(repo.index_path())
        except ValueError:
            # An index that does not parse holds nothing worth keeping: start from the commit.
            records = tree_records(repo, new)
        lock.write(
            updated_index(records, root, tree.edits, set(tree.verified), racy_after=racy_after)
        )
    fault_point("recover.index")
    detail = (
        f"a commit on {entry.ref} ({short(new)}) died after the branch moved: finished, "
        f"{tree.written} working files brought to it"
    )
    if tree.kept:
        shown = ", ".join(tree.kept[:SHOWN_PATHS])
        more = "…" if len(tree.kept) > SHOWN_PATHS else ""
        detail += f"; {len(tree.kept)} files edited since are kept as they are ({shown}{more})"
    found.insert(0, make_finding(FOUND_INTERRUPTED_COMMIT, detail, True))
    found.extend(after_journal(root, git_dir, entry, directories=tree.directories))
    journals.remove(entry)
    return found


def after_journal(
    root: Path, git_dir: Path, entry: Journal, *, directories: frozenset[str]
) -> list[RecoveryFinding]:
    """Remove the dead writer's branch lock, object leftovers and temporary working files."""
    found: list[RecoveryFinding] = []
    busy = git_process_in(root) is not None
    ref_lock = git_dir / (entry.ref + LOCK_SUFFIX)
    if not busy and made_since(ref_lock, entry.started_ns):
        ref_lock.unlink(missing_ok=True)
        found.append(make_finding(FOUND_STALE_LOCK, str(ref_lock), True))
    if not busy:
        leftovers = [p for p in object_leftovers(git_dir) if made_since(p, entry.started_ns)]
        found.extend(removed(FOUND_OBJECT_LEFTOVERS, leftovers, git_dir))
    temporary = [
        path
        for directory in sorted(directories)
        for path in temp_files_in(root / directory if directory else root)
    ]
    found.extend(removed(FOUND_TEMP_FILES, temporary, root))
    return found
