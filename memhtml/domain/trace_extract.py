"""One transcript file's extract, and the tail merger that folds new lines into a stored one.

The extract of a run of lines is a fold of their records under ``merge_extracts``, and the
fold is associative: the extract of a file equals the merge of the extract of any prefix with
the extract of the rest. That is what lets a scan read only a file's new bytes and merge them
into what it stored last time, and land exactly where a full rescan would.

Per field: the session id, source, cwd, entry point and agent id keep their first value; the
branch, model, version and title keep their last; times keep the earliest start and latest
end; turn counts add; prompts keep first appearances by id, numbered in order.
"""

from __future__ import annotations

from typing import Final

import attrs

from memhtml.domain.trace_records import TranscriptRecord, TranscriptSource


@attrs.frozen(kw_only=True)
class PromptRow:
    """One stored prompt (a ``trace_prompts`` row).

    Attributes:
        prompt_id, turn_uuid: See :class:`memhtml.domain.trace_records.Prompt`.
        ordinal: 0-based position among the distinct prompts of its file, first appearance.
        at: When, as a trace instant (``""`` when the line had no readable timestamp).
        agent_id: The subagent that received it, when it was one.
        text_head: Its first 200 characters.
    """

    prompt_id: str
    turn_uuid: str
    ordinal: int
    at: str
    agent_id: str | None
    text_head: str


@attrs.frozen(kw_only=True)
class FileExtract:
    """What one transcript file says about its session (every field absent when empty).

    Attributes:
        source: ``claude`` or ``codex``, from the first line read.
        session_id: The session the file belongs to.
        sidechain: Some line is a subagent's (Claude Code's ``isSidechain``).
        agent_id: The first subagent id seen.
        cwd, entrypoint: First values seen.
        git_branch, model, version, ai_title: Last values seen.
        started_at, ended_at: Earliest and latest line instants.
        turn_count: Assistant records that say something (text), across the file.
        prompts: Distinct prompts in first-appearance order, ``ordinal`` = position.
    """

    source: TranscriptSource | None = None
    session_id: str | None = None
    sidechain: bool = False
    agent_id: str | None = None
    cwd: str | None = None
    entrypoint: str | None = None
    git_branch: str | None = None
    model: str | None = None
    version: str | None = None
    ai_title: str | None = None
    started_at: str | None = None
    ended_at: str | None = None
    turn_count: int = 0
    prompts: tuple[PromptRow, ...] = ()

    @property
    def kind(self) -> str:
        """``subagent`` for a subagent's own transcript, else ``session``."""
        return "subagent" if self.sidechain or self.agent_id is not None else "session"


EMPTY_EXTRACT: Final = FileExtract()


def _earliest(a: str | None, b: str | None) -> str | None:
    return b if a is None else a if b is None else min(a, b)


def _latest(a: str | None, b: str | None) -> str | None:
    return b if a is None else a if b is None else max(a, b)


def merge_extracts(stored: FileExtract, tail: FileExtract) -> FileExtract:
    """The extract of a file whose first part gave ``stored`` and the rest gave ``tail``.

    Associative, with ``EMPTY_EXTRACT`` as identity on both sides. Prompts of ``tail`` whose id
    ``stored`` already holds are dropped; the rest are renumbered after ``stored``'s.
    """
    seen = {prompt.prompt_id for prompt in stored.prompts}
    added: list[PromptRow] = []
    for prompt in tail.prompts:
        if prompt.prompt_id not in seen:
            seen.add(prompt.prompt_id)
            added.append(attrs.evolve(prompt, ordinal=len(stored.prompts) + len(added)))
    return FileExtract(
        source=stored.source or tail.source,
        session_id=stored.session_id or tail.session_id,
        sidechain=stored.sidechain or tail.sidechain,
        agent_id=stored.agent_id or tail.agent_id,
        cwd=stored.cwd or tail.cwd,
        entrypoint=stored.entrypoint or tail.entrypoint,
        git_branch=tail.git_branch or stored.git_branch,
        model=tail.model or stored.model,
        version=tail.version or stored.version,
        ai_title=tail.ai_title or stored.ai_title,
        started_at=_earliest(stored.started_at, tail.started_at),
        ended_at=_latest(stored.ended_at, tail.ended_at),
        turn_count=stored.turn_count + tail.turn_count,
        prompts=stored.prompts + tuple(added),
    )


