"""The conflict assist end to end: ``write``, ``correct`` and ``apply`` with each
``--on-conflict`` value over a real repository and a real index, and ``doctor``'s lint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

import pytest

from tests.integration.test_cli_commands_store import (
    Store,
    commit_subjects,
    data,
    envelope,
    invoke,
    snapshot,
)

FIFTY: Final = "Each checkout API pod opens at most 50 Postgres connections."
EIGHTY: Final = "Each checkout API pod opens at most 80 Postgres connections."


def _write(claim: str, title: str, *flags: str) -> list[str]:
    return ["write", "--title", title, "--type", "semantic", "--claim", claim, *flags]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """An initialized store holding the 50-connection fact."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    store = Store(root)
    store.ok(*_write(FIFTY, "Checkout pod connection cap"))
    return store


def _older(store: Store) -> str:
    listed = store.ok("list")
    paths = [item["path"] for item in listed["files"]]
    assert 1 == len(paths), paths
    return str(paths[0])


def test_write_reports_the_conflict_by_default(store: Store) -> None:
    """``report`` (the default): written, ``conflicts`` names the older memory and its gist."""
    older = _older(store)
    written = store.ok(*_write(EIGHTY, "Checkout pod connection cap raised"))
    explicit = store.ok(
        *_write(EIGHTY.replace("80", "90"), "Cap raised again", "--on-conflict", "report")
    )
    assert (True, [{"path": older, "gist": FIFTY}]) == (written["created"], written["conflicts"])
    assert {older, written["path"]} == {c["path"] for c in explicit["conflicts"]}


def test_write_fail_refuses_with_its_code_and_changes_nothing(store: Store) -> None:
    """``fail``: ``ERR_FACT_CONFLICT``, exit 1, the repository untouched."""
    before = snapshot(store.root)
    result = store.run(*_write(EIGHTY, "Raised", "--on-conflict", "fail"))
    failure = envelope(result)
    assert (1, "ERR_FACT_CONFLICT", before) == (
        result.exit_code,
        failure["code"],
        snapshot(store.root),
    )
    assert _older(store) in failure["error"]


def test_write_without_a_conflict_reports_an_empty_list(store: Store) -> None:
    """A different relation (a negation) under ``fail`` writes and reports nothing."""
    written = store.ok(
        *_write(
            "Each checkout API pod never opens 80 Postgres connections.",
            "Never eighty",
            "--on-conflict",
            "fail",
        )
    )
    assert (True, []) == (written["created"], written["conflicts"])


def test_correct_fail_lets_the_replacement_through(store: Store) -> None:
    """The memory being corrected is no conflict, even under ``fail``."""
    older = _older(store)
    corrected = store.ok(
        "correct", older, "--title", "Checkout pod connection cap", "--claim", EIGHTY,
        "--on-conflict", "fail",
    )  # fmt: skip
    assert [] == corrected["conflicts"]


def _batch(*claims: tuple[str, str]) -> str:
    return "\n".join(
        json.dumps({"op": "write", "title": title, "type": "semantic", "claim": claim})
        for claim, title in claims
    )


BATCH: Final = _batch(
    (EIGHTY, "Cap eighty"), ("The ledger lock is held for about 40 minutes.", "Ledger lock")
)


def test_apply_report_lists_conflicts_per_op(store: Store) -> None:
    """Each write result carries its own ``conflicts``."""
    older = _older(store)
    applied = store.ok("apply", stdin=BATCH)
    assert ([[{"path": older, "gist": FIFTY}], []], 2) == (
        [r["conflicts"] for r in applied["results"]],
        applied["summary"]["written"],
    )


def test_apply_fail_aborts_the_atomic_batch(store: Store) -> None:
    """``fail``: the conflicting op refused, the other skipped, no commit; the aborted batch
    is ``ERR_BATCH_ABORTED`` with every op's result in ``detail``."""
    before = commit_subjects(store.root)
    result = store.run("apply", "--on-conflict", "fail", stdin=BATCH)
    failure = envelope(result)
    applied = failure["detail"]
    assert (1, "ERR_BATCH_ABORTED", True, ["ERR_FACT_CONFLICT", None], before) == (
        result.exit_code,
        failure["code"],
        applied["aborted"],
        [r["code"] for r in applied["results"]],
        commit_subjects(store.root),
    )


