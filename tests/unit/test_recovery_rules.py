"""Issue 14's pure rules and app-side wiring over fakes: the fault hook's spec, which index
states count as stale, how findings are reported, and the repair before every mutation."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.recovery import repair_before_writing
from memhtml.app.use_cases.index_ops import REBUILD_FIX, UPDATE_FIX, staleness
from memhtml.app.use_cases.recovery_report import (
    DOCTOR_FIX,
    FOUND_INDEX_INCOMPLETE,
    described,
    needs_attention,
)
from memhtml.app.use_cases.write import write_memory
from memhtml.domain.errors import InvalidInput
from memhtml.domain.write_requests import WriteRequest
from memhtml.faults import FAULT_STEPS, FaultSpecInvalid, _parse
from memhtml.ports.git_writer import (
    FOUND_COMMIT_IN_PROGRESS,
    FOUND_HELD_LOCK,
    FOUND_INTERRUPTED_COMMIT,
    FOUND_STALE_LOCK,
    GitLocked,
    RecoveryFinding,
)
from memhtml.ports.indexer import EMPTY_TREE_SHA as EMPTY_TREE
from memhtml.ports.indexer import IndexState
from memhtml.ports.storage import FOUND_INDEX_CORRUPT
from tests.fakes.write_plane import fake_store

PACKAGE = Path(__file__).resolve().parents[2] / "memhtml"
HEAD = "a" * 40
OLDER = "b" * 40


def state(head: str | None) -> IndexState:
    """A watermark row at ``head`` (``None``: a rebuild's open window)."""
    stamp = "2026-01-01T00:00:00Z"
    return IndexState(
        head_sha=head, embed_model="m@3", embed_dim=3, rebuilt_at=stamp, updated_at=stamp
    )


# --- the fault hook -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, None),
        ("", None),
        ("  ", None),
        ("commit.ref", ("commit.ref", 1)),
        ("commit.worktree:7", ("commit.worktree", 7)),
    ],
)
def test_fault_spec_names_a_step_and_a_count(
    raw: str | None, expected: tuple[str, int] | None
) -> None:
    """Unset or blank arms nothing; a step alone fires on its first hit; `:n` on its n-th."""
    assert expected == _parse(raw)


@given(st.text(max_size=30))
def test_any_other_fault_spec_is_refused_as_bad_input(raw: str) -> None:
    """A value naming no step (or a count that is not a positive integer) is an error, never
    silently nothing: a typo in a test would otherwise pass without its crash."""
    step, _, count = raw.strip().partition(":")
    valid = not raw.strip() or (
        step in FAULT_STEPS and (not count or (count.isdigit() and int(count) > 0))
    )
    if valid:
        _parse(raw)
        return
    with pytest.raises(FaultSpecInvalid) as refused:
        _parse(raw)
    assert isinstance(refused.value, InvalidInput)


def _fault_points_in_code() -> set[str]:
    found: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "fault_point"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.add(str(node.args[0].value))
    return found


def test_every_registered_step_is_reached_and_every_reached_step_registered() -> None:
    """The registry and the code name the same steps, so the suite's table covers the code."""
    assert FAULT_STEPS == _fault_points_in_code()


# --- index staleness ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "head", "rebuilding", "expected"),
    [
        (None, HEAD, False, (True, "the index has never been built", REBUILD_FIX)),
        (
            state(None),
            HEAD,
            False,
            (True, "a rebuild died and left the index partial", REBUILD_FIX),
        ),
        (state(None), HEAD, True, (True, "another process is rebuilding the index", None)),
        (
            state(OLDER),
            HEAD,
            False,
            (True, "the index describes bbbbbbb, HEAD is aaaaaaa", UPDATE_FIX),
        ),
        (state(HEAD), HEAD, False, (False, None, None)),
        (state(EMPTY_TREE), None, False, (False, None, None)),
        (
            state(EMPTY_TREE),
            HEAD,
            False,
            (True, "the index describes an unborn HEAD, HEAD is aaaaaaa", UPDATE_FIX),
        ),
    ],
)
def test_staleness_says_why_and_what_fixes_it(
    row: IndexState | None,
    head: str | None,
    rebuilding: bool,
    expected: tuple[bool, str | None, str | None],
) -> None:
    """Never built, a died rebuild, a live one, a lagging watermark, a current one."""
    assert expected == staleness(row, head, rebuilding=rebuilding)


