"""Run the server on a transport: stdio (what desktop and CLI agents spawn) or streamable HTTP.

Both open the store once, queue a warm-up search, serve until the client goes away (stdin
closes) or the process is told to stop (SIGINT/SIGTERM under HTTP), then close the store.
"""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any, Final

import anyio
import attrs

from memhtml.app.mcp.http_policy import BearerGate
from memhtml.app.mcp.server import build_server
from memhtml.app.mcp.stdio_pipes import claimed_pipes
from memhtml.app.mcp.worker import StoreWorker
from memhtml.domain.errors import InvalidInput

if TYPE_CHECKING:
    import uvicorn

    from memhtml.app.store import Store

logger = logging.getLogger("memhtml")

HTTP_PATH: Final = "/mcp"
LISTEN_BACKLOG: Final = 64


@attrs.frozen(kw_only=True)
class Served:
    """What a finished server reports: its transport, its URL (HTTP) and how many calls ran."""

    transport: str
    url: str | None
    calls: int


def serve_stdio(opener: Callable[[], Store]) -> Served:
    """Serve on stdin/stdout until the client closes stdin."""
    from mcp.server.stdio import stdio_server

    worker = StoreWorker(opener)
    server = build_server(worker)

    async def run() -> None:
        with claimed_pipes() as pipes:
            # Pipes on both ends (an agent spawned us): the loop reads and writes them itself.
            wire: dict[str, Any] = {} if pipes is None else {"stdin": pipes[0], "stdout": pipes[1]}
            async with stdio_server(**wire) as (read_stream, write_stream):
                logger.info("MCP server ready on stdio")
                await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        worker.warm()
        anyio.run(run)
    except KeyboardInterrupt:
        # Ctrl-C at a terminal is how a person stops a server they started by hand.
        logger.info("MCP server interrupted")
    finally:
        worker.close()
    return Served(transport="stdio", url=None, calls=worker.calls)


def serve_http(opener: Callable[[], Store], *, host: str, port: int, token: str | None) -> Served:
    """Serve streamable HTTP at ``http://host:port/mcp`` until SIGINT or SIGTERM.

    The socket is bound here, before the store opens, so a taken port fails as the caller's
    error and ``--port 0`` can report the port it got.

    Raises:
        InvalidInput: The address cannot be bound (in use, or not this machine's).
    """
    listener = _bind(host, port)
    bound_port = listener.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    url = f"http://{shown_host}:{bound_port}{HTTP_PATH}"
    try:
        worker = StoreWorker(opener)
    except BaseException:
        listener.close()
        raise
    app = build_server(worker).streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    served = BearerGate(app, token) if token is not None else app
    http = _uvicorn_server(served)

    async def run() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(http.serve, [listener])
            while not (http.started or http.should_exit):
                await anyio.sleep(0.01)
            if http.started:
                logger.info("MCP server listening on %s", url)

    try:
        worker.warm()
        anyio.run(run)
    finally:
        listener.close()
        worker.close()
    return Served(transport="http", url=url, calls=worker.calls)


def _uvicorn_server(app: Any) -> uvicorn.Server:
    """A uvicorn server that stops on SIGINT/SIGTERM and then lets the command finish.

    uvicorn re-raises the signal after a graceful shutdown, which would kill the process before
    it prints its closing envelope; here the signal only asks the server to stop.
    """
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if self.should_exit and sig == signal.SIGINT:
                self.force_exit = True
            else:
                self.should_exit = True

    return Server(uvicorn.Config(app, log_level="warning", lifespan="on"))


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host.strip("[]"), port))
        listener.listen(LISTEN_BACKLOG)
    except OSError as error:
        listener.close()
        raise InvalidInput(f"cannot listen on {host}:{port} ({error.strerror})") from error
    return listener
