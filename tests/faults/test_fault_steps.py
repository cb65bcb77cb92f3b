"""Every step of every mutating command, killed there (``MEMHTML_FAULT_AT``, a real SIGKILL of
a real ``memhtml`` process): the next command succeeds, the killed command's commit is either
wholly in HEAD or wholly absent, and after ``doctor --fix`` every promise of issue 14 holds
(:func:`tests.faults.harness.assert_recovered`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from memhtml.faults import FAULT_STEPS
from tests.faults.harness import (
    BaseStore,
    assert_recovered,
    build_base,
    clone,
    doctor_report,
    git,
    head_count,
    jsonl,
    ok,
    run,
    run_killed_at,
    write_op,
)

NEXT_WRITE = (
    "write",
    "--title",
    "Written after the crash",
    "--type",
    "semantic",
    "--claim",
    "This memory was written by the command that followed the crash.",
)


@attrs.frozen(kw_only=True)
class Scenario:
    """One command killed at one step.

    Attributes:
        name: The test id.
        step: ``MEMHTML_FAULT_AT``'s value.
        args: The killed command's arguments, from the store.
        stdin: Its standard input.
        lands: Whether its commit is in HEAD once the store recovered; ``None`` for a command
            that commits nothing.
        prepare: Run on the store before the killed command (a second fault, an edit…).
        after_kill: Checked right after the kill, before anything else touches the store.
    """

    name: str
    step: str
    args: Callable[[BaseStore], list[str]]
    stdin: Callable[[BaseStore], str] = lambda _: ""
    lands: bool | None = None
    prepare: Callable[[BaseStore], None] | None = None
    after_kill: Callable[[BaseStore], None] | None = None


def _write(_: BaseStore) -> list[str]:
    return [
        "write",
        "--title",
        "Killed mid write",
        "--type",
        "semantic",
        "--claim",
        "A write that was killed at a chosen step.",
    ]


def _correct(store: BaseStore) -> list[str]:
    return [
        "correct",
        store.paths[3],
        "--title",
        "Corrected note three",
        "--claim",
        "The corrected claim after the fault.",
    ]


def _archive(store: BaseStore) -> list[str]:
    return ["archive", store.paths[4], "--reason", "killed mid archive"]


def _link(store: BaseStore) -> list[str]:
    return ["link", store.paths[5], "caused_by", store.paths[6]]


def _apply(_: BaseStore) -> list[str]:
    return ["apply"]


def _apply_ops(_: BaseStore) -> str:
    return jsonl([write_op(n) for n in range(100, 120)])


def _dangle(store: BaseStore) -> None:
    """Archive the target of the base store's link, so doctor --fix has a link to repair."""
    ok(store.root, "archive", store.paths[1], "--reason", "leave a dangling link")


def _commit_with_git(store: BaseStore) -> None:
    """Edit a memory and commit it with git itself, so ``index update`` has work to do."""
    path = store.root / store.paths[7]
    path.write_text(path.read_text(encoding="utf-8").replace("Fact 7", "Fact 7 (edited)"))
    assert 0 == git(store.root, "add", store.paths[7]).returncode
    assert 0 == git(store.root, "commit", "-q", "-m", "edit by hand").returncode


def _read_one(store: BaseStore) -> None:
    ok(store.root, "read", store.paths[8])


def _apply_killed_after_the_branch_moved(store: BaseStore) -> None:
    run_killed_at(store.root, "commit.ref", ["apply"], stdin=_apply_ops(store))


def _garbage_state(store: BaseStore) -> None:
    with (store.root / ".memhtml" / "state.db").open("r+b") as handle:
        handle.write(b"\x5a" * 8192)


def _stale_with_reason(store: BaseStore) -> None:
    status = ok(store.root, "index", "status")
    assert (True, "memhtml index rebuild") == (status["stale"], status["staleFix"])
    assert "rebuild died" in status["staleReason"]


def _doctor_sees_interrupted_commit(store: BaseStore) -> None:
    report = doctor_report(store.root)
    kinds = [finding["kind"] for finding in report["recovery"]]
    assert (False, "interrupted-commit") == (report["healthy"], kinds[0])


