"""The fault-injection suite's tools: a small lexical store, commands run as real processes
that are killed (by the ``MEMHTML_FAULT_AT`` hook or by ``kill -9``), and the one check every
fault ends with (:func:`assert_recovered`).

Follow-up commands run in-process through the real click group: they need no crash, and an
interpreter start per command would double the suite's time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
from click.testing import CliRunner, Result
from dulwich.repo import Repo

from memhtml.adapters.git import DulwichGit
from memhtml.adapters.html import parse_memory
from memhtml.adapters.local import MINILM_WATERMARK
from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.system.clock import SystemClock
from memhtml.app.cli import cli
from memhtml.faults import ENV_FAULT_AT
from memhtml.ports.git import blob_sha
from tests.support import sqlite_indexer

CONSOLE_SCRIPT: Final = Path(sys.executable).parent / "memhtml"
LEXICAL_ENV: Final[dict[str, str | None]] = {
    "MEMHTML_ROOT": None,
    "MEMHTML_REFUSE_ENV_ROOT": None,
    "MEMHTML_LOG_LEVEL": None,
    "MEMHTML_EMBED": "off",
    ENV_FAULT_AT: None,
}
KILLED: Final = -signal.SIGKILL
# Index tables compared with a fresh rebuild, and the columns that hold the instant of
# indexing (which differs between any two builds) rather than anything read from git.
INDEX_TABLES: Final[dict[str, frozenset[str]]] = {
    "files": frozenset({"indexed_at"}),
    "file_tags": frozenset(),
    "file_entities": frozenset(),
    "file_facets": frozenset(),
    "file_citations": frozenset(),
    "chunks": frozenset(),
    "edges": frozenset({"created_at"}),
}
WORDS: Final = [
    "invoice",
    "ledger",
    "export",
    "retry",
    "budget",
    "cache",
    "warming",
    "checkout",
    "payment",
    "queue",
    "window",
    "deploy",
    "rollback",
    "canary",
    "latency",
    "shard",
    "replica",
    "backup",
    "restore",
    "audit",
    "token",
]


@attrs.frozen(kw_only=True)
class BaseStore:
    """A built store to copy per test, and the active memories it holds.

    Attributes:
        root: Its working tree.
        paths: Active memory paths written by the build, in write order.
    """

    root: Path
    paths: tuple[str, ...]


def invoke(args: Sequence[str], *, stdin: str = "", env: Mapping[str, str | None] = {}) -> Result:
    """One in-process invocation of the shipped group, lexical, stdout and stderr apart."""
    return CliRunner().invoke(cli, list(args), input=stdin, env={**LEXICAL_ENV, **env})


def run(root: Path, *args: str, stdin: str = "") -> Result:
    """Invoke a command against ``root``."""
    return invoke(["--repo", str(root), *args], stdin=stdin)


def ok(root: Path, *args: str, stdin: str = "") -> Any:
    """Invoke against ``root`` and return the success data, failing loudly otherwise."""
    result = run(root, *args, stdin=stdin)
    assert 0 == result.exit_code, result.stdout + result.stderr
    return json.loads(result.stdout)["data"]


def doctor_report(root: Path) -> Any:
    """``doctor``'s report on ``root``: the data of a healthy store (exit 0), or the detail of
    ``ERR_STORE_UNHEALTHY`` (exit 1), checked to agree with the report's ``healthy``."""
    result = run(root, "doctor")
    envelope = json.loads(result.stdout)
    if result.exit_code == 0:
        assert True is envelope["data"]["healthy"], result.stdout
        return envelope["data"]
    assert (1, "ERR_STORE_UNHEALTHY") == (result.exit_code, envelope["code"]), result.stdout
    assert False is envelope["detail"]["healthy"]
    return envelope["detail"]


