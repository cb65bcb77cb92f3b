"""The store commands end to end: a real git repository and real SQLite under ``tmp_path``,
driven through the real ``memhtml`` group in-process, with embedding off.

The helpers at the top (``invoke``, ``data``, ``Store``) are shared by the other
``test_cli_commands_*`` files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import pytest
from click.testing import CliRunner, Result
from dulwich.repo import Repo

from memhtml.app.cli import cli

BASE_ENV: Final[dict[str, str | None]] = {
    "MEMHTML_ROOT": None,
    "MEMHTML_REFUSE_ENV_ROOT": None,
    "MEMHTML_LOG_LEVEL": None,
    "MEMHTML_EMBED": "off",
}
# Databases change on every index pass, refused or not; the tree and git's objects must not.
DATABASE_PREFIXES: Final = (".memhtml/index.db", ".memhtml/state.db")
EXPORT_PATH: Final = "resources/billing/invoice-export-runs-at-03-30-utc.html"
LOCK_PATH: Final = "resources/billing/ledger-lock-holds-for-40-minutes.html"
EXPORT_WRITE: Final = [
    "write",
    "--title",
    "Invoice export runs at 03:30 UTC",
    "--type",
    "procedural",
    "--claim",
    "The invoice export job starts at 03:30 UTC every night.",
    "--body",
    "Moved from 01:00 after the ledger lock contention.",
    "--tag",
    "billing",
    "--entity",
    "service:invoice-exporter",
    "--importance",
    "7",
]
LOCK_WRITE: Final = [
    "write",
    "--title",
    "Ledger lock holds for 40 minutes",
    "--type",
    "semantic",
    "--claim",
    "The nightly ledger lock is held for about 40 minutes.",
    "--tag",
    "billing",
]


def invoke(args: list[str], env: Mapping[str, str | None] | None = None, stdin: str = "") -> Result:
    """One in-process invocation of the shipped group, stdout and stderr apart."""
    return CliRunner().invoke(cli, args, input=stdin, env={**BASE_ENV, **(env or {})})


def envelope(result: Result) -> Any:
    """The one envelope on stdout."""
    assert result.stdout.endswith("\n")
    return json.loads(result.stdout)


def data(result: Result) -> Any:
    """The success data, after checking the invocation succeeded."""
    assert 0 == result.exit_code, result.stdout + result.stderr
    return envelope(result)["data"]


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (``.git`` included) but the databases, by relative path."""
    files = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_file() and not relative.startswith(DATABASE_PREFIXES):
            files[relative] = path.read_bytes()
    return files


def commit_subjects(root: Path) -> list[str]:
    """Commit subjects from HEAD back."""
    with Repo(str(root)) as repo:
        return [e.commit.message.decode().split("\n", 1)[0] for e in repo.get_walker()]


