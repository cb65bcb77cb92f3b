"""The near-duplicate assist end to end with the real local model: ``write``, ``correct`` and
``apply`` with each ``--on-near-duplicate`` value over a real repository and index, and the
lexical-only store that skips the check with a note."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from memhtml.app.use_cases.near_duplicates import NOTE_LEXICAL_WRITE, NOTE_NO_EMBEDDER
from tests.integration.test_cli_commands_store import (
    commit_subjects,
    data,
    envelope,
    invoke,
    snapshot,
)

LOCAL: Final = {"MEMHTML_EMBED": "local"}
EXPORT: Final = "The invoice export job starts at 03:30 UTC every night."
RESTATED: Final = "Every night the invoice export job starts at 03:30 UTC."
REWORDED: Final = "The invoice export job begins at 03:30 UTC each night."
UNRELATED: Final = "The office coffee machine is descaled on Fridays."


def _write(claim: str, title: str, *flags: str) -> list[str]:
    return ["write", "--title", title, "--type", "procedural", "--claim", claim, *flags]


class LocalStore:
    """An initialized store whose invocations use the local model."""

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.env = env

    def run(self, *args: str, stdin: str = "") -> Any:
        """Invoke with ``--repo`` pointing here."""
        return invoke(["--repo", str(self.root), *args], env=self.env, stdin=stdin)

    def ok(self, *args: str, stdin: str = "") -> Any:
        """Invoke and return the success data."""
        return data(self.run(*args, stdin=stdin))


def _store(tmp_path: Path, env: dict[str, str]) -> tuple[LocalStore, str]:
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)], env=env))
    store = LocalStore(root, env)
    path = store.ok(*_write(EXPORT, "Invoice export runs at 03:30 UTC"))["path"]
    return store, str(path)


@pytest.fixture
def local(tmp_path: Path) -> tuple[LocalStore, str]:
    """A local-model store holding the export fact (written lexically, its vector pending)."""
    return _store(tmp_path, LOCAL)


def test_write_report_from_the_cli_checks_nothing_and_says_so(
    local: tuple[LocalStore, str],
) -> None:
    """The default keeps the command line's write lexical: written, nothing listed, a note."""
    store, _ = local
    written = store.ok(*_write(RESTATED, "Export again"))
    assert (True, [], False, NOTE_LEXICAL_WRITE) == (
        written["created"],
        written["nearDuplicates"],
        written["nearDuplicateSkipped"],
        written["nearDuplicateNote"],
    )


def test_write_skip_leaves_the_restatement_out_and_names_the_live_memory(
    local: tuple[LocalStore, str],
) -> None:
    """``skip``: exit 0, nothing committed, ``path`` and ``nearDuplicates`` name the live one
    with its similarity (the pending vector of the older memory is embedded first)."""
    store, older = local
    before = snapshot(store.root)
    skipped = store.ok(*_write(RESTATED, "Export again", "--on-near-duplicate", "skip"))
    (near,) = skipped["nearDuplicates"]
    assert (False, True, older, older, EXPORT, None) == (
        skipped["created"],
        skipped["nearDuplicateSkipped"],
        skipped["path"],
        near["path"],
        near["gist"],
        skipped["nearDuplicateNote"],
    )
    assert 0.935 <= near["similarity"] <= 1.0
    assert before == snapshot(store.root)


def test_write_fail_refuses_with_its_code_and_changes_nothing(
    local: tuple[LocalStore, str],
) -> None:
    """``fail``: ``ERR_NEAR_DUPLICATE``, exit 1, the repository untouched; an unrelated memory
    under ``fail`` is written."""
    store, older = local
    before = snapshot(store.root)
    refused = store.run(*_write(REWORDED, "Export reworded", "--on-near-duplicate", "fail"))
    error = envelope(refused)
    assert (1, "ERR_NEAR_DUPLICATE", True, before) == (
        refused.exit_code,
        error["code"],
        older in error["error"],
        snapshot(store.root),
    )
    fine = store.ok(*_write(UNRELATED, "Coffee machine", "--on-near-duplicate", "fail"))
    assert (True, []) == (fine["created"], fine["nearDuplicates"])


def test_the_floor_is_the_callers(local: tuple[LocalStore, str]) -> None:
    """A floor above the pair's similarity lets the restatement through under ``fail``."""
    store, _ = local
    written = store.ok(
        *_write(
            RESTATED,
            "Export again",
            "--on-near-duplicate",
            "fail",
            "--near-duplicate-floor",
            "0.999",
        )
    )
    assert (True, []) == (written["created"], written["nearDuplicates"])