def write_op(number: int, *, workspace: str | None = None) -> dict[str, object]:
    """One distinct ``apply`` write line."""
    words = [WORDS[(number * 7 + k) % len(WORDS)] for k in range(5)]
    op: dict[str, object] = {
        "op": "write",
        "title": f"{' '.join(words[:3]).capitalize()} note {number}",
        "type": "semantic",
        "claim": f"Fact {number}: the {' '.join(words)} setting holds at {number * 3} units.",
        "tag": [words[0]],
    }
    if workspace is not None:
        op["workspace"] = workspace
    return op


def jsonl(ops: Sequence[Mapping[str, object]]) -> str:
    """``apply`` input for ``ops``."""
    return "".join(json.dumps(op) + "\n" for op in ops)


def build_base(root: Path, *, memories: int = 16) -> BaseStore:
    """A store with ``memories`` memories, one link, one archived memory, a read and an
    exported state sidecar, all committed."""
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    ops = [write_op(n, workspace="checkout" if n % 3 == 0 else None) for n in range(memories)]
    applied = ok(root, "apply", stdin=jsonl(ops))
    paths = [result["path"] for result in applied["results"]]
    ok(root, "link", paths[0], "relates_to", paths[1])
    ok(root, "archive", paths[-1], "--reason", "superseded in the base store")
    ok(root, "read", paths[2])
    ok(root, "state", "export")
    ok(root, "index", "update")  # the export's commit, so the next preflight finds nothing
    return BaseStore(root=root, paths=tuple(paths[:-1]))


def clone(base: BaseStore, into: Path) -> BaseStore:
    """A copy of the base store (files, databases and ``.git``) at ``into``."""
    shutil.copytree(base.root, into, symlinks=True)
    return BaseStore(root=into, paths=base.paths)


def cli_command(root: Path, args: Sequence[str]) -> list[str]:
    """The console script's command line for ``args`` against ``root``."""
    return [str(CONSOLE_SCRIPT), "--repo", str(root), *args]