# --- findings as doctor reports them ------------------------------------------------------


def test_findings_carry_their_fix_unless_repaired_or_in_progress() -> None:
    """A repaired finding needs nothing; work in progress needs nothing but a held lock needs
    the wait; every other kind names its command."""
    findings = (
        RecoveryFinding(kind=FOUND_INTERRUPTED_COMMIT, detail="d", repaired=False),
        RecoveryFinding(kind=FOUND_STALE_LOCK, detail="d", repaired=True),
        RecoveryFinding(kind=FOUND_COMMIT_IN_PROGRESS, detail="d", repaired=False),
        RecoveryFinding(kind=FOUND_HELD_LOCK, detail="d", repaired=False),
        RecoveryFinding(kind=FOUND_INDEX_INCOMPLETE, detail="d", repaired=False),
        RecoveryFinding(kind=FOUND_INDEX_CORRUPT, detail="d", repaired=False),
    )
    fixes = [f.fix for f in described(findings)]
    assert [
        DOCTOR_FIX,
        None,
        None,
        "wait for the git command holding the lock to finish",
        REBUILD_FIX,
        DOCTOR_FIX,
    ] == fixes


def test_only_problems_need_attention() -> None:
    """A commit in progress or a held lock is not unhealthy; an interrupted commit is."""
    busy = described(
        (
            RecoveryFinding(kind=FOUND_COMMIT_IN_PROGRESS, detail="d", repaired=False),
            RecoveryFinding(kind=FOUND_HELD_LOCK, detail="d", repaired=False),
        )
    )
    broken = described(
        (RecoveryFinding(kind=FOUND_INTERRUPTED_COMMIT, detail="d", repaired=False),)
    )
    assert (False, True) == (needs_attention(busy), needs_attention(broken))


# --- the repair before a mutation ---------------------------------------------------------


def test_a_mutation_repairs_first_then_writes() -> None:
    """What a killed writer left is repaired (under the lock) before the write plans."""
    store = fake_store()
    store.git.pending_recovery = [
        RecoveryFinding(kind=FOUND_INTERRUPTED_COMMIT, detail="d", repaired=False)
    ]
    result = write_memory(store.deps, WriteRequest(title="T", memory_type="semantic", claim="C."))
    assert (1, [], True) == (store.git.recoveries, store.git.pending_recovery, result.created)


def test_a_killed_commit_blocked_by_a_live_lock_refuses_the_mutation() -> None:
    """An interrupted commit waiting on a lock a live git holds: GitLocked, naming the lock,
    and nothing is written."""
    store = fake_store()
    blocked = RecoveryFinding(
        kind=FOUND_INTERRUPTED_COMMIT,
        detail="/r/.git/index.lock is held (git process 7 is running here); commit abc waits",
        repaired=False,
        path="/r/.git/index.lock",
    )
    store.git.pending_recovery = [blocked]
    store.git.recover = lambda *, sweep=False: (blocked,)  # type: ignore[method-assign]
    with pytest.raises(GitLocked) as refused:
        repair_before_writing(store.git)
    assert ("/r/.git/index.lock", None) == (refused.value.lock_path, store.git.head())


def test_a_merely_held_lock_is_left_to_the_commits_retries() -> None:
    """A git command holding its lock is an ordinary race: the repair reports it and the
    mutation goes on (the commit retries on the lock)."""
    store = fake_store()
    held = RecoveryFinding(
        kind=FOUND_HELD_LOCK, detail="only 0 s old", repaired=False, path="/r/.git/index.lock"
    )
    store.git.pending_recovery = [held]
    store.git.recover = lambda *, sweep=False: (held,)  # type: ignore[method-assign]
    assert (held,) == repair_before_writing(store.git)


def test_nothing_to_repair_costs_no_repair() -> None:
    """With nothing left behind, the repair is one cheap question."""
    store = fake_store()
    assert ((), 0) == (repair_before_writing(store.git), store.git.recoveries)
