"""Trace commands (issue 20): ``trace scan|list|show``.

``scan`` reads Claude Code and Codex CLI session transcripts into the trace plane, tailing
files that grew and skipping unchanged ones; ``list`` shows recent sessions; ``show`` one
session's prompts and the memories it wrote and read. None of them loads a model.
"""

from __future__ import annotations

import logging
from typing import Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.cli.progress import TerminalProgress

logger = logging.getLogger("memhtml")

SCAN_TYPE: Final = "trace.scan"
LIST_TYPE: Final = "trace.list"
DETAIL_TYPE: Final = "trace.detail"
SCAN_KEYS: Final = (
    "roots",
    "files",
    "skipped",
    "tailed",
    "rescanned",
    "sessions",
    "promptsWritten",
    "bytesRead",
    "pendingBytes",
    "noSession",
    "records",
    "failed",
)
SESSION_KEYS: Final = (
    "sessionId",
    "source",
    "slug",
    "cwd",
    "gitBranch",
    "entrypoint",
    "model",
    "version",
    "startedAt",
    "endedAt",
    "promptCount",
    "turnCount",
    "agentCount",
    "firstPrompt",
    "aiTitle",
    "filePath",
    "fileSize",
    "fileMtime",
    "indexedAt",
)
PROMPT_KEYS: Final = ("promptId", "turnUuid", "ordinal", "at", "agentId", "textHead")
LINK_KEYS: Final = ("path", "kind", "at", "promptId", "turnUuid")
SOURCES: Final = ("claude", "codex")
DEFAULT_LIMIT: Final = 20
MAX_LIMIT: Final = 500


def register(group: click.Group) -> None:
    """Add the ``trace`` group to ``group``."""
    group.add_command(trace)


@click.group("trace")
def trace() -> None:
    """Scan agent session transcripts and see what each session did with memory."""


def session_data(row: object) -> shaping.Data:
    """One ``traces`` row as envelope data."""
    return shaping.shaped(row, SESSION_KEYS)


@trace.command("scan")
@click.argument(
    "dirs",
    nargs=-1,
    type=click.Path(),
    help="Folders (or files) of JSONL transcripts; default: ~/.claude/projects and "
    "~/.codex/sessions, those that exist.",
)
@emits(SCAN_TYPE, examples=("memhtml trace scan", "memhtml trace scan ~/.claude/projects"))
def scan(dirs: tuple[str, ...]) -> CommandResult:
    """Read new transcript lines into the trace plane; unchanged files are not opened."""
    with open_here(embedder=False) as store, TerminalProgress() as progress:
        report = store.trace_scan(dirs or None, progress=progress)
    if not report.roots:
        logger.warning("no agent session folders found; name one: memhtml trace scan DIR")
    data = shaping.shaped(report, SCAN_KEYS)
    data["records"] = shaping.plain(report.records)
    return SCAN_TYPE, data


@trace.command("list")
@click.option(
    "--project",
    help="A working directory (sessions in it or below it; ~ and relative paths resolve) or a "
    "project slug such as -home-ada-code-shop.",
)
@click.option("--since", help="Only sessions active at or after this ISO date or date-time.")
@click.option("--until", help="Only sessions that started before this ISO date or date-time.")
@click.option("--source", type=click.Choice(SOURCES), help="Only this agent's sessions.")
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=DEFAULT_LIMIT,
    show_default=True,
    help="At most this many sessions.",
)
@emits(
    LIST_TYPE,
    examples=("memhtml trace list", "memhtml trace list --project ~/code/shop --since 2026-09-01"),
)
def list_command(
    project: str | None, since: str | None, until: str | None, source: str | None, limit: int
) -> CommandResult:
    """List scanned sessions, latest activity first."""
    import os

    from memhtml.app.use_cases.trace_reads import TraceListRequest

    if project is not None and project.startswith(("~", ".", "/")):
        project = os.path.abspath(os.path.expanduser(project))
    request = TraceListRequest(
        project=project,
        since=since,
        until=until,
        source=source,
        limit=limit,
    )
    with open_here(embedder=False) as store:
        result = store.trace_list(request)
    return LIST_TYPE, {"sessions": [session_data(row) for row in result.sessions]}


@trace.command("show")
@click.argument("session", help="The session id (as `trace list` or --session-id gave it).")
@emits(DETAIL_TYPE, examples=("memhtml trace show 7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f",))
def show(session: str) -> CommandResult:
    """Show one session: its transcript row, prompts, and the memories it wrote and read."""
    with open_here(embedder=False) as store:
        detail = store.trace_show(session)
    data: shaping.Data = {
        "sessionId": detail.session_id,
        "session": None if detail.session is None else session_data(detail.session),
        "prompts": [shaping.shaped(p, PROMPT_KEYS) for p in detail.prompts],
        "memories": shaping.plain(detail.memories),
        "links": [shaping.shaped(link, LINK_KEYS) for link in detail.links],
    }
    return DETAIL_TYPE, data
