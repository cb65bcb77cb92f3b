"""``memhtml mcp`` as processes: two servers writing to one store lose nothing, the HTTP
transport with its bearer gate, the closing envelope, and the failures before serving."""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import anyio
import httpx2
import pytest
from dulwich.repo import Repo
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from tests.integration.mcp_session import CONSOLE_SCRIPT, McpSession, child_environment
from tests.integration.test_cli_commands_store import data, envelope, invoke

WRITES_PER_SERVER: Final = 6
TOKEN: Final = "correct horse battery staple"
READY_TIMEOUT_S: Final = 60.0
READY_MARK: Final = "listening on "


def _store(root: Path) -> Path:
    data(invoke(["init", "--repo", str(root)]))
    return root


def _burst(session: McpSession, worker: int) -> list[CallToolResult]:
    """All of one server's writes sent at once, so the two servers' commits interleave."""

    async def send_all() -> list[CallToolResult]:
        results: list[CallToolResult] = []

        async def one(n: int) -> None:
            claim = f"Server {worker} noted fact {n} under codeword qv{worker}z{n}."
            arguments = {"title": f"server {worker} note {n}", "type": "semantic", "claim": claim}
            results.append(await session.client.call_tool("write", arguments))

        async with anyio.create_task_group() as group:
            for n in range(WRITES_PER_SERVER):
                group.start_soon(one, n)
        return results

    return session.portal.call(send_all)


def test_two_servers_writing_to_one_store_lose_nothing(tmp_path: Path) -> None:
    """Every write of both servers is a commit of its own, listed and searchable afterwards."""
    root = _store(tmp_path / "store")
    sessions = [McpSession(root, tmp_path / f"server{n}.stderr") for n in (1, 2)]
    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            bursts = list(pool.map(_burst, sessions, (1, 2)))
        found = sessions[0].data("search", {"query": "qv2z5"})
    finally:
        for session in sessions:
            session.close()
    results = [result for burst in bursts for result in burst]
    assert [False] * 12 == [result.is_error for result in results]
    paths = {result.structured_content["path"] for result in results}
    listed = data(invoke(["--repo", str(root), "list", "--limit", "500"]))["files"]
    assert paths == {item["path"] for item in listed}
    assert 2 * WRITES_PER_SERVER == len(paths)
    with Repo(str(root)) as repo:
        commits = sum(1 for _ in repo.get_walker())
    assert 1 + 2 * WRITES_PER_SERVER == commits
    assert "server 2 note 5" == found["hits"][0]["title"]


def test_stdio_prints_the_closing_envelope_on_stderr(tmp_path: Path) -> None:
    """stdout belongs to the protocol; mcp.stopped (with the call count) goes to stderr."""
    root = _store(tmp_path / "store")
    errlog = tmp_path / "server.stderr"
    session = McpSession(root, errlog)
    session.data("index_status")
    session.close()
    text = errlog.read_text(encoding="utf-8")
    stopped = json.loads(text[text.index("{") :])
    assert {"transport": "stdio", "url": None, "calls": 1} == stopped["data"]
    assert "mcp.stopped" == stopped["type"]


def _mcp(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE_SCRIPT), "mcp", *args],
        capture_output=True,
        text=True,
        env=child_environment(env),
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def test_an_uninitialized_root_fails_before_serving(tmp_path: Path) -> None:
    """The usual failure envelope on stdout, exit 2, and no server left running."""
    done = _mcp(["--repo", str(tmp_path / "nothing")])
    assert (2, "ERR_REPO_REQUIRED") == (done.returncode, json.loads(done.stdout)["code"])


def test_without_the_extra_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    """With the SDK unimportable: ERR_EXTRA_MISSING and the pip command, on stdout."""
    root = _store(tmp_path / "store")
    hide_sdk = (
        "import sys\n"
        "sys.modules['mcp'] = None\n"
        "from memhtml.app.cli import main\n"
        f"sys.argv = ['memhtml', 'mcp', '--repo', {str(root)!r}]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_sdk],
        capture_output=True,
        text=True,
        env=child_environment(),
        timeout=120,
        check=False,
    )
    failure = json.loads(done.stdout)
    assert (1, "ERR_EXTRA_MISSING") == (done.returncode, failure["code"])
    assert ["pip install 'memhtml[mcp]'"] == failure["suggestions"]


@pytest.mark.parametrize(
    "args",
    [["--http", "--host", "0.0.0.0", "--port", "0"], ["--port", "9999"], ["--host", "::1"]],
)
def test_refused_bindings_are_usage_errors(tmp_path: Path, args: list[str]) -> None:
    """A reachable host without a token, or HTTP flags without --http: ERR_INVALID_FLAG."""
    root = _store(tmp_path / "store")
    done = invoke(["--repo", str(root), "mcp", *args])
    assert (2, "ERR_INVALID_FLAG") == (done.exit_code, envelope(done)["code"])


@contextmanager
def _http_server(root: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``memhtml mcp --http --port 0`` with a token; yields the process and its URL."""
    process = subprocess.Popen(
        [str(CONSOLE_SCRIPT), "mcp", "--http", "--port", "0", "--repo", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_environment({"MEMHTML_MCP_TOKEN": TOKEN, "MEMHTML_LOG_LEVEL": "info"}),
    )
    try:
        yield process, _await_url(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _await_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 1.0)
        line = process.stderr.readline() if ready else ""
        if READY_MARK in line:
            return line.split(READY_MARK, 1)[1].strip()
        if process.poll() is not None:
            break
    raise AssertionError("the HTTP server never said where it listens")


def _status_without_token(url: str) -> int:
    request = urllib.request.Request(url, data=b"{}", method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def _search_over_http(url: str) -> Any:
    async def run() -> Any:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http), cache=None) as client,
        ):
            result = await client.call_tool("search", {"query": "ledger lock", "limit": 2})
            return result.structured_content

    return anyio.run(run)


def test_http_serves_the_same_data_behind_the_bearer_token(tmp_path: Path) -> None:
    """401 without the token; with it the CLI's search data; SIGTERM ends it with mcp.stopped."""
    root = _store(tmp_path / "store")
    claim = "The nightly ledger lock is held for about 40 minutes."
    data(
        invoke(
            [
                "--repo",
                str(root),
                "write",
                "--title",
                "Ledger lock",
                "--type",
                "semantic",
                "--claim",
                claim,
            ]
        )
    )
    with _http_server(root) as (process, url):
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/mcp")
        assert 401 == _status_without_token(url)
        over_http = _search_over_http(url)
        process.send_signal(signal.SIGTERM)
        stdout, _ = process.communicate(timeout=60)
    cli = data(invoke(["--repo", str(root), "search", "ledger lock", "--limit", "2"]))
    assert {**cli, "indexUpdateMs": 0} == {**over_http, "indexUpdateMs": 0}
    stopped = json.loads(stdout)
    assert (0, "mcp.stopped", url) == (process.returncode, stopped["type"], stopped["data"]["url"])
