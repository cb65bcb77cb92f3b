"""The stdio wire read and written on the event loop (``app/mcp/stdio_pipes.py``), over real
pipes, and the SDK's own transport when stdin is a file."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path

import anyio

from memhtml.app.mcp.stdio_pipes import PipeLines, PipeWriter
from tests.integration.mcp_session import CONSOLE_SCRIPT, child_environment


def _lines_from(payload: bytes) -> list[str]:
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)

    def feed() -> None:
        # In pieces, so lines arrive split across reads.
        for start in range(0, len(payload), 7):
            os.write(write_fd, payload[start : start + 7])
        os.close(write_fd)

    async def collect() -> list[str]:
        return [line async for line in PipeLines(read_fd)]

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        return anyio.run(collect)
    finally:
        feeder.join()
        os.close(read_fd)


def test_lines_are_split_at_newlines_and_a_last_unterminated_line_is_kept() -> None:
    """Lines come back whole, newline included, however the bytes were chunked."""
    payload = b'{"a": 1}\n{"b": "\xc3\xa9t\xc3\xa9"}\n\n{"c": 3}'

    expected = ['{"a": 1}\n', '{"b": "été"}\n', "\n", '{"c": 3}']
    assert expected == _lines_from(payload)


def test_invalid_utf8_is_replaced_not_raised() -> None:
    """A bad byte becomes U+FFFD, as the SDK's transport decodes it, and the stream goes on."""
    expected = ["a\ufffdb\n", "next\n"]
    assert expected == _lines_from(b"a\xffb\nnext\n")


def test_a_write_larger_than_the_pipe_waits_for_the_reader() -> None:
    """A message bigger than the pipe's buffer arrives complete: the writer waits, never drops."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    text = "x" * (1 << 20) + "\n"
    received = bytearray()

    def drain() -> None:
        while chunk := os.read(read_fd, 1 << 15):
            received.extend(chunk)

    async def write() -> int:
        writer = PipeWriter(write_fd)
        written = await writer.write(text)
        await writer.flush()
        return written

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        written = anyio.run(write)
    finally:
        os.close(write_fd)
        reader.join()
        os.close(read_fd)
    assert (len(text), text.encode()) == (written, bytes(received))


def test_a_server_whose_stdin_is_a_file_answers_through_the_sdk_transport(
    tmp_path: Path,
) -> None:
    """stdin from a file (not a pipe) falls back to the SDK's transport and still answers.

    Only ``initialize``: the SDK answers it before reading on, while a later request can lose
    the race with the end of the file, which closes the session.
    """
    root = tmp_path / "store"
    env = child_environment()
    subprocess.run(
        [str(CONSOLE_SCRIPT), "init", "--repo", str(root)], env=env, check=True, capture_output=True
    )
    requests = tmp_path / "requests.jsonl"
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    requests.write_text(json.dumps(initialize) + "\n", encoding="utf-8")
    with requests.open("rb") as stdin:
        done = subprocess.run(
            [str(CONSOLE_SCRIPT), "mcp", "--repo", str(root)],
            stdin=stdin,
            capture_output=True,
            env=env,
            timeout=120,
            check=False,
        )
    answers = [json.loads(line) for line in done.stdout.splitlines()]

    expected = [(1, "memhtml")]
    assert expected == [(a["id"], a["result"]["serverInfo"]["name"]) for a in answers]
