"""``kill -9`` at random moments, in a loop: a process runs a seeded sequence of mutating
commands on a copy of a small store and is killed after a random delay; the next write must
succeed and ``doctor --fix`` must leave a store that keeps every promise of issue 14.

Most runs fork the (already warm) test process and run one command in the child, killed at a
random point of its measured life, so the kill lands in the command rather than in an
interpreter's start; every fifth run kills a real ``memhtml apply`` process instead. Seeded,
so a failing run can be replayed alone (``FAULT_LOOP_ONLY=<run>``).
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import attrs
import pytest

from tests.faults.harness import (
    KILLED,
    BaseStore,
    assert_recovered,
    build_base,
    cli_command,
    clone,
    invoke,
    jsonl,
    process_env,
    run,
    write_op,
)

SEED: Final = 14
RUNS: Final = 50
REAL_PROCESS_EVERY: Final = 5
# A forked run's kill falls anywhere in its command's life (measured once per kind, unkilled,
# on a copy of the store): the commit window is only ~15 % of an apply, so spreading the kill
# over a fixed few seconds would mostly hit the same early phase.
LIFE_MARGIN: Final = 1.0
# Half the forked runs of a committing kind wait for its journal to appear and kill inside the
# commit window (a random point of its measured length): that is where a kill does harm.
WINDOW_SHARE: Final = 0.5
COMMITTING: Final = frozenset({"apply", "write", "correct", "archive", "link", "export", "fix"})
JOURNAL_POLL_S: Final = 0.001
JOURNAL_WAIT_S: Final = 5.0
# A real process spends its first part starting the interpreter: kill in the rest.
PROCESS_SHARE: Final = (0.35, 1.0)
# What a forked run draws from, apply twice as often: its commit window is the longest.
KINDS: Final = (
    "apply",
    "apply",
    "write",
    "correct",
    "archive",
    "link",
    "export",
    "import",
    "rebuild",
    "fix",
)

HEALED: Final = re.compile(r"repaired ([a-z-]+)|an (index rebuild) was interrupted")
"""What the next write's warnings say it repaired, recorded per run."""

Command = tuple[list[str], str]
"""A command's arguments and its standard input."""


def commands_of(kind: str, store: BaseStore, tag: int) -> list[Command]:
    """The command(s) a run of ``kind`` kills; ``tag`` keeps each run's memories distinct."""
    paths = store.paths
    pick = paths[tag % len(paths)]
    other = paths[(tag + 1) % len(paths)]
    if kind == "apply":
        return [(["apply"], jsonl([write_op(1000 + tag * 50 + n) for n in range(40)]))]
    if kind == "write":
        claim = f"The loop wrote this in run {tag}."
        return [(["write", "--title", f"Loop {tag}", "--type", "semantic", "--claim", claim], "")]
    if kind == "correct":
        claim = f"Corrected in run {tag}."
        return [(["correct", pick, "--title", f"Fix {tag}", "--claim", claim], "")]
    if kind == "archive":
        return [(["archive", pick, "--reason", f"loop {tag}"], "")]
    if kind == "link":
        return [(["link", pick, "supports", other], "")]
    if kind == "export":
        return [(["read", pick], ""), (["state", "export"], "")]
    if kind == "import":
        return [(["state", "import"], "")]
    if kind == "rebuild":
        return [(["index", "rebuild"], "")]
    return [
        (["archive", other, "--reason", "leave a link dangling"], ""),
        (["doctor", "--fix"], ""),
    ]


def run_in_child(root: Path, sequence: Sequence[Command]) -> int:
    """Fork; the child runs ``sequence`` through the click group and exits. Returns its pid."""
    pid = os.fork()
    if pid:
        return pid
    try:  # the child: never return into pytest
        for args, stdin in sequence:
            invoke(["--repo", str(root), *args], stdin=stdin)
    finally:
        os._exit(0)


def kill_child(pid: int, delay: float, *, after_journal: Path | None = None) -> bool:
    """SIGKILL the child ``delay`` s after it started, or after a commit journal appeared in
    ``after_journal`` (a ``.git``); True when it was still running."""
    if after_journal is not None:
        deadline = time.monotonic() + JOURNAL_WAIT_S
        while not journal_present(after_journal) and time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0]:
                return False
            time.sleep(JOURNAL_POLL_S)
    time.sleep(delay)
    finished, _ = os.waitpid(pid, os.WNOHANG)
    if finished:
        return False
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return True


