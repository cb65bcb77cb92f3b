"""A session's ``traces`` row, folded from the extracts of its transcript files, and the
``trace list`` filter.

A session can span several files: Claude Code writes each subagent's conversation to its own
file under the parent's session id. Each file's extract is stored on its own, and the session
row is recomputed from all of them, main transcript first, so rescanning one file replaces
only that file's part. The SQLite adapter computes the same row in one statement; this is its
twin (docs/index-schema.md §6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

from memhtml.domain.trace_extract import FileExtract, PromptRow
from memhtml.domain.trace_records import TranscriptSource

_NOT_SLUG: Final = re.compile(r"[^A-Za-z0-9]")
TITLE_SEPARATOR: Final = "\n"


def project_slug(cwd: str | None) -> str:
    """The project's key: the working directory with every character outside ``[A-Za-z0-9]``
    turned into ``-`` (how Claude Code names its per-project folders); ``""`` when unknown."""
    return "" if cwd is None else _NOT_SLUG.sub("-", cwd)


@attrs.frozen(kw_only=True)
class StoredFile:
    """One scanned file as the session fold reads it.

    Attributes:
        file_path: The transcript's absolute path.
        size, mtime: Its watermark's size and modification instant (trace instant text).
        extract: Its extract, prompts aside (the fold reads the stored prompt rows).
    """

    file_path: str
    size: int
    mtime: str
    extract: FileExtract


@attrs.frozen(kw_only=True)
class StoredPrompt:
    """A stored prompt with the file that wrote it (the first file to name its id)."""

    file_path: str
    row: PromptRow


@attrs.frozen(kw_only=True)
class SessionRow:
    """One ``traces`` row.

    Attributes:
        session_id: The agent's session id.
        source: ``claude`` or ``codex``.
        slug: The project key (:func:`project_slug` of ``cwd``).
        cwd, git_branch, entrypoint, model, version, ai_title: The first file's value that is
            set, main transcript first.
        started_at, ended_at: Earliest start and latest end over the files.
        prompt_count: Distinct prompts stored for the session.
        turn_count: Assistant turns over the files.
        agent_count: Distinct subagents with a transcript of their own.
        first_prompt: The main transcript's first prompt (its first 200 characters).
        file_path, file_size, file_mtime: The main transcript (the first file, in order).
        search_text: ``first_prompt``, then the title on its own line.
        indexed_at: When the row was last recomputed.
    """

    session_id: str
    source: TranscriptSource | None
    slug: str
    cwd: str | None
    git_branch: str | None
    entrypoint: str | None
    model: str | None
    version: str | None
    started_at: str | None
    ended_at: str | None
    prompt_count: int
    turn_count: int
    agent_count: int
    first_prompt: str
    ai_title: str | None
    file_path: str
    file_size: int
    file_mtime: str
    search_text: str
    indexed_at: str


def file_order(stored: StoredFile) -> tuple[bool, str]:
    """Main transcripts before subagents', then by path."""
    return (stored.extract.sidechain, stored.file_path)


def _first(values: Iterable[str | None]) -> str | None:
    return next((value for value in values if value is not None), None)


def session_row(
    session_id: str,
    files: Sequence[StoredFile],
    prompts: Sequence[StoredPrompt],
    *,
    indexed_at: str,
) -> SessionRow | None:
    """The row of ``session_id`` from its files and its stored prompts; None without files."""
    ordered = sorted(files, key=file_order)
    if not ordered:
        return None
    extracts = [f.extract for f in ordered]
    rank = {f.file_path: i for i, f in enumerate(ordered)}
    ranked = sorted(
        (p for p in prompts if p.file_path in rank),
        key=lambda p: (rank[p.file_path], p.row.ordinal),
    )
    first_prompt = ranked[0].row.text_head if ranked else ""
    ai_title = _first(e.ai_title for e in extracts)
    cwd = _first(e.cwd for e in extracts)
    starts = [e.started_at for e in extracts if e.started_at is not None]
    ends = [e.ended_at for e in extracts if e.ended_at is not None]
    main = ordered[0]
    source = _first(e.source for e in extracts)
    return SessionRow(
        session_id=session_id,
        source="claude" if source == "claude" else "codex" if source == "codex" else None,
        slug=project_slug(cwd),
        cwd=cwd,
        git_branch=_first(e.git_branch for e in extracts),
        entrypoint=_first(e.entrypoint for e in extracts),
        model=_first(e.model for e in extracts),
        version=_first(e.version for e in extracts),
        started_at=min(starts) if starts else None,
        ended_at=max(ends) if ends else None,
        prompt_count=len(prompts),
        turn_count=sum(e.turn_count for e in extracts),
        agent_count=len({e.agent_id for e in extracts if e.agent_id is not None}),
        first_prompt=first_prompt,
        ai_title=ai_title,
        file_path=main.file_path,
        file_size=main.size,
        file_mtime=main.mtime,
        search_text=first_prompt + ("" if ai_title is None else TITLE_SEPARATOR + ai_title),
        indexed_at=indexed_at,
    )


@attrs.frozen(kw_only=True)
class SessionQuery:
    """Which sessions ``trace list`` shows, most recent activity first.

    Attributes:
        project: A working directory (the session's cwd is it or lies under it) or a slug.
        since, until: Trace instants; a session qualifies when its activity
            ``[started_at, ended_at]`` reaches ``since`` and starts before ``until``.
        source: ``claude`` or ``codex``.
        limit: At most this many sessions.
    """

    project: str | None = None
    since: str | None = None
    until: str | None = None
    source: str | None = None
    limit: int = 20

    @property
    def project_prefix(self) -> str | None:
        """``project`` as a directory prefix (with one trailing ``/``)."""
        if self.project is None:
            return None
        return self.project if self.project.endswith("/") else self.project + "/"


def session_admitted(query: SessionQuery, row: SessionRow) -> bool:
    """Whether ``row`` passes ``query``'s filters (the twin of the SQL ``WHERE``)."""
    project, prefix = query.project, query.project_prefix
    if project is not None and prefix is not None:
        in_tree = row.cwd is not None and (row.cwd == project or row.cwd.startswith(prefix))
        if not (in_tree or row.slug == project):
            return False
    last = row.ended_at if row.ended_at is not None else row.started_at
    first = row.started_at if row.started_at is not None else row.ended_at
    if query.since is not None and (last is None or last < query.since):
        return False
    if query.until is not None and (first is None or first >= query.until):
        return False
    return query.source is None or row.source == query.source


def recent_first(rows: Iterable[SessionRow], limit: int) -> tuple[SessionRow, ...]:
    """``rows`` by latest activity (end, else start, else when indexed), newest first, ties by
    session id; the first ``limit``."""
    by_id = sorted(rows, key=lambda row: row.session_id)
    by_activity = sorted(
        by_id, key=lambda row: row.ended_at or row.started_at or row.indexed_at, reverse=True
    )
    return tuple(by_activity[:limit])