def test_correct_never_reports_its_target_but_skip_honours_another(
    local: tuple[LocalStore, str],
) -> None:
    """The corrected memory is not its successor's duplicate; another live restatement is."""
    store, older = local
    corrected = store.ok(
        "correct",
        older,
        "--title",
        "Invoice export runs at 03:30 UTC",
        "--claim",
        REWORDED,
        "--on-near-duplicate",
        "fail",
    )
    assert [] == corrected["nearDuplicates"]
    other = store.ok(*_write(UNRELATED, "Coffee machine"))["path"]
    before = snapshot(store.root)
    skipped = store.ok(
        "correct",
        corrected["path"],
        "--title",
        "Invoice export",
        "--claim",
        "The office coffee machine gets descaled every Friday.",
        "--on-near-duplicate",
        "skip",
    )
    assert (True, None, [other]) == (
        skipped["nearDuplicateSkipped"],
        skipped["archivedPath"],
        [n["path"] for n in skipped["nearDuplicates"]],
    )
    assert before == snapshot(store.root)


def _batch(*claims: tuple[str, str]) -> str:
    return "\n".join(
        json.dumps({"op": "write", "title": t, "type": "procedural", "claim": c}) for c, t in claims
    )


BATCH: Final = _batch((RESTATED, "Export again"), (UNRELATED, "Coffee machine"))


def test_apply_skip_commits_the_new_write_and_leaves_the_restatement_out(
    local: tuple[LocalStore, str],
) -> None:
    """``skip`` on a batch: one write lands, the restatement is ``ok`` but unwritten."""
    store, older = local
    result = store.ok("apply", "--on-near-duplicate", "skip", stdin=BATCH)
    first, second = result["results"]
    assert (
        (True, True, older),
        (True, False, []),
        (1, 1),
        None,
    ) == (
        (first["ok"], first["nearDuplicateSkipped"], first["path"]),
        (second["ok"], second["nearDuplicateSkipped"], second["nearDuplicates"]),
        (result["summary"]["written"], result["summary"]["nearDuplicateSkipped"]),
        result["nearDuplicateNote"],
    )


def test_apply_fail_aborts_the_atomic_batch_and_continue_commits_the_rest(
    local: tuple[LocalStore, str],
) -> None:
    """``fail``: the atomic batch aborts with ``ERR_BATCH_ABORTED`` naming the near write; with
    ``--continue-on-error`` the unrelated write lands alone."""
    store, _ = local
    before = snapshot(store.root)
    aborted = store.run("apply", "--on-near-duplicate", "fail", stdin=BATCH)
    error = envelope(aborted)
    assert (1, "ERR_BATCH_ABORTED", "ERR_NEAR_DUPLICATE", before) == (
        aborted.exit_code,
        error["code"],
        error["detail"]["results"][0]["code"],
        snapshot(store.root),
    )
    subjects = len(commit_subjects(store.root))
    kept = store.ok("apply", "--on-near-duplicate", "fail", "--continue-on-error", stdin=BATCH)
    first, second = kept["results"]
    assert ((False, "ERR_NEAR_DUPLICATE"), True, subjects + 1) == (
        (first["ok"], first["code"]),
        second["ok"],
        len(commit_subjects(store.root)),
    )


def test_apply_report_from_the_cli_notes_the_unchecked_batch(
    local: tuple[LocalStore, str],
) -> None:
    """The default batch stays lexical: both written, the note says nothing was compared."""
    store, _ = local
    result = store.ok("apply", stdin=BATCH)
    assert (2, NOTE_LEXICAL_WRITE) == (result["summary"]["written"], result["nearDuplicateNote"])


def test_a_lexical_only_store_writes_under_fail_with_a_note(tmp_path: Path) -> None:
    """``MEMHTML_EMBED=off``: no check, no failure, the note says why."""
    store, _ = _store(tmp_path, {"MEMHTML_EMBED": "off"})
    written = store.ok(*_write(RESTATED, "Export again", "--on-near-duplicate", "fail"))
    batch = store.ok("apply", "--on-near-duplicate", "skip", stdin=_batch((REWORDED, "Again")))
    assert (True, NOTE_NO_EMBEDDER, 1, NOTE_NO_EMBEDDER) == (
        written["created"],
        written["nearDuplicateNote"],
        batch["summary"]["written"],
        batch["nearDuplicateNote"],
    )
