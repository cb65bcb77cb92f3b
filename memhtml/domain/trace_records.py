"""One line of an agent transcript → one typed record (docs/index-schema.md §6).

Two line formats are read. Claude Code keeps one file per session under
``~/.claude/projects/<project>/``: each line is an object with a ``type`` (``user``,
``assistant``, ``summary``, ``system``, ``file-history-snapshot``…) and, on conversation
lines, the session's envelope (``sessionId``, ``cwd``, ``gitBranch``, ``version``,
``timestamp``, ``uuid``, ``isSidechain``, ``agentId``). The Codex CLI keeps rollout files
under ``~/.codex/sessions/YYYY/MM/DD/``: each line is ``{timestamp, type, payload}`` with
``type`` one of ``session_meta``, ``turn_context``, ``response_item``, ``event_msg``,
``compacted``. A line with a ``payload`` object is read as Codex, any other object as Claude.

Every line yields a record, never an exception: what is not a JSON object is ``malformed``, a
type this module does not know is ``unknown`` (counted by the scan, never fatal).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, Literal

import attrs

from memhtml.domain.trace_instants import trace_instant

TranscriptSource = Literal["claude", "codex"]
RecordKind = Literal[
    "prompt",
    "assistant",
    "tool_call",
    "tool_result",
    "title",
    "context",
    "skipped",
    "unknown",
    "malformed",
]
TEXT_HEAD_CHARS: Final = 200
"""A stored prompt keeps its first 200 characters (SCHEMA: ``text_head`` ≤ 200)."""

# Claude Code writes these as user lines that are not something the user typed.
_CLAUDE_NOT_TYPED: Final = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "[Request interrupted",
)
_CLAUDE_SKIPPED_TYPES: Final = frozenset({"system", "file-history-snapshot"})
_SYNTHETIC_MODEL: Final = "<synthetic>"
# Codex echoes the conversation as UI events; only the typed prompt is read from them.
_CODEX_PLAIN_PROMPT: Final = frozenset({None, "plain"})
_CODEX_TOOL_CALLS: Final = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
)
_CODEX_TOOL_RESULTS: Final = frozenset({"function_call_output", "custom_tool_call_output"})


@attrs.frozen(kw_only=True)
class LineFacts:
    """What a line says about its session, whatever its record type (absent → None)."""

    source: TranscriptSource
    session_id: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    model: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    agent_id: str | None = None
    sidechain: bool = False
    at: str | None = None


@attrs.frozen(kw_only=True)
class Prompt:
    """Something the user typed.

    Attributes:
        prompt_id: Claude Code's line ``uuid``; for Codex, which gives its prompts no id, the
            line's byte offset in its file (``@1234``), stable because the file only grows.
        turn_uuid: The turn that carried it (the same id for both formats).
        text: The prompt's first ``TEXT_HEAD_CHARS`` characters, stripped.
    """

    prompt_id: str
    turn_uuid: str
    text: str


@attrs.frozen(kw_only=True)
class TranscriptRecord:
    """One line, typed.

    Attributes:
        kind: What the line is (``prompt``, ``assistant``…, ``unknown``, ``malformed``).
        facts: The session facts it carries; None for a malformed line.
        prompt: Set for ``prompt``.
        title: Set for ``title`` (Claude Code's ``summary`` line).
        type_name: The line's own type label (``payload.type`` joined on for Codex), for
            reporting what was not understood.
    """

    kind: RecordKind
    facts: LineFacts | None = None
    prompt: Prompt | None = None
    title: str | None = None
    type_name: str = ""


MALFORMED: Final = TranscriptRecord(kind="malformed")


def parse_line(raw: bytes, offset: int) -> TranscriptRecord:
    """The record of one line (without its newline) that starts at byte ``offset``."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return MALFORMED
    if not isinstance(value, dict):
        return MALFORMED
    if isinstance(value.get("payload"), dict):
        return _codex(value, offset)
    return _claude(value, offset)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _head(text: str) -> str:
    return text.strip()[:TEXT_HEAD_CHARS]


def _claude(line: Mapping[str, object], offset: int) -> TranscriptRecord:
    kind = line.get("type")
    message = line.get("message")
    message = message if isinstance(message, dict) else {}
    model = _text(message.get("model")) if kind == "assistant" else None
    facts = LineFacts(
        source="claude",
        session_id=_text(line.get("sessionId")),
        cwd=_text(line.get("cwd")),
        git_branch=_text(line.get("gitBranch")),
        model=None if model == _SYNTHETIC_MODEL else model,
        version=_text(line.get("version")),
        entrypoint=_text(line.get("entrypoint")),
        agent_id=_text(line.get("agentId")),
        sidechain=line.get("isSidechain") is True,
        at=trace_instant(line.get("timestamp")),
    )
    if kind == "user":
        return _claude_user(line, message, facts, offset)
    if kind == "assistant":
        blocks = _block_types(message.get("content"))
        if "text" in blocks:
            return TranscriptRecord(kind="assistant", facts=facts, type_name="assistant")
        if "tool_use" in blocks:
            return TranscriptRecord(kind="tool_call", facts=facts, type_name="assistant")
        return TranscriptRecord(kind="skipped", facts=facts, type_name="assistant")
    if kind == "summary":
        title = _text(line.get("summary"))
        if title is not None:
            return TranscriptRecord(kind="title", facts=facts, title=title, type_name="summary")
        return TranscriptRecord(kind="skipped", facts=facts, type_name="summary")
    name = kind if isinstance(kind, str) else ""
    if name in _CLAUDE_SKIPPED_TYPES:
        return TranscriptRecord(kind="skipped", facts=facts, type_name=name)
    return TranscriptRecord(kind="unknown", facts=facts, type_name=name)


def _claude_user(
    line: Mapping[str, object], message: Mapping[str, object], facts: LineFacts, offset: int
) -> TranscriptRecord:
    skipped = TranscriptRecord(kind="skipped", facts=facts, type_name="user")
    if line.get("isMeta") is True or line.get("isCompactSummary") is True:
        return skipped
    content = message.get("content")
    if isinstance(content, str):
        text = content
    else:
        texts = [
            block["text"]
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        ]
        if not texts:
            if "tool_result" in _block_types(content):
                return TranscriptRecord(kind="tool_result", facts=facts, type_name="user")
            return skipped
        text = "\n".join(texts)
    stripped = text.strip()
    if not stripped or stripped.startswith(_CLAUDE_NOT_TYPED):
        return skipped
    turn = _text(line.get("uuid")) or f"@{offset}"
    prompt = Prompt(prompt_id=turn, turn_uuid=turn, text=_head(stripped))
    return TranscriptRecord(kind="prompt", facts=facts, prompt=prompt, type_name="user")


def _block_types(content: object) -> frozenset[str]:
    if not isinstance(content, list):
        return frozenset()
    return frozenset(
        block["type"]
        for block in content
        if isinstance(block, dict) and isinstance(block.get("type"), str)
    )


def _codex(line: Mapping[str, object], offset: int) -> TranscriptRecord:
    kind = line.get("type")
    payload = line["payload"]
    assert isinstance(payload, dict)  # parse_line routes only payload objects here
    at = trace_instant(line.get("timestamp"))
    name = kind if isinstance(kind, str) else ""
    sub = payload.get("type")
    if kind == "session_meta":
        git = payload.get("git")
        facts = LineFacts(
            source="codex",
            session_id=_text(payload.get("id")),
            cwd=_text(payload.get("cwd")),
            git_branch=_text(git.get("branch")) if isinstance(git, dict) else None,
            version=_text(payload.get("cli_version")),
            entrypoint=_text(payload.get("originator")),
            at=at or trace_instant(payload.get("timestamp")),
        )
        return TranscriptRecord(kind="context", facts=facts, type_name=name)
    if kind == "turn_context":
        facts = LineFacts(
            source="codex", cwd=_text(payload.get("cwd")), model=_text(payload.get("model")), at=at
        )
        return TranscriptRecord(kind="context", facts=facts, type_name=name)
    facts = LineFacts(source="codex", at=at)
    full_name = f"{name}/{sub}" if isinstance(sub, str) else name
    if kind == "event_msg":
        message = payload.get("message")
        if (
            sub == "user_message"
            and payload.get("kind") in _CODEX_PLAIN_PROMPT
            and isinstance(message, str)
            and message.strip()
        ):
            turn = f"@{offset}"
            prompt = Prompt(prompt_id=turn, turn_uuid=turn, text=_head(message))
            return TranscriptRecord(kind="prompt", facts=facts, prompt=prompt, type_name=full_name)
        return TranscriptRecord(kind="skipped", facts=facts, type_name=full_name)
    if kind == "response_item":
        if sub == "message":
            role = payload.get("role")
            record_kind: RecordKind = "assistant" if role == "assistant" else "skipped"
            return TranscriptRecord(kind=record_kind, facts=facts, type_name=full_name)
        if sub in _CODEX_TOOL_CALLS:
            return TranscriptRecord(kind="tool_call", facts=facts, type_name=full_name)
        if sub in _CODEX_TOOL_RESULTS:
            return TranscriptRecord(kind="tool_result", facts=facts, type_name=full_name)
        if sub == "reasoning":
            return TranscriptRecord(kind="skipped", facts=facts, type_name=full_name)
        return TranscriptRecord(kind="unknown", facts=facts, type_name=full_name)
    if kind == "compacted":
        return TranscriptRecord(kind="skipped", facts=facts, type_name=name)
    return TranscriptRecord(kind="unknown", facts=facts, type_name=full_name)
