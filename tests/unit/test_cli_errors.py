"""The one error table: every code of docs/cli-contract.md §4, its exit status, and which exception
maps where."""

from __future__ import annotations

import sqlite3

import click
import pytest

from memhtml.app.cli.errors import (
    ERR_UNKNOWN,
    ERROR_CODES,
    EXIT_RUNTIME,
    EXIT_USAGE,
    error_code,
    error_code_for,
)
from memhtml.app.errors import (
    BatchAborted,
    DirtyTree,
    DiscriminationFailed,
    ExtraMissing,
    FactConflict,
    MissingArgument,
    NearDuplicateFound,
    RepoRequired,
    StoreUnhealthy,
    UnknownTool,
)
from memhtml.domain.errors import Conflict, DuplicateContent, InvalidInput, InvalidMemory, NotFound
from memhtml.domain.findings import Finding
from memhtml.ports.errors import (
    EmbedModelMismatch,
    GitFailure,
    IndexCorrupt,
    IndexStale,
    ModelUnavailable,
    RebuildNoEmbedRefused,
    StateCorrupt,
    StorageCorrupt,
    StorageFailure,
    VectorCoverageLow,
)
from memhtml.ports.git import PathRefused
from memhtml.ports.git_remote import PushRejected, RemoteMissing, RemoteUnreachable
from memhtml.ports.git_writer import GitLocked, HeadMoved

# docs/cli-contract.md §4, in its order, with its exit statuses.
SPEC_CODES = {
    "ERR_UNKNOWN_COMMAND": EXIT_USAGE,
    "ERR_MISSING_ARGUMENT": EXIT_USAGE,
    "ERR_INVALID_FLAG": EXIT_USAGE,
    "ERR_REPO_REQUIRED": EXIT_USAGE,
    "ERR_PATH_NOT_FOUND": EXIT_RUNTIME,
    "ERR_INVALID_MEMORY": EXIT_RUNTIME,
    "ERR_DUPLICATE_CONTENT": EXIT_RUNTIME,
    "ERR_WRITE_CONFLICT": EXIT_RUNTIME,
    "ERR_DIRTY_TREE": EXIT_RUNTIME,
    "ERR_INDEX_STALE": EXIT_RUNTIME,
    "ERR_EMBED_MODEL_MISMATCH": EXIT_RUNTIME,
    "ERR_REBUILD_NO_EMBED_REFUSED": EXIT_RUNTIME,
    "ERR_MODEL_UNAVAILABLE": EXIT_RUNTIME,
    "ERR_STORAGE": EXIT_RUNTIME,
    "ERR_GIT": EXIT_RUNTIME,
    "ERR_DISCRIMINATION_FAILED": EXIT_RUNTIME,
    # Appended for `memhtml mcp` without its extra (ARCHITECTURE.md; codes are append-only).
    "ERR_EXTRA_MISSING": EXIT_RUNTIME,
    "ERR_UNKNOWN": EXIT_RUNTIME,
    # Appended for issue 14 (crash recovery); codes are append-only.
    "ERR_GIT_LOCKED": EXIT_RUNTIME,
    "ERR_STORAGE_CORRUPT": EXIT_RUNTIME,
    # Appended for issue 14 (exit codes): an aborted batch and an unhealthy store.
    "ERR_BATCH_ABORTED": EXIT_RUNTIME,
    "ERR_STORE_UNHEALTHY": EXIT_RUNTIME,
    # Appended for issue 19 (sync); codes are append-only.
    "ERR_REMOTE_MISSING": EXIT_USAGE,
    "ERR_REMOTE_UNREACHABLE": EXIT_RUNTIME,
    "ERR_PUSH_REJECTED": EXIT_RUNTIME,
    # Appended for issue 21 (the conflict assist's --on-conflict fail).
    "ERR_FACT_CONFLICT": EXIT_RUNTIME,
    # Appended for issue 21 (the near-duplicate assist's --on-near-duplicate fail).
    "ERR_NEAR_DUPLICATE": EXIT_RUNTIME,
}