class Store:
    """An initialized store and invocations against it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run(
        self, *args: str, stdin: str = "", env: Mapping[str, str | None] | None = None
    ) -> Result:
        """Invoke with ``--repo`` pointing here."""
        return invoke(["--repo", str(self.root), *args], env=env, stdin=stdin)

    def ok(self, *args: str, stdin: str = "") -> Any:
        """Invoke and return the success data."""
        return data(self.run(*args, stdin=stdin))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A freshly initialized store."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    return Store(root)


def test_init_creates_then_converges(tmp_path: Path) -> None:
    """init creates the scaffold once; a re-run reports created:false and commits nothing."""
    root = tmp_path / "new"
    first = data(invoke(["init", "--repo", str(root)]))
    second = data(invoke(["init", "--repo", str(root)]))
    assert ["root", "created", "headSha", "wrote"] == list(first)
    assert (True, str(root)) == (first["created"], first["root"])
    assert "areas/inbox/.gitkeep" in first["wrote"]
    assert {"created": False, "wrote": [], "headSha": first["headSha"]} == {
        k: second[k] for k in ("created", "wrote", "headSha")
    }
    assert ["memhtml(init): scaffold the memory repository"] == commit_subjects(root)


def test_write_reports_the_cli_md_fields_and_commits_once(store: Store) -> None:
    """write lands the worked example at its placed path with the keys of docs/cli-contract.md §3
    and one commit."""
    written = store.ok(*EXPORT_WRITE)
    assert [
        "path",
        "created",
        "deduped",
        "existingPath",
        "commitSha",
        "contentHash",
        "indexed",
        "conflicts",
        "nearDuplicates",
        "nearDuplicateSkipped",
        "nearDuplicateNote",
    ] == list(written)
    assert EXPORT_PATH == written["path"]
    assert (True, False, None, True) == (
        written["created"],
        written["deduped"],
        written["existingPath"],
        written["indexed"],
    )
    assert (store.root / EXPORT_PATH).is_file()
    assert "memhtml(write): Invoice export runs at 03:30 UTC" == commit_subjects(store.root)[0]


def test_write_of_known_content_dedups_without_a_commit(store: Store) -> None:
    """A second write of the same content reports deduped with the existing path, no commit."""
    first = store.ok(*EXPORT_WRITE)
    before = commit_subjects(store.root)
    again = store.ok(*EXPORT_WRITE)
    assert {"path": EXPORT_PATH, "created": False, "deduped": True} == {
        k: again[k] for k in ("path", "created", "deduped")
    }
    assert (EXPORT_PATH, None, first["contentHash"]) == (
        again["existingPath"],
        again["commitSha"],
        again["contentHash"],
    )
    assert before == commit_subjects(store.root)


def test_write_dense_drops_null_keys(store: Store) -> None:
    """--dense prints one line and drops existingPath, which is null on a fresh write."""
    result = store.run(*EXPORT_WRITE, "--dense")
    assert 1 == result.stdout.count("\n")
    assert "existingPath" not in envelope(result)["data"]


def test_correct_archives_the_target_and_writes_its_successor(store: Store) -> None:
    """correct moves the target under archive/<YYYY>/ and writes the replacement in one commit."""
    store.ok(*LOCK_WRITE)
    corrected = store.ok(
        "correct",
        LOCK_PATH,
        "--title",
        "Ledger lock holds for 45 minutes",
        "--claim",
        "The nightly ledger lock is held for about 45 minutes.",
        "--reason",
        "measured again",
    )
    assert [
        "path",
        "archivedPath",
        "commitSha",
        "contentHash",
        "indexed",
        "conflicts",
        "nearDuplicates",
        "nearDuplicateSkipped",
        "nearDuplicateNote",
    ] == list(corrected)
    assert "resources/billing/ledger-lock-holds-for-45-minutes.html" == corrected["path"]
    assert corrected["archivedPath"].startswith("archive/")
    assert corrected["archivedPath"].endswith("/" + LOCK_PATH)
    assert not (store.root / LOCK_PATH).exists()
    assert (store.root / corrected["archivedPath"]).is_file()
    assert "memhtml(correct): Ledger lock holds for 45 minutes" == commit_subjects(store.root)[0]


def test_archive_moves_the_file_and_names_both_paths(store: Store) -> None:
    """archive reports path and archivedPath and the file moves there."""
    store.ok(*LOCK_WRITE)
    archived = store.ok("archive", LOCK_PATH, "--reason", "superseded by the new schedule")
    assert ["path", "archivedPath", "commitSha", "indexed"] == list(archived)
    assert LOCK_PATH == archived["path"]
    assert (store.root / archived["archivedPath"]).is_file()
    assert not (store.root / LOCK_PATH).exists()


def test_archive_without_reason_is_a_missing_argument(store: Store) -> None:
    """archive needs --reason: ERR_MISSING_ARGUMENT, exit 2."""
    store.ok(*LOCK_WRITE)
    result = store.run("archive", LOCK_PATH)
    assert (2, "ERR_MISSING_ARGUMENT") == (result.exit_code, envelope(result)["code"])


def test_link_adds_an_edge_once(store: Store) -> None:
    """link commits a new edge; the same edge again is created:false with no commit."""
    store.ok(*EXPORT_WRITE)
    store.ok(*LOCK_WRITE)
    linked = store.ok("link", EXPORT_PATH, "caused_by", LOCK_PATH)
    assert ["srcPath", "dstPath", "rel", "created", "commitSha", "indexed"] == list(linked)
    assert (EXPORT_PATH, LOCK_PATH, "caused_by", True) == (
        linked["srcPath"],
        linked["dstPath"],
        linked["rel"],
        linked["created"],
    )
    again = store.ok("link", "/" + EXPORT_PATH, "caused_by", LOCK_PATH)
    assert (False, None) == (again["created"], again["commitSha"])


def test_link_with_a_system_relation_is_an_invalid_flag(store: Store) -> None:
    """A person relation is the system's own: ERR_INVALID_FLAG, nothing written."""
    store.ok(*EXPORT_WRITE)
    store.ok(*LOCK_WRITE)
    before = snapshot(store.root)
    result = store.run("link", EXPORT_PATH, "about_person", LOCK_PATH)
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])
    assert before == snapshot(store.root)