SCENARIOS = [
    Scenario(name="write-locked", step="commit.locked", args=_write, lands=False),
    Scenario(name="write-objects", step="commit.objects", args=_write, lands=False),
    Scenario(
        name="write-prepared",
        step="commit.prepared",
        args=_write,
        lands=False,
        after_kill=_doctor_sees_interrupted_commit,
    ),
    Scenario(
        name="write-ref",
        step="commit.ref",
        args=_write,
        lands=True,
        after_kill=_doctor_sees_interrupted_commit,
    ),
    Scenario(name="write-worktree", step="commit.worktree", args=_write, lands=True),
    Scenario(name="write-index", step="commit.index", args=_write, lands=True),
    Scenario(name="write-committed", step="mutation.committed", args=_write, lands=True),
    Scenario(name="write-update-batch", step="update.batch", args=_write, lands=True),
    Scenario(name="write-update-projected", step="update.projected", args=_write, lands=True),
    Scenario(name="correct-prepared", step="commit.prepared", args=_correct, lands=False),
    Scenario(name="correct-moved", step="commit.worktree:1", args=_correct, lands=True),
    Scenario(name="correct-index", step="commit.index", args=_correct, lands=True),
    Scenario(name="archive-ref", step="commit.ref", args=_archive, lands=True),
    Scenario(name="archive-moved", step="commit.worktree:1", args=_archive, lands=True),
    Scenario(name="link-objects", step="commit.objects", args=_link, lands=False),
    Scenario(name="link-worktree", step="commit.worktree", args=_link, lands=True),
    *(
        Scenario(name=name, step=step, args=_apply, stdin=_apply_ops, lands=lands)
        for name, step, lands in (
            ("apply-prepared", "commit.prepared", False),
            ("apply-worktree-7", "commit.worktree:7", True),
            ("apply-committed", "mutation.committed", True),
        )
    ),
    Scenario(
        name="state-export-ref",
        step="commit.ref",
        args=lambda _: ["state", "export"],
        lands=True,
        prepare=_read_one,
    ),
    Scenario(name="state-import-batch", step="state.batch", args=lambda _: ["state", "import"]),
    Scenario(
        name="index-update-batch",
        step="update.batch",
        args=lambda _: ["index", "update"],
        prepare=_commit_with_git,
    ),
    Scenario(
        name="index-update-projected",
        step="update.projected",
        args=lambda _: ["index", "update"],
        prepare=_commit_with_git,
    ),
    *(
        Scenario(
            name=f"index-{step.replace('.', '-')}",
            step=step,
            args=lambda _: ["index", "rebuild"],
            after_kill=_stale_with_reason,
        )
        for step in ("rebuild.truncated", "rebuild.batch", "rebuild.projected", "rebuild.embedded")
    ),
    Scenario(
        name="doctor-fix-repaired",
        step="doctor.repaired",
        args=lambda _: ["doctor", "--fix"],
        lands=True,
        prepare=_dangle,
    ),
    Scenario(
        name="doctor-fix-commit-worktree",
        step="commit.worktree",
        args=lambda _: ["doctor", "--fix"],
        lands=True,
        prepare=_dangle,
    ),
    Scenario(
        name="doctor-fix-recover-worktree",
        step="recover.worktree:3",
        args=lambda _: ["doctor", "--fix"],
        prepare=_apply_killed_after_the_branch_moved,
    ),
    Scenario(
        name="doctor-fix-recover-index",
        step="recover.index",
        args=lambda _: ["doctor", "--fix"],
        prepare=_apply_killed_after_the_branch_moved,
    ),
    Scenario(
        name="search-heal-moved",
        step="heal.moved",
        args=lambda _: ["search", "invoice"],
        prepare=_garbage_state,
    ),
]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> BaseStore:
    """One built store per module; each test works on a copy."""
    return build_base(tmp_path_factory.mktemp("base") / "store")


@pytest.fixture
def store(base: BaseStore, tmp_path: Path) -> BaseStore:
    """A copy of the base store."""
    return clone(base, tmp_path / "store")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_killed_at_a_step_the_store_recovers(scenario: Scenario, store: BaseStore) -> None:
    """Killed at the step: the next write succeeds, the killed commit is all or nothing,
    and doctor --fix leaves a store that keeps every promise of issue 14."""
    if scenario.prepare is not None:
        scenario.prepare(store)
    before = head_count(store.root)
    run_killed_at(store.root, scenario.step, scenario.args(store), stdin=scenario.stdin(store))
    if scenario.after_kill is not None:
        scenario.after_kill(store)
    written = run(store.root, *NEXT_WRITE)
    assert 0 == written.exit_code, written.stdout + written.stderr
    if scenario.lands is not None:
        assert before + int(scenario.lands) + 1 == head_count(store.root)
    assert_recovered(store.root)


def test_state_is_restored_when_a_heal_is_killed_after_moving_it_aside(store: BaseStore) -> None:
    """A heal killed right after it moved a damaged state.db aside is finished by the next
    open: the committed sidecar's rows are back, and the warning says what was lost."""
    _garbage_state(store)
    run_killed_at(store.root, "heal.moved", ["search", "invoice"])
    result = run(store.root, "index", "status")
    exported = (store.root / ".memhtml" / "state" / "access.jsonl").read_text(encoding="utf-8")
    assert (0, True) == (result.exit_code, json.loads(result.stdout)["data"]["hasState"])
    assert re.search(r"restored 1 access rows from \.memhtml/state/access\.jsonl", result.stderr)
    assert "could not be recovered" in result.stderr
    assert 1 == len(exported.splitlines())


def test_every_fault_step_is_exercised_here_or_in_the_embed_test() -> None:
    """The table reaches every step the code names, so a new step cannot go untested."""
    covered = {scenario.step.partition(":")[0] for scenario in SCENARIOS} | {"embed.slice"}
    assert FAULT_STEPS == covered
