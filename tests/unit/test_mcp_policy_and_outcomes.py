"""The MCP server's pure rules: who may bind, the bearer gate, the tool table, and failures
reported with the CLI's codes and messages."""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import pytest

from memhtml.app.cli.errors import ERR_UNKNOWN
from memhtml.app.mcp.calls import CALLS
from memhtml.app.mcp.catalog import TOOLS, manifest_section, tool_named
from memhtml.app.mcp.http_policy import BearerGate, check_bind, configured_token, is_loopback
from memhtml.app.mcp.outcomes import call_tool, failure, success
from memhtml.domain.errors import InvalidInput, NotFound

SECRET = "the nightly ledger lock password is hunter2"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.5.0.9", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("192.168.1.20", False),
        ("::", False),
        ("example.internal", False),
    ],
)
def test_loopback_means_this_machine_only(host: str, loopback: bool) -> None:
    """Loopback addresses and `localhost` are local; wildcards, LAN addresses and names are not."""
    assert loopback == is_loopback(host)


def test_a_reachable_bind_needs_a_token() -> None:
    """0.0.0.0 without MEMHTML_MCP_TOKEN is refused as bad input; with one it is allowed."""
    with pytest.raises(InvalidInput, match="MEMHTML_MCP_TOKEN"):
        check_bind("0.0.0.0", None)
    check_bind("0.0.0.0", "s3cret")
    check_bind("127.0.0.1", None)


def test_a_blank_token_is_no_token() -> None:
    """An empty or whitespace variable does not count as a configured secret."""
    assert (None, None, "t") == (
        configured_token({}),
        configured_token({"MEMHTML_MCP_TOKEN": "  "}),
        configured_token({"MEMHTML_MCP_TOKEN": " t "}),
    )


def _through_gate(headers: list[tuple[bytes, bytes]]) -> tuple[int, bool]:
    """(status sent, whether the wrapped app ran) for one HTTP request through the gate."""
    reached: list[bool] = []
    sent: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    gate = BearerGate(app, "s3cret")
    asyncio.run(gate({"type": "http", "headers": headers}, receive, send))
    return sent[0]["status"], bool(reached)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ([], (401, False)),
        ([(b"authorization", b"Bearer wrong")], (401, False)),
        ([(b"authorization", b"Basic s3cret")], (401, False)),
        ([(b"authorization", b"Bearer s3cret")], (200, True)),
        ([(b"Authorization", b"bearer  s3cret")], (200, True)),
    ],
)
def test_the_gate_admits_only_the_token(
    headers: list[tuple[bytes, bytes]], expected: tuple[int, bool]
) -> None:
    """Requests without the exact bearer token get 401 and never reach the MCP app."""
    assert expected == _through_gate(headers)


def test_every_tool_has_exactly_one_call_and_a_unique_name() -> None:
    """The table and the dispatch list the same thirteen tools, neighbors (issue 15) included."""
    names = [tool.name for tool in TOOLS]
    assert len(set(names)) == len(names) == 13
    assert set(names) == set(CALLS)
    assert "neighbors" in names


def test_the_manifest_section_lists_every_tool_with_its_schema() -> None:
    """memhtml manifest shows the same tools and schemas the server lists."""
    section = manifest_section()
    listed = section["tools"]
    assert isinstance(listed, list)
    assert [tool.name for tool in TOOLS] == [entry["name"] for entry in listed]
    assert tool_named("search").input_schema() == listed[0]["inputSchema"]


@pytest.mark.parametrize(
    ("error", "code", "message"),
    [
        (NotFound("no memory at areas/x.html"), "ERR_PATH_NOT_FOUND", "no memory at areas/x.html"),
        (InvalidInput("limit must be an integer"), "ERR_INVALID_FLAG", "limit must be an integer"),
    ],
)
def test_a_failure_carries_the_cli_code_and_message(
    error: Exception, code: str, message: str
) -> None:
    """Structured {error, code, suggestions} and `ERR_…: message` text, as the CLI's envelope."""
    outcome = failure(error, "read")
    assert (True, {"error": message, "code": code, "suggestions": []}) == (
        outcome.is_error,
        outcome.structured,
    )
    assert f"{code}: {message}\n" == outcome.text


def test_an_unexpected_failure_names_its_class_only(caplog: pytest.LogCaptureFixture) -> None:
    """A driver's text (SQL parameters, memory text) never reaches the client; it is logged."""
    outcome = failure(sqlite3.OperationalError(SECRET), "search")
    assert ERR_UNKNOWN == outcome.structured["code"]
    assert SECRET not in outcome.text + str(outcome.structured)
    assert "OperationalError" in str(outcome.structured["error"])
    assert any(record.exc_info for record in caplog.records)


def test_an_unknown_tool_is_an_unknown_command_and_never_raises() -> None:
    """Calling a tool that does not exist is a tool error, before any store is touched."""
    outcome = call_tool(store=None, name="serch", arguments={})  # type: ignore[arg-type]
    assert ("ERR_UNKNOWN_COMMAND", True) == (outcome.structured["code"], outcome.is_error)


def test_bad_arguments_fail_before_the_store_is_touched() -> None:
    """Argument checks run first: no store is needed to refuse a blank query."""
    outcome = call_tool(store=None, name="search", arguments={"query": " "})  # type: ignore[arg-type]
    assert {
        "error": "query must not be blank: use the list tool to browse",
        "code": "ERR_INVALID_FLAG",
        "suggestions": [],
    } == outcome.structured


def test_success_text_is_the_pretty_rendering_without_nulls() -> None:
    """The text block is `--pretty` of the data with null keys dropped; structure keeps them."""
    outcome = success("memory.linked", {"srcPath": "a.html", "commitSha": None})
    assert {"srcPath": "a.html", "commitSha": None} == outcome.structured
    assert "memory.linked\nsrcPath  a.html\n" == outcome.text