def test_apply_fail_with_continue_commits_the_rest(store: Store) -> None:
    """``fail`` with ``--continue-on-error``: only the agreeing write lands."""
    applied = store.ok("apply", "--on-conflict", "fail", "--continue-on-error", stdin=BATCH)
    assert ([False, True], 1, 2) == (
        [r["ok"] for r in applied["results"]],
        applied["summary"]["written"],
        len(store.ok("list")["files"]),
    )


def test_an_unknown_mode_is_a_usage_error(store: Store) -> None:
    """Anything but report, fail or supersede: ``ERR_INVALID_FLAG``, exit 2."""
    result = store.run(*_write(EIGHTY, "Raised", "--on-conflict", "replace"))
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])


def test_doctor_lists_conflicts_and_contradictions_and_fix_leaves_them(store: Store) -> None:
    """Two live memories on one relation with other values, and a ``contradicts`` link between
    live memories, are doctor findings with paths and gists, not ill health; ``--fix`` changes
    neither."""
    older = _older(store)
    newer = store.ok(*_write(EIGHTY, "Checkout pod connection cap raised"))["path"]
    lock = store.ok(*_write("The ledger lock is held for about 40 minutes.", "Ledger lock"))
    store.ok("link", lock["path"], "contradicts", older)
    before = snapshot(store.root)
    plain, fixed = store.ok("doctor"), store.ok("doctor", "--fix")
    conflict = {
        "frameKey": "each checkout api pod opens at most {number} postgres connections",
        "memories": sorted(
            [{"path": older, "gist": FIFTY}, {"path": newer, "gist": EIGHTY}],
            key=lambda m: m["path"],
        ),
    }
    contradiction = {
        "srcPath": lock["path"],
        "srcGist": "The ledger lock is held for about 40 minutes.",
        "dstPath": older,
        "dstGist": FIFTY,
    }
    for report in (plain, fixed):
        assert ([conflict], [contradiction], True) == (
            report["frameConflicts"],
            report["contradictions"],
            report["healthy"],
        )
    assert (before, 0, 0) == (
        snapshot(store.root),
        fixed["repaired"]["rewritten"],
        fixed["repaired"]["dropped"],
    )


def _archived(store: Store) -> list[str]:
    return sorted(
        p.relative_to(store.root).as_posix() for p in (store.root / "archive").rglob("*.html")
    )


def test_write_supersede_archives_the_older_memory_in_one_commit(store: Store) -> None:
    """``supersede``: one commit writes the new memory and archives the older one; the new
    file links to the copy and the old file's successor is the new one."""
    older = _older(store)
    commits = len(commit_subjects(store.root))
    written = store.ok(*_write(EIGHTY, "Cap raised", "--on-conflict", "supersede"))
    (copy,) = _archived(store)
    new = store.ok("read", written["path"])
    old = store.ok("read", copy)
    assert (
        commits + 1,
        [{"path": older, "gist": FIFTY}],
        [{"rel": "supersedes", "href": "/" + copy}],
        "/" + written["path"],
        [written["path"]],
    ) == (
        len(commit_subjects(store.root)),
        written["conflicts"],
        [link for link in new["links"] if link["rel"] == "supersedes"],
        old["metas"]["supersededBy"],
        [f["path"] for f in store.ok("list")["files"]],
    )


def test_apply_supersede_leaves_one_live_fact(store: Store) -> None:
    """A batch under ``supersede`` archives the older fact; doctor then finds no conflict."""
    applied = store.ok("apply", "--on-conflict", "supersede", stdin=BATCH)
    report = store.ok("doctor")
    assert (False, 1, []) == (applied["aborted"], len(_archived(store)), report["frameConflicts"])
