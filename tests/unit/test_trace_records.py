"""One transcript line → one typed record, for both agents' formats, over the fixtures.

The fixtures under ``tests/fixtures/traces/`` are written for these tests in the agents' line
formats. What each one exercises:

- ``claude/-home-ada-code-shop/7f3c…6f.jsonl`` (a Claude Code main session): a ``summary`` line
  (the title, no envelope); a ``file-history-snapshot`` (skipped, no ``sessionId``); an
  ``isMeta`` user line (skipped); a prompt with string ``content``; an assistant ``text`` turn
  with ``message.model``; an assistant ``tool_use`` line (a tool call, not a turn); a
  ``tool_result`` user line with ``toolUseResult``; a ``system`` ``compact_boundary`` (skipped);
  a prompt of two ``text`` blocks on a new ``gitBranch`` and ``version``; a ``<synthetic>``
  model (an error turn, its model ignored); ``[Request interrupted by user]`` and
  ``<local-command-stdout>`` user lines (skipped); the first prompt again, same ``uuid`` (a
  resumed session's copy: one prompt); a ``queue-operation`` line (a type this scanner does not
  read: unknown); a line that is not JSON (malformed); a final turn with a ``thinking`` block
  beside its text and a new model.
- ``claude/-home-ada-code-shop/agent-3f2a9c1d.jsonl`` (a subagent's transcript):
  ``isSidechain: true`` and ``agentId`` on every line, the parent's ``sessionId``.
- ``codex/2025/09/12/rollout-….jsonl`` (a Codex CLI rollout): ``session_meta`` (id, cwd,
  originator, ``cli_version``, ``git.branch``); the ``<environment_context>`` user message (not
  a prompt); two ``turn_context`` lines (the model changes); ``user_message`` events (prompts,
  ids from byte offsets) and their ``response_item`` echo (not a prompt); ``reasoning``;
  ``function_call``/``custom_tool_call`` and their outputs; ``token_count`` and
  ``agent_message`` events (skipped); a ``user_instructions`` event (not typed by the user);
  ``compacted``; an unknown ``response_item`` type and an unknown top-level type.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.trace_records import TEXT_HEAD_CHARS, TranscriptRecord, parse_line

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "traces"
CLAUDE_MAIN = FIXTURES / "claude/-home-ada-code-shop/7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f.jsonl"
CLAUDE_AGENT = FIXTURES / "claude/-home-ada-code-shop/agent-3f2a9c1d.jsonl"
CODEX = (
    FIXTURES
    / "codex/2025/09/12/rollout-2025-09-12T08-00-00-0199379a-7c2e-7d41-9a5b-3e8f1c2d4b6a.jsonl"
)


def records_of(path: Path) -> list[TranscriptRecord]:
    """Every line of a fixture, parsed at its real offset."""
    records, offset = [], 0
    for line in path.read_bytes().splitlines(keepends=True):
        records.append(parse_line(line.rstrip(b"\n"), offset))
        offset += len(line)
    return records


def test_claude_main_session_lines_are_typed_in_order() -> None:
    """Each Claude Code line gets the kind its type and content call for."""
    assert [
        "title",
        "skipped",
        "skipped",
        "prompt",
        "assistant",
        "tool_call",
        "tool_result",
        "skipped",
        "prompt",
        "assistant",
        "skipped",
        "skipped",
        "prompt",
        "unknown",
        "malformed",
        "assistant",
    ] == [r.kind for r in records_of(CLAUDE_MAIN)]


def test_claude_prompt_carries_its_uuid_and_the_envelope() -> None:
    """The prompt's id and turn are the line's uuid; the envelope fills the facts."""
    prompt = records_of(CLAUDE_MAIN)[3]
    assert prompt.prompt is not None
    assert prompt.facts is not None
    assert ("a1c2e3f4-1111-4a2b-8c3d-4e5f6a7b8c9d",) * 2 == (
        prompt.prompt.prompt_id,
        prompt.prompt.turn_uuid,
    )
    assert (
        "claude",
        "7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f",
        "/home/ada/code/shop",
        "main",
        "1.0.98",
        "2025-08-30T09:12:01.482Z",
        False,
    ) == (
        prompt.facts.source,
        prompt.facts.session_id,
        prompt.facts.cwd,
        prompt.facts.git_branch,
        prompt.facts.version,
        prompt.facts.at,
        prompt.facts.sidechain,
    )


def test_claude_text_blocks_join_and_the_synthetic_model_is_ignored() -> None:
    """Two text blocks make one prompt; an error turn's ``<synthetic>`` model is not a model."""
    records = records_of(CLAUDE_MAIN)
    assert records[8].prompt is not None
    assert records[9].facts is not None
    assert (
        "Good catch. Pin the timezone to UTC in the fixture,\nthen rerun the whole suite."
        == records[8].prompt.text
    )
    assert records[9].facts.model is None
    assert records[15].facts is not None
    assert "claude-opus-4-1-20250805" == records[15].facts.model