APPLY_BATCH: Final = "\n".join(
    [
        json.dumps(
            {
                "op": "write",
                "title": "Ledger lock holds for 40 minutes",
                "type": "semantic",
                "claim": "The nightly ledger lock is held for about 40 minutes.",
                "tag": "billing",
            }
        ),
        json.dumps(
            {
                "op": "write",
                "title": "Invoice export runs at 03:30 UTC",
                "type": "procedural",
                "claim": "The invoice export job starts at 03:30 UTC every night.",
                "body": ["Moved from 01:00 after the ledger lock contention."],
                "tag": "billing",
                "entity": "service:invoice-exporter",
                "importance": 7,
            }
        ),
        "",
        json.dumps({"op": "link", "src": EXPORT_PATH, "rel": "caused_by", "dst": LOCK_PATH}),
    ]
)


def test_apply_from_stdin_runs_the_batch_as_one_commit(store: Store) -> None:
    """apply reads stdin by default and reports snake_case results, summary and one commit."""
    store.ok(*EXPORT_WRITE)
    applied = store.ok("apply", stdin=APPLY_BATCH)
    assert [
        "results",
        "summary",
        "commitSha",
        "aborted",
        "indexed",
        "nearDuplicateNote",
    ] == list(applied)
    assert [
        "index",
        "op",
        "ok",
        "path",
        "deduped",
        "existingPath",
        "code",
        "error",
        "skipped",
        "conflicts",
        "nearDuplicates",
        "nearDuplicateSkipped",
    ] == list(applied["results"][0])
    assert [(0, LOCK_PATH, False), (1, EXPORT_PATH, True), (2, EXPORT_PATH, False)] == [
        (r["index"], r["path"], r["deduped"]) for r in applied["results"]
    ]
    assert {
        "total": 3,
        "written": 1,
        "deduped": 1,
        "linked": 1,
        "archived": 0,
        "failed": 0,
        "skipped": 0,
        "nearDuplicateSkipped": 0,
    } == applied["summary"]
    assert "memhtml(batch): 2 ops" == commit_subjects(store.root)[0]


def test_apply_reads_a_named_file_and_dash(store: Store, tmp_path: Path) -> None:
    """--file PATH and a bare `-` both feed the batch."""
    batch = tmp_path / "ops.jsonl"
    batch.write_text(APPLY_BATCH, encoding="utf-8")
    from_file = store.ok("apply", "--file", str(batch))
    from_dash = store.ok("apply", "-", stdin=APPLY_BATCH)
    assert (2, 0) == (from_file["summary"]["written"], from_file["summary"]["deduped"])
    assert (0, 2) == (from_dash["summary"]["written"], from_dash["summary"]["deduped"])


def test_apply_refuses_stdin_beside_a_real_file(store: Store, tmp_path: Path) -> None:
    """--file PATH together with `-` is ERR_INVALID_FLAG."""
    batch = tmp_path / "ops.jsonl"
    batch.write_text(APPLY_BATCH, encoding="utf-8")
    result = store.run("apply", "--file", str(batch), "-", stdin=APPLY_BATCH)
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])


def test_apply_atomic_abort_writes_nothing(store: Store) -> None:
    """A refused op aborts the batch: exit 1 with ERR_BATCH_ABORTED naming the op and its
    code; the detail holds ok:false with its code, the rest skipped, no commit."""
    missing = json.dumps({"op": "link", "src": LOCK_PATH, "rel": "supports", "dst": "areas/x.html"})
    before = snapshot(store.root)
    result = store.run("apply", stdin=APPLY_BATCH.split("\n")[0] + "\n" + missing)
    failure = envelope(result)
    applied = failure["detail"]
    assert (1, "ERR_BATCH_ABORTED") == (result.exit_code, failure["code"])
    assert "op index 1 (link): ERR_PATH_NOT_FOUND" in failure["error"]
    assert (True, None) == (applied["aborted"], applied["commitSha"])
    assert [(False, True, None), (False, False, "ERR_PATH_NOT_FOUND")] == [
        (r["ok"], r["skipped"], r["code"]) for r in applied["results"]
    ]
    assert before == snapshot(store.root)


def test_apply_line_without_a_field_names_the_line(store: Store) -> None:
    """Phase 1 refuses a line missing a field with ERR_MISSING_ARGUMENT, naming the line."""
    result = store.run("apply", stdin='\n{"op":"archive","path":"areas/x.html"}\n')
    failure = envelope(result)
    assert (2, "ERR_MISSING_ARGUMENT") == (result.exit_code, failure["code"])
    assert failure["error"].startswith("line 2:")


def test_apply_bad_json_is_an_invalid_flag(store: Store) -> None:
    """A line that is not JSON is ERR_INVALID_FLAG, exit 2."""
    result = store.run("apply", stdin="{not json\n")
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])