# One instance of every exception the command line must translate, with its code.
MAPPED: list[tuple[BaseException, str]] = [
    (click.exceptions.NoSuchCommand("serch"), "ERR_UNKNOWN_COMMAND"),
    (click.MissingParameter(param_type="option"), "ERR_MISSING_ARGUMENT"),
    (MissingArgument("line 3 lacks title"), "ERR_MISSING_ARGUMENT"),
    (click.NoSuchOption("--limt"), "ERR_INVALID_FLAG"),
    (click.BadParameter("not a number"), "ERR_INVALID_FLAG"),
    (click.UsageError("Got unexpected extra argument (x)"), "ERR_INVALID_FLAG"),
    (click.BadOptionUsage("--repo", "needs a value"), "ERR_INVALID_FLAG"),
    (click.FileError("ops.jsonl"), "ERR_INVALID_FLAG"),
    (InvalidInput("facet without ="), "ERR_INVALID_FLAG"),
    (PathRefused("commit", "../x", "dot-segment"), "ERR_INVALID_FLAG"),
    (RepoRequired("no repo", root=None, suggestions=()), "ERR_REPO_REQUIRED"),
    (NotFound("no file"), "ERR_PATH_NOT_FOUND"),
    (InvalidMemory((Finding(code="mark-count", detail="d"),)), "ERR_INVALID_MEMORY"),
    (DuplicateContent("same"), "ERR_DUPLICATE_CONTENT"),
    (FactConflict("areas/a.html", ("areas/b.html",)), "ERR_FACT_CONFLICT"),
    (NearDuplicateFound("areas/a.html", ("areas/b.html",)), "ERR_NEAR_DUPLICATE"),
    (Conflict("occupied"), "ERR_WRITE_CONFLICT"),
    (HeadMoved("a" * 40, "b" * 40), "ERR_WRITE_CONFLICT"),
    (DirtyTree(("areas/x.html",)), "ERR_DIRTY_TREE"),
    (IndexStale("rebuild interrupted"), "ERR_INDEX_STALE"),
    (EmbedModelMismatch("a@1", "b@2"), "ERR_EMBED_MODEL_MISMATCH"),
    (RebuildNoEmbedRefused(3, "m@1", "no embedder"), "ERR_REBUILD_NO_EMBED_REFUSED"),
    (ModelUnavailable("no file"), "ERR_MODEL_UNAVAILABLE"),
    (VectorCoverageLow(0.1, 0.95, "few vectors"), "ERR_MODEL_UNAVAILABLE"),
    (StorageFailure("update"), "ERR_STORAGE"),
    (StorageCorrupt("fused search"), "ERR_STORAGE_CORRUPT"),
    (IndexCorrupt("configure connection"), "ERR_STORAGE_CORRUPT"),
    (StateCorrupt("attach state database"), "ERR_STORAGE_CORRUPT"),
    (GitLocked("/r/.git/index.lock", "git process 7 is running here"), "ERR_GIT_LOCKED"),
    (GitFailure("read HEAD"), "ERR_GIT"),
    (RemoteMissing("origin"), "ERR_REMOTE_MISSING"),
    (
        RemoteUnreachable("fetch", "origin", "https://***@h/r.git", "timed out"),
        "ERR_REMOTE_UNREACHABLE",
    ),
    (PushRejected("origin", "hook declined", moved=False), "ERR_PUSH_REJECTED"),
    (DiscriminationFailed("gate"), "ERR_DISCRIMINATION_FAILED"),
    (ExtraMissing("mcp", "mcp", "mcp"), "ERR_EXTRA_MISSING"),
    (UnknownTool("no such tool 'serch'"), "ERR_UNKNOWN_COMMAND"),
    (BatchAborted("aborted at op 2", detail={}), "ERR_BATCH_ABORTED"),
    (StoreUnhealthy("1 dangling link", detail={}), "ERR_STORE_UNHEALTHY"),
    (sqlite3.OperationalError("near 'x': syntax error"), ERR_UNKNOWN),
    (KeyError("x"), ERR_UNKNOWN),
    (click.Abort(), ERR_UNKNOWN),
]


def test_the_table_holds_exactly_the_spec_codes_and_exits() -> None:
    """Every §4 code is present once with its exit status, and nothing else."""
    assert SPEC_CODES == {entry.code: entry.exit_status for entry in ERROR_CODES}
    assert len(SPEC_CODES) == len(ERROR_CODES)


def test_no_exception_class_maps_to_two_codes() -> None:
    """A class named twice would make the mapping depend on table order."""
    classes = [cls for entry in ERROR_CODES for cls in entry.raised_by]
    assert len(set(classes)) == len(classes)


def test_every_code_but_the_catch_all_has_a_raiser() -> None:
    """A code nothing raises could never reach a caller."""
    assert [ERR_UNKNOWN] == [entry.code for entry in ERROR_CODES if not entry.raised_by]


@pytest.mark.parametrize(("exc", "code"), MAPPED, ids=[type(e).__name__ for e, _ in MAPPED])
def test_exception_maps_to_its_code(exc: BaseException, code: str) -> None:
    """The nearest class in the MRO decides (PathRefused and HeadMoved are GitFailures)."""
    assert code == error_code_for(exc).code


def test_every_code_is_reachable_from_some_exception() -> None:
    """The mapping cases above cover every code in the table."""
    assert set(SPEC_CODES) == {code for _, code in MAPPED}


def test_codes_are_found_by_name() -> None:
    """A command can look up the entry of a code it names."""
    assert EXIT_USAGE == error_code("ERR_REPO_REQUIRED").exit_status