def process_env(step: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a command run as a process: lexical, the fault hook armed at
    ``step`` when given."""
    env = {k: v for k, v in os.environ.items() if k not in LEXICAL_ENV}
    env.update({k: v for k, v in LEXICAL_ENV.items() if v is not None})
    if step is not None:
        env[ENV_FAULT_AT] = step
    env.update(extra)
    return env


def run_killed_at(
    root: Path, step: str, args: Sequence[str], *, stdin: str = "", **extra: str
) -> None:
    """Run a command as a process armed to die at ``step``, and check that it did."""
    done = subprocess.run(
        cli_command(root, args),
        input=stdin.encode(),
        env=process_env(step, **extra),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert KILLED == done.returncode, (step, done.returncode, done.stdout, done.stderr)


def head_count(root: Path) -> int:
    """Commits reachable from HEAD."""
    with Repo(str(root)) as repo:
        return sum(1 for _ in repo.get_walker())


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The system ``git`` binary in ``root``, with no user configuration."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
        "GIT_AUTHOR_NAME": "Fault Suite",
        "GIT_AUTHOR_EMAIL": "faults@localhost.invalid",
        "GIT_COMMITTER_NAME": "Fault Suite",
        "GIT_COMMITTER_EMAIL": "faults@localhost.invalid",
    }
    return subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def assert_recovered(root: Path) -> dict[str, Any]:
    """``doctor --fix``, then every promise of issue 14; returns what ``--fix`` repaired.

    After the repair: doctor finds the store healthy with nothing left to recover; the system
    ``git fsck`` is clean and git counts no garbage objects; git status is clean and every
    file of HEAD is in the working tree with HEAD's bytes; the index equals a fresh rebuild
    and its full-text index is consistent; no journal or lock is left; and no process that
    worked on this store is still alive.
    """
    fixed = ok(root, "doctor", "--fix")
    report = doctor_report(root)
    assert (True, [], True) == (report["healthy"], report["recovery"], report["indexFresh"]), report
    fsck = git(root, "fsck", "--no-progress", "--no-dangling")
    assert (0, "") == (fsck.returncode, fsck.stdout + fsck.stderr)
    counted = git(root, "count-objects", "-v")
    assert "garbage: 0" in counted.stdout.splitlines(), counted.stdout
    status = git(root, "status", "--porcelain=v1", "--untracked-files=all")
    assert (0, "", "") == (status.returncode, status.stdout, status.stderr)
    assert [] == missing_from_working_tree(root)
    assert canonical_index(root / ".memhtml" / "index.db") == fresh_rebuild(root)
    assert [] == leftovers(root)
    assert [] == processes_on(root)
    return dict(fixed["repaired"])


def missing_from_working_tree(root: Path) -> list[str]:
    """HEAD's files that are absent from the working tree or hold other bytes."""
    git_port = DulwichGit(root)
    head = git_port.head()
    assert head is not None
    wrong = []
    for entry in git_port.list_tree(head):
        path = root / entry.path
        if not path.is_file() or blob_sha(path.read_bytes()) != entry.blob_sha:
            wrong.append(entry.path)
    return wrong


def canonical_index(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every memory table's rows, sorted, without the instants of indexing, and the schema
    (tables, indexes, triggers: a rebuild sets indexes and triggers aside); checks both FTS
    indexes (own text, context documents) against their content tables on the way."""
    with Database.open(path) as db:
        db.run("INSERT INTO files_fts(files_fts) VALUES ('integrity-check')")
        db.run("INSERT INTO context_fts(context_fts) VALUES ('integrity-check')")
        state = db.get("SELECT head_sha FROM index_state")
        assert state is not None
        assert state[0] == DulwichGit(path.parent.parent).head()
        return {
            **_schema(db),
            **{table: _rows(db, table, skip) for table, skip in INDEX_TABLES.items()},
        }


def fresh_rebuild(root: Path) -> dict[str, list[tuple[object, ...]]]:
    """The canonical rows of an index rebuilt from scratch from ``root``'s HEAD."""
    scratch = root.parent / f"{root.name}-fresh-index.db"
    for leftover in scratch.parent.glob(scratch.name + "*"):
        leftover.unlink()
    with Database.open(scratch) as db:
        sqlite_indexer(
            db=db,
            git=DulwichGit(root),
            parser=parse_memory,
            clock=SystemClock(),
            embed_watermark=MINILM_WATERMARK,
            embed_dim=int(MINILM_WATERMARK.rsplit("@", 1)[1]),
        ).rebuild(embed=False)
    with Database.open(scratch) as db:
        return {
            **_schema(db),
            **{table: _rows(db, table, skip) for table, skip in INDEX_TABLES.items()},
        }


def _schema(db: Database) -> dict[str, list[tuple[object, ...]]]:
    return {"sqlite_master": sorted(db.all("SELECT type, name, sql FROM sqlite_master"), key=repr)}


def _rows(db: Database, table: str, skip: frozenset[str]) -> list[tuple[object, ...]]:
    columns = [str(row[1]) for row in db.all(f"PRAGMA table_info({table})")]
    kept = ", ".join(c for c in columns if c not in skip)
    return sorted(db.all(f"SELECT {kept} FROM {table}"), key=repr)


def leftovers(root: Path) -> list[str]:
    """Journals, lock files and half-written objects a writer left in ``.git``."""
    git_dir = root / ".git"
    found = [p.name for p in git_dir.iterdir() if p.name.startswith("memhtml-commit-")]
    found += [str(p.relative_to(git_dir)) for p in git_dir.rglob("*.lock")]
    found += [p.name for p in (git_dir / "objects" / "pack").glob("tmp*")]
    return sorted(found)


def processes_on(root: Path) -> list[int]:
    """Live processes (zombies excluded) whose command line names ``root``."""
    me = os.getpid()
    needle = str(root).encode()
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        if needle in cmdline and stat[stat.rindex(b")") + 2 :][:1] != b"Z":
            alive.append(int(entry))
    return alive