def test_claude_summary_is_the_title_and_unknown_types_keep_their_name() -> None:
    """``summary`` gives the title; an unread type is reported by its own name."""
    records = records_of(CLAUDE_MAIN)
    assert ("Fix the flaky login test on CI", "queue-operation") == (
        records[0].title,
        records[13].type_name,
    )


def test_claude_subagent_lines_carry_the_agent_and_the_parent_session() -> None:
    """A sidechain prompt names its agent; the session id is the parent's."""
    prompt, turn = records_of(CLAUDE_AGENT)
    assert prompt.facts is not None
    assert turn.facts is not None
    assert ("prompt", True, "3f2a9c1d", "7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f") == (
        prompt.kind,
        prompt.facts.sidechain,
        prompt.facts.agent_id,
        prompt.facts.session_id,
    )
    assert ("assistant", "claude-3-5-haiku-20241022") == (turn.kind, turn.facts.model)


def test_codex_rollout_lines_are_typed_in_order() -> None:
    """Each Codex line gets the kind its type and payload type call for."""
    assert [
        "context",
        "skipped",
        "context",
        "skipped",
        "prompt",
        "skipped",
        "tool_call",
        "tool_result",
        "skipped",
        "tool_call",
        "tool_result",
        "assistant",
        "skipped",
        "context",
        "prompt",
        "skipped",
        "skipped",
        "unknown",
        "unknown",
        "assistant",
    ] == [r.kind for r in records_of(CODEX)]


def test_codex_meta_names_the_session_and_prompts_are_named_by_offset() -> None:
    """session_meta carries id, cwd, branch, version, originator; a prompt's id is its offset."""
    records = records_of(CODEX)
    meta = records[0].facts
    assert meta is not None
    assert (
        "0199379a-7c2e-7d41-9a5b-3e8f1c2d4b6a",
        "/home/ada/code/billing",
        "main",
        "0.36.0",
        "codex_cli_rs",
    ) == (meta.session_id, meta.cwd, meta.git_branch, meta.version, meta.entrypoint)
    offset = sum(len(line) for line in CODEX.read_bytes().splitlines(keepends=True)[:4])
    prompt = records[4].prompt
    assert prompt is not None
    assert (f"@{offset}", "Move the invoice export to 03:30 UTC.") == (
        prompt.prompt_id,
        prompt.text,
    )
    assert ("response_item/future_item_kind", "telemetry_blob") == (
        records[17].type_name,
        records[18].type_name,
    )


def test_not_an_object_is_malformed() -> None:
    """Non-JSON, JSON that is not an object, and bad UTF-8 are all malformed."""
    lines = [b"nope", b"[1]", b'"text"', b"\xff\xfe{}", b"{", b"null"]
    assert ["malformed"] * len(lines) == [parse_line(line, 0).kind for line in lines]


def test_a_long_prompt_keeps_its_head() -> None:
    """A stored prompt keeps its first 200 characters, stripped."""
    text = "  " + "x" * 500
    line = (
        '{"type":"user","sessionId":"s","uuid":"u","message":{"role":"user","content":"'
        + text
        + '"}}'
    ).encode()
    prompt = parse_line(line, 0).prompt
    assert prompt is not None
    assert "x" * TEXT_HEAD_CHARS == prompt.text


@given(st.binary(max_size=300))
def test_no_bytes_make_the_parser_raise(raw: bytes) -> None:
    """Whatever the bytes, a record comes back (binary garbage included)."""
    assert parse_line(raw, 0).kind in {
        "prompt",
        "assistant",
        "tool_call",
        "tool_result",
        "title",
        "context",
        "skipped",
        "unknown",
        "malformed",
    }
