"""The one table from exception classes to stable ``ERR_*`` codes and exit statuses.

Callers key on ``code``; ``error`` prose may change. Codes are append-only
(docs/cli-contract.md §1). The manifest lists this table, so a code added here is documented the
moment it exists. It lives beside the use cases rather than in the CLI because every edge reports
the same codes: the command line's envelope, the MCP server's tool errors, and ``apply``'s
per-op results.
"""

from __future__ import annotations

from typing import Final

import attrs
import click

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
from memhtml.ports.errors import (
    EmbedModelMismatch,
    GitFailure,
    IndexStale,
    ModelUnavailable,
    RebuildNoEmbedRefused,
    StorageCorrupt,
    StorageFailure,
    VectorCoverageLow,
)
from memhtml.ports.git import PathRefused
from memhtml.ports.git_remote import PushRejected, RemoteMissing, RemoteUnreachable
from memhtml.ports.git_writer import GitLocked, HeadMoved

EXIT_OK: Final = 0
EXIT_RUNTIME: Final = 1
EXIT_USAGE: Final = 2

ERR_UNKNOWN: Final = "ERR_UNKNOWN"


@attrs.frozen(kw_only=True)
class ErrorCode:
    """One stable error code.

    Attributes:
        code: The ``ERR_*`` string callers key on.
        exit_status: 2 when the caller must fix the call, 1 when the repo or environment must
            change.
        description: When the code is used, for the manifest.
        raised_by: Exception classes that map here. A class maps to the entry of the nearest
            class in its MRO, so a subclass can be given a code of its own.
        suggestions: Next steps offered with every failure of this code.
    """

    code: str
    exit_status: int
    description: str
    raised_by: tuple[type[BaseException], ...] = ()
    suggestions: tuple[str, ...] = ()