def record_extract(record: TranscriptRecord) -> FileExtract:
    """The extract of one line on its own (the unit of the fold)."""
    facts = record.facts
    if facts is None:
        return EMPTY_EXTRACT
    prompts: tuple[PromptRow, ...] = ()
    if record.prompt is not None:
        prompts = (
            PromptRow(
                prompt_id=record.prompt.prompt_id,
                turn_uuid=record.prompt.turn_uuid,
                ordinal=0,
                at=facts.at or "",
                agent_id=facts.agent_id,
                text_head=record.prompt.text,
            ),
        )
    return FileExtract(
        source=facts.source,
        session_id=facts.session_id,
        sidechain=facts.sidechain,
        agent_id=facts.agent_id,
        cwd=facts.cwd,
        entrypoint=facts.entrypoint,
        git_branch=facts.git_branch,
        model=facts.model,
        version=facts.version,
        ai_title=record.title,
        started_at=facts.at,
        ended_at=facts.at,
        turn_count=1 if record.kind == "assistant" else 0,
        prompts=prompts,
    )


class ExtractBuilder:
    """``merge_extracts`` folded over records one at a time, in linear time.

    Folding with ``merge_extracts`` directly copies the prompt tuple on every line; this keeps
    the same rules over mutable state. ``build()`` equals the merge of every added record's
    ``record_extract``, in order (a property test holds the two together).
    """

    def __init__(self) -> None:
        self._fields: dict[str, str | None] = {}
        self._sidechain = False
        self._started: str | None = None
        self._ended: str | None = None
        self._turns = 0
        self._prompts: list[PromptRow] = []
        self._seen: set[str] = set()

    def add(self, record: TranscriptRecord) -> None:
        """Fold one more line in."""
        facts = record.facts
        if facts is None:
            return
        firsts = {
            "source": facts.source,
            "session_id": facts.session_id,
            "agent_id": facts.agent_id,
            "cwd": facts.cwd,
            "entrypoint": facts.entrypoint,
        }
        for name, value in firsts.items():
            if value is not None and self._fields.get(name) is None:
                self._fields[name] = value
        lasts = {
            "git_branch": facts.git_branch,
            "model": facts.model,
            "version": facts.version,
            "ai_title": record.title,
        }
        for name, value in lasts.items():
            if value is not None:
                self._fields[name] = value
        self._sidechain = self._sidechain or facts.sidechain
        self._started = _earliest(self._started, facts.at)
        self._ended = _latest(self._ended, facts.at)
        self._turns += record.kind == "assistant"
        prompt = record.prompt
        if prompt is not None and prompt.prompt_id not in self._seen:
            self._seen.add(prompt.prompt_id)
            self._prompts.append(
                PromptRow(
                    prompt_id=prompt.prompt_id,
                    turn_uuid=prompt.turn_uuid,
                    ordinal=len(self._prompts),
                    at=facts.at or "",
                    agent_id=facts.agent_id,
                    text_head=prompt.text,
                )
            )

    def build(self) -> FileExtract:
        """The extract of every record added so far."""
        f = self._fields
        source = f.get("source")
        return FileExtract(
            source="claude" if source == "claude" else "codex" if source == "codex" else None,
            session_id=f.get("session_id"),
            sidechain=self._sidechain,
            agent_id=f.get("agent_id"),
            cwd=f.get("cwd"),
            entrypoint=f.get("entrypoint"),
            git_branch=f.get("git_branch"),
            model=f.get("model"),
            version=f.get("version"),
            ai_title=f.get("ai_title"),
            started_at=self._started,
            ended_at=self._ended,
            turn_count=self._turns,
            prompts=tuple(self._prompts),
        )
