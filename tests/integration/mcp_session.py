"""A spawned ``memhtml mcp`` driven by the SDK's own stdio client, callable from sync tests.

The client lives in an anyio blocking portal (one event loop on a thread), so a module-scoped
fixture can hold one server for many tests: the server starts once per module.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Final

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, ReadResourceResult

CONSOLE_SCRIPT: Final = Path(sys.executable).parent / "memhtml"
# Lexical only, quiet: the suite's stores need no model unless a test asks for one.
SERVER_ENV: Final = {"MEMHTML_EMBED": "off", "MEMHTML_LOG_LEVEL": "warning"}


def child_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The test's environment minus any MEMHTML_* setting, plus the server's and ``extra``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMHTML_")}
    return {**base, **SERVER_ENV, **(extra or {})}


class McpSession:
    """One server process on ``root`` and an initialized client session to it.

    Args:
        root: The store.
        errlog: Where the server's stderr goes (its closing envelope lands there on stdio).
        env: Extra environment for the server.
    """

    def __init__(self, root: Path, errlog: Path, env: Mapping[str, str] | None = None) -> None:
        self._errlog: IO[str] = errlog.open("w", encoding="utf-8")
        params = StdioServerParameters(
            command=str(CONSOLE_SCRIPT),
            args=["mcp", "--repo", str(root)],
            env=child_environment(env),
        )
        self._portal_context = start_blocking_portal()
        self.portal = self._portal_context.__enter__()
        client = Client(stdio_client(params, errlog=self._errlog), cache=None)
        self._client_context = self.portal.wrap_async_context_manager(client)
        self.client: Client = self._client_context.__enter__()

    def call(self, name: str, arguments: Mapping[str, Any] | None = None) -> CallToolResult:
        """One tools/call, as the client returns it."""
        result: CallToolResult = self.portal.call(
            self.client.call_tool, name, dict(arguments or {})
        )
        return result

    def data(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """The structured content of a call that must succeed."""
        result = self.call(name, arguments)
        assert not result.is_error, result.structured_content
        return result.structured_content

    def read(self, uri: str) -> ReadResourceResult:
        """One resources/read."""
        return self.portal.call(self.client.read_resource, uri)

    def close(self) -> None:
        """Close the session (the server sees stdin close and exits), then the loop."""
        try:
            self._client_context.__exit__(None, None, None)
        finally:
            self._portal_context.__exit__(None, None, None)
            self._errlog.close()