ERROR_CODES: Final[tuple[ErrorCode, ...]] = (
    ErrorCode(
        code="ERR_UNKNOWN_COMMAND",
        exit_status=EXIT_USAGE,
        description=(
            "No such command (including commands planned for later releases), or no such MCP tool."
        ),
        raised_by=(click.exceptions.NoSuchCommand, UnknownTool),
    ),
    ErrorCode(
        code="ERR_MISSING_ARGUMENT",
        exit_status=EXIT_USAGE,
        description="A required argument or flag is absent, or an apply line lacks a field.",
        raised_by=(
            click.MissingParameter,
            click.exceptions.NoArgsIsHelpError,
            MissingArgument,
        ),
    ),
    ErrorCode(
        code="ERR_INVALID_FLAG",
        exit_status=EXIT_USAGE,
        description=(
            "Unknown flag; bad value, type, choice or range; exclusive flags together; extra "
            "positional; malformed JSONL line; bad environment value; a path outside the "
            "repository, or a --path that is no memory path; a blank query or one over 4,096 "
            "characters; an unknown relation; an apply line nesting past 32 levels."
        ),
        # A refused path is the caller's bad input (`../x`, an absolute path, a symlink out), not
        # a broken repository: reporting ERR_GIT would send them to fix git instead of the call.
        raised_by=(click.UsageError, click.FileError, InvalidInput, PathRefused),
    ),
    ErrorCode(
        code="ERR_REPO_REQUIRED",
        exit_status=EXIT_USAGE,
        description=(
            "MEMHTML_REFUSE_ENV_ROOT is set without --repo, or the root is not an initialized "
            "memhtml repository."
        ),
        raised_by=(RepoRequired,),
    ),
    ErrorCode(
        code="ERR_PATH_NOT_FOUND",
        exit_status=EXIT_RUNTIME,
        description="No memory file at the path, or a data file is missing.",
        raised_by=(NotFound,),
    ),
    ErrorCode(
        code="ERR_INVALID_MEMORY",
        exit_status=EXIT_RUNTIME,
        description=(
            "The memory breaks the format's constraints, a --strict-path refusal, or the "
            "target is already archived."
        ),
        raised_by=(InvalidMemory,),
    ),
    ErrorCode(
        code="ERR_DUPLICATE_CONTENT",
        exit_status=EXIT_RUNTIME,
        description="A correction would recreate content an active memory already holds.",
        raised_by=(DuplicateContent,),
    ),
    ErrorCode(
        code="ERR_WRITE_CONFLICT",
        exit_status=EXIT_RUNTIME,
        description="The path is occupied, or the file or HEAD changed between read and commit.",
        raised_by=(Conflict, HeadMoved),
    ),
    ErrorCode(
        code="ERR_DIRTY_TREE",
        exit_status=EXIT_RUNTIME,
        description="The command must change a path that has uncommitted edits.",
        raised_by=(DirtyTree,),
        suggestions=("commit or discard the edits, then retry",),
    ),
    ErrorCode(
        code="ERR_INDEX_STALE",
        exit_status=EXIT_RUNTIME,
        description="An index rebuild was interrupted; the index cannot be trusted.",
        raised_by=(IndexStale,),
        suggestions=("memhtml index rebuild",),
    ),
    ErrorCode(
        code="ERR_EMBED_MODEL_MISMATCH",
        exit_status=EXIT_RUNTIME,
        description="The index holds vectors of another model than the configured one.",
        raised_by=(EmbedModelMismatch,),
        suggestions=("memhtml index rebuild --embed",),
    ),
    ErrorCode(
        code="ERR_REBUILD_NO_EMBED_REFUSED",
        exit_status=EXIT_RUNTIME,
        description="A rebuild that cannot write vectors over a store that holds some, no --force.",
        raised_by=(RebuildNoEmbedRefused,),
        suggestions=("memhtml index rebuild --embed", "memhtml index rebuild --no-embed --force"),
    ),
    ErrorCode(
        code="ERR_MODEL_UNAVAILABLE",
        exit_status=EXIT_RUNTIME,
        description=(
            "A required embedding model cannot load or answer, or the vectors it needs cover "
            "too little of the index."
        ),
        # Coverage under the floor only fails a command that cannot run without the vector arm
        # (an eval in local/hybrid mode); search degrades instead and never raises it.
        raised_by=(ModelUnavailable, VectorCoverageLow),
    ),
    ErrorCode(
        code="ERR_STORAGE",
        exit_status=EXIT_RUNTIME,
        description="A SQLite operation failed after retries (busy, disk full, corrupt file).",
        raised_by=(StorageFailure,),
    ),
    ErrorCode(
        code="ERR_GIT",
        exit_status=EXIT_RUNTIME,
        description="A git operation failed (unreadable repository, refused ref, missing object).",
        raised_by=(GitFailure,),
    ),
    ErrorCode(
        code="ERR_DISCRIMINATION_FAILED",
        exit_status=EXIT_RUNTIME,
        description="The discrimination eval's gate failed.",
        raised_by=(DiscriminationFailed,),
    ),
    ErrorCode(
        code="ERR_GIT_LOCKED",
        exit_status=EXIT_RUNTIME,
        description=(
            "A git lock is held by a running git command, or was left moments ago; nothing was "
            "written. Wait, or remove the stale lock the message names."
        ),
        raised_by=(GitLocked,),
        suggestions=("memhtml doctor --fix",),
    ),
    ErrorCode(
        code="ERR_STORAGE_CORRUPT",
        exit_status=EXIT_RUNTIME,
        description=(
            "A database page is damaged; the next command moves the file aside and rebuilds "
            "the index from git (or restores the state plane from its sidecar)."
        ),
        raised_by=(StorageCorrupt,),
        suggestions=("memhtml doctor --fix",),
    ),
    ErrorCode(
        code="ERR_EXTRA_MISSING",
        exit_status=EXIT_RUNTIME,
        description=(
            "The command or setting needs an optional extra that is not installed "
            "(memhtml[mcp], memhtml[e5])."
        ),
        raised_by=(ExtraMissing,),
    ),
    ErrorCode(
        code="ERR_BATCH_ABORTED",
        exit_status=EXIT_RUNTIME,
        description=(
            "An atomic apply stopped at a refused op and wrote nothing; the message names the "
            "op and its own code, and detail holds every op's result (batch.applied data)."
        ),
        raised_by=(BatchAborted,),
    ),
    ErrorCode(
        code="ERR_STORE_UNHEALTHY",
        exit_status=EXIT_RUNTIME,
        description=(
            "doctor found something to act on; the message lists it, detail holds the whole "
            "report (doctor.report data)."
        ),
        raised_by=(StoreUnhealthy,),
    ),
    ErrorCode(
        code="ERR_REMOTE_MISSING",
        exit_status=EXIT_USAGE,
        description="No remote of that name is configured (sync, or a clone's source).",
        raised_by=(RemoteMissing,),
    ),
    ErrorCode(
        code="ERR_REMOTE_UNREACHABLE",
        exit_status=EXIT_RUNTIME,
        description=(
            "The remote could not be read or written: unreachable, not a repository, or it "
            "refused the credentials. The message shows the URL with any secret hidden."
        ),
        raised_by=(RemoteUnreachable,),
        suggestions=("check the URL and your credentials (git config, ssh agent), then retry",),
    ),
    ErrorCode(
        code="ERR_PUSH_REJECTED",
        exit_status=EXIT_RUNTIME,
        description=(
            "The remote declined the push (a hook or a protected branch), or kept moving on "
            "every retry; the local branch and its commits are unchanged."
        ),
        raised_by=(PushRejected,),
        suggestions=("memhtml sync",),
    ),
    ErrorCode(
        code="ERR_FACT_CONFLICT",
        exit_status=EXIT_RUNTIME,
        description=(
            "--on-conflict fail: a written memory states a live memory's relation with other "
            "values; nothing is written for it."
        ),
        raised_by=(FactConflict,),
    ),
    ErrorCode(
        code="ERR_NEAR_DUPLICATE",
        exit_status=EXIT_RUNTIME,
        description=(
            "--on-near-duplicate fail: a written memory nearly repeats a live one (first-chunk "
            "similarity at or above the floor); nothing is written for it."
        ),
        raised_by=(NearDuplicateFound,),
    ),
    ErrorCode(
        code=ERR_UNKNOWN,
        exit_status=EXIT_RUNTIME,
        description="Anything else; the traceback is on stderr.",
    ),
)

_BY_CODE: Final[dict[str, ErrorCode]] = {entry.code: entry for entry in ERROR_CODES}
_BY_CLASS: Final[dict[type[BaseException], ErrorCode]] = {
    cls: entry for entry in ERROR_CODES for cls in entry.raised_by
}


def error_code(code: str) -> ErrorCode:
    """The table entry for ``code``.

    Raises:
        KeyError: ``code`` is not in the table.
    """
    return _BY_CODE[code]


def error_code_for(exc: BaseException) -> ErrorCode:
    """The entry of the nearest class in ``exc``'s MRO that the table names, else ERR_UNKNOWN."""
    for cls in type(exc).__mro__:
        entry = _BY_CLASS.get(cls)
        if entry is not None:
            return entry
    return _BY_CODE[ERR_UNKNOWN]
