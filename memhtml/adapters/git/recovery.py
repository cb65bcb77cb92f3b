"""Finishing or undoing what a killed writer left in the repository (``GitWriter.recover``).

The writers' order (``dulwich_writer``) makes the branch move the commit point: a journal
whose writer is gone and whose branch still holds the old commit is undone (its objects stay
as unreachable garbage, which ``git gc`` prunes); one whose branch holds the new commit is
finished (``recovery_finish``, ``commit_finish``). A branch holding neither was moved by
someone else since: the journal is dropped and the working tree left alone. Lock files and
half-written object files are removed when their writer is provably gone (``locks``).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Final

import attrs
from dulwich.objects import Commit, ObjectID
from dulwich.refs import HEADREF, Ref
from dulwich.repo import Repo

from memhtml.adapters.git import journal as journals
from memhtml.adapters.git.index_file import read_index, tree_id
from memhtml.adapters.git.journal import Journal, UnreadableJournal
from memhtml.adapters.git.leftovers import (
    LOCK_SUFFIX,
    SLACK_NS,
    made_since,
    object_leftovers,
    removed,
    walk_temp_files,
)
from memhtml.adapters.git.locks import (
    STALE_LOCK_AGE_S,
    git_process_in,
    inode_of,
    judge_unclaimed_lock,
)
from memhtml.adapters.git.recovery_finish import (
    after_journal,
    claimed_inode,
    drop_own_index_lock,
    finish,
    index_lock,
    make_finding,
    short,
)
from memhtml.adapters.git.repository import head_commit
from memhtml.ports.git_writer import (
    FOUND_COMMIT_IN_PROGRESS,
    FOUND_HELD_LOCK,
    FOUND_INDEX_BEHIND,
    FOUND_INTERRUPTED_COMMIT,
    FOUND_OBJECT_LEFTOVERS,
    FOUND_STALE_LOCK,
    FOUND_TEMP_FILES,
    RecoveryFinding,
)

_log = logging.getLogger(__name__)

_OUR_SUBJECT: Final = b"memhtml("


def git_dir_of(root: Path) -> Path:
    """``<root>/.git`` (the store is never a linked worktree; its ``.git`` is a directory)."""
    return root / ".git"


def quick_look(git_dir: Path) -> bool:
    """A journal or an index lock is present: two directory reads, no git data parsed."""
    return journals.any_journal(git_dir) or os.path.lexists(git_dir / ("index" + LOCK_SUFFIX))


def run_recovery(repo: Repo, *, repair: bool, sweep: bool) -> tuple[RecoveryFinding, ...]:
    """Find (and with ``repair``, fix) what killed writers left; see ``GitWriter.recover``.

    The caller holds the writers' lock when ``repair`` is set.
    """
    root, git_dir = Path(repo.path), Path(repo.controldir())
    found: list[RecoveryFinding] = []
    claimed: set[int] = set()
    entries = journals.read_all(git_dir)
    dead: list[Journal | UnreadableJournal] = []
    for entry in entries:
        if isinstance(entry, Journal) and journals.is_alive(entry.owner):
            claim = claimed_inode(repo, entry)
            if claim is not None:
                claimed.add(claim)
            detail = f"process {entry.owner.pid} is committing on {entry.ref}"
            found.append(make_finding(FOUND_COMMIT_IN_PROGRESS, detail, False))
        elif journals.unchanged(entry):
            # Read again after the liveness check: a writer that finished meanwhile took its
            # journal with it, and one that died left it exactly as it was.
            dead.append(entry)
    live = len(found) > 0
    for entry in dead:
        if isinstance(entry, UnreadableJournal):
            if repair:
                journals.remove(entry)
            found.append(make_finding(FOUND_INTERRUPTED_COMMIT, f"unreadable {entry.path}", repair))
            continue
        if not repair:
            claim = claimed_inode(repo, entry)
            if claim is not None:
                claimed.add(claim)  # its fate follows the journal's
        found.extend(_resolve(repo, root, git_dir, entry, repair=repair, others_live=live))
    if not live:
        # A live writer's locks come and go by the millisecond (its branch lock is no journal's
        # to claim): judging them now would only report a race.
        found.extend(_unclaimed_locks(repo, root, git_dir, claimed, repair=repair))
    if sweep and not live:
        found.extend(_sweep(repo, root, git_dir, repair=repair, journaled=bool(entries)))
    for finding in found:
        if finding.repaired:
            _log.warning("repaired %s: %s", finding.kind, finding.detail)
    return tuple(found)


def _ref_value(repo: Repo, ref: str) -> str | None:
    try:
        value = head_commit(repo) if ref == "HEAD" else repo.refs[Ref(ref.encode("utf-8"))]
    except KeyError:
        return None
    return None if value is None else value.decode("ascii")


def _resolve(
    repo: Repo, root: Path, git_dir: Path, entry: Journal, *, repair: bool, others_live: bool
) -> list[RecoveryFinding]:
    current = _ref_value(repo, entry.ref)
    if entry.new is not None and current == entry.new:
        if not repair:
            detail = (
                f"a commit on {entry.ref} ({short(entry.new)}) died after the branch moved; "
                "its working files and index are still to be brought to it"
            )
            return [make_finding(FOUND_INTERRUPTED_COMMIT, detail, False)]
        return finish(repo, root, git_dir, entry, (entry.old, entry.new), others_live=others_live)
    undone = entry.new is None or current == entry.old
    if undone:
        detail = (
            f"a commit on {entry.ref} died before the branch moved: "
            f"{'undone' if repair else 'to be undone'}, HEAD stays at {short(entry.old)}"
        )
    else:
        detail = (
            f"a commit on {entry.ref} died and the branch was moved since (to "
            f"{short(current)}): its journal is {'dropped' if repair else 'to be dropped'}, "
            "the working tree left as it is"
        )
    found = [make_finding(FOUND_INTERRUPTED_COMMIT, detail, repair)]
    if repair:
        drop_own_index_lock(repo, entry, others_live=others_live)
        found.extend(after_journal(root, git_dir, entry, directories=frozenset()))
        journals.remove(entry)
    return found


def _unclaimed_locks(
    repo: Repo, root: Path, git_dir: Path, claimed: set[int], *, repair: bool
) -> list[RecoveryFinding]:
    """The index lock and HEAD's branch lock when no writer's journal claims them."""
    found: list[RecoveryFinding] = []
    names, _ = repo.refs.follow(HEADREF)
    branch = names[-1].decode("utf-8", "replace") if names else "HEAD"
    for lock in (index_lock(repo), git_dir / (branch + LOCK_SUFFIX)):
        inode = inode_of(lock)
        if inode is None or inode in claimed:
            continue
        verdict = judge_unclaimed_lock(lock, root)
        if verdict.stale:
            if repair:
                lock.unlink(missing_ok=True)
            found.append(make_finding(FOUND_STALE_LOCK, f"{lock} ({verdict.reason})", repair, lock))
        else:
            found.append(make_finding(FOUND_HELD_LOCK, f"{lock} ({verdict.reason})", False, lock))
    return found


def _sweep(
    repo: Repo, root: Path, git_dir: Path, *, repair: bool, journaled: bool
) -> list[RecoveryFinding]:
    """What only a whole-repository look finds: stray temporary files anywhere in the working
    tree, old object leftovers, and an index left at HEAD's parent (a commit whose working
    tree never followed it, as memhtml before the journal could leave one)."""
    found: list[RecoveryFinding] = []
    temporary = list(walk_temp_files(root))
    if temporary:
        if repair:
            found.extend(removed(FOUND_TEMP_FILES, temporary, root))
        else:
            found.append(make_finding(FOUND_TEMP_FILES, f"{len(temporary)} left", False))
    if git_process_in(root) is None:
        cutoff = time.time_ns() - int(STALE_LOCK_AGE_S * 1e9)
        old = [p for p in object_leftovers(git_dir) if not made_since(p, cutoff + SLACK_NS)]
        if old:
            if repair:
                found.extend(removed(FOUND_OBJECT_LEFTOVERS, old, git_dir))
            else:
                found.append(make_finding(FOUND_OBJECT_LEFTOVERS, f"{len(old)} left", False))
    if not journaled or repair:
        # A journal already explains (and its repair fixes) an index left behind HEAD.
        found.extend(_index_behind_head(repo, root, git_dir, repair=repair))
    return found


def _index_behind_head(
    repo: Repo, root: Path, git_dir: Path, *, repair: bool
) -> list[RecoveryFinding]:
    head = head_commit(repo)
    if head is None:
        return []
    commit = repo[head]
    if not isinstance(commit, Commit) or len(commit.parents) != 1:
        return []
    if not commit.message.startswith(_OUR_SUBJECT):
        return []
    parent = repo[commit.parents[0]]
    if not isinstance(parent, Commit) or parent.tree == commit.tree:
        return []
    try:
        records = read_index(repo.index_path())
        index_tree = ObjectID(tree_id(records))
    except ValueError:
        return []
    if index_tree != parent.tree:
        return []
    new, old = head.decode("ascii"), commit.parents[0].decode("ascii")
    if not repair:
        detail = f"the index is at {short(old)}, HEAD's parent: commit {short(new)} never landed"
        return [make_finding(FOUND_INDEX_BEHIND, detail, False)]
    names, _ = repo.refs.follow(HEADREF)
    entry = Journal(
        path=git_dir / f"{journals.JOURNAL_PREFIX}sweep{journals.JOURNAL_SUFFIX}",
        owner=journals.current_owner(),
        ref=names[-1].decode("utf-8", "replace") if names else "HEAD",
        old=old,
        new=new,
        lock_inode=None,
        started_ns=time.time_ns(),
    )
    return [
        attrs.evolve(f, kind=FOUND_INDEX_BEHIND) if f.kind == FOUND_INTERRUPTED_COMMIT else f
        for f in finish(repo, root, git_dir, entry, (old, new), others_live=False)
    ]