def journal_present(git_dir: Path) -> bool:
    """A commit is in its window: its journal is in ``.git``."""
    return any(name.startswith("memhtml-commit-") for name in os.listdir(git_dir))


def kill_process_after(root: Path, run_number: int, delay: float) -> bool:
    """Start a real ``memhtml apply`` and SIGKILL it after ``delay`` s."""
    ops = jsonl([write_op(5000 + run_number * 100 + n) for n in range(30)])
    child = subprocess.Popen(
        cli_command(root, ["apply"]),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=process_env(),
    )
    assert child.stdin is not None
    child.stdin.write(ops.encode())
    child.stdin.close()
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    return KILLED == child.wait()


def children_of(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != b"Z":
            found.append(int(entry))
    return found


@attrs.frozen(kw_only=True)
class Timing:
    """How long a kind of run takes unkilled, and how long its commit window stays open."""

    life: float
    window: float


def timing(base: BaseStore, scratch: Path, commands: Sequence[Command]) -> Timing:
    """Run ``commands`` in a forked child on a copy of ``base``, unkilled, watching ``.git``."""
    store = clone(base, scratch)
    git_dir = store.root / ".git"
    started = time.monotonic()
    pid = run_in_child(store.root, commands)
    seen: list[float] = []
    while not os.waitpid(pid, os.WNOHANG)[0]:
        if journal_present(git_dir):
            seen.append(time.monotonic())
        time.sleep(JOURNAL_POLL_S)
    window = seen[-1] - seen[0] if seen else 0.0
    return Timing(life=time.monotonic() - started, window=max(window, JOURNAL_POLL_S))


def apply_process_lifetime(base: BaseStore, scratch: Path) -> float:
    """Seconds a real ``memhtml apply`` of the loop's size takes, unkilled."""
    store = clone(base, scratch)
    started = time.monotonic()
    done = subprocess.run(
        cli_command(store.root, ["apply"]),
        input=jsonl([write_op(9000 + n) for n in range(30)]).encode(),
        capture_output=True,
        env=process_env(),
        check=False,
    )
    assert 0 == done.returncode, done.stderr
    return time.monotonic() - started


@pytest.mark.faultloop
def test_random_kills_always_recover(tmp_path: Path) -> None:
    """50 seeded kills at random moments; after each the next write lands and the store is
    whole again after doctor --fix (see ``assert_recovered``)."""
    base = build_base(tmp_path / "base")
    timings = {
        kind: timing(base, tmp_path / f"calibrate-{kind}", commands_of(kind, base, 0))
        for kind in sorted(set(KINDS))
    }
    process_life = apply_process_lifetime(base, tmp_path / "calibrate-process")
    rng = random.Random(SEED)
    only = os.environ.get("FAULT_LOOP_ONLY")
    killed = healed_runs = 0
    outcomes: list[str] = []
    for run_number in range(RUNS):
        real = run_number % REAL_PROCESS_EVERY == 0
        kind = "apply (process)" if real else rng.choice(KINDS)
        in_window = not real and kind in COMMITTING and rng.random() < WINDOW_SHARE
        share = rng.uniform(*PROCESS_SHARE) if real else rng.uniform(0.0, LIFE_MARGIN)
        if only is not None and int(only) != run_number:
            continue
        store = clone(base, tmp_path / f"run-{run_number}")
        if real:
            delay = share * process_life
            was_killed = kill_process_after(store.root, run_number, delay)
        else:
            measured = timings[kind]
            delay = share * (measured.window if in_window else measured.life)
            pid = run_in_child(store.root, commands_of(kind, base, run_number + 1))
            journal = store.root / ".git" if in_window else None
            was_killed = kill_child(pid, delay, after_journal=journal)
            assert [] == children_of(pid)
        killed += was_killed
        written = run(
            store.root,
            "write",
            "--title",
            f"After kill {run_number}",
            "--type",
            "semantic",
            "--claim",
            f"Written after kill {run_number}.",
        )
        assert 0 == written.exit_code, (run_number, written.stdout, written.stderr)
        healed = [kind for pair in HEALED.findall(written.stderr) for kind in pair if kind]
        healed_runs += bool(healed)
        assert_recovered(store.root)
        outcomes.append(json.dumps([run_number, kind, in_window, round(delay, 3), healed]))
    print("\n".join(outcomes))
    if only is None:
        # The loop must mostly kill mid-work, and often enough mid-commit or mid-rebuild that
        # the next command had something to repair, or it tests little.
        assert (killed >= RUNS // 2, healed_runs >= RUNS // 10) == (True, True), outcomes
