"""``memhtml mcp``: serve the store to agents over the Model Context Protocol (issue 16).

The SDK is an optional extra; it is imported inside the command, so ``import memhtml.app.cli``
and every other command run without it, and this one fails with ``ERR_EXTRA_MISSING`` saying
how to install it. On stdio the protocol owns stdout from the moment the server starts, so the
closing envelope goes to stderr; under ``--http`` it is printed on stdout as usual.
"""

from __future__ import annotations

import os
from typing import Final

import click
from click.core import ParameterSource

from memhtml.app.cli.config_root import repo_root
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.cli.state import current_state
from memhtml.domain.errors import InvalidInput

STOPPED_TYPE: Final = "mcp.stopped"
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
EXTRA: Final = "mcp"
HTTP_ONLY: Final = ("host", "port")


def register(group: click.Group) -> None:
    """Add ``mcp`` to ``group``."""
    group.add_command(mcp_command)


@click.command("mcp")
@click.option("--http", is_flag=True, help="Serve streamable HTTP at /mcp instead of stdio.")
@click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="HTTP bind address; one other machines can reach needs MEMHTML_MCP_TOKEN.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="HTTP port; 0 picks a free one (logged on stderr).",
)
@emits(
    STOPPED_TYPE,
    examples=("memhtml mcp --repo ~/memhtml", "memhtml mcp --http --port 8765 --repo ~/memhtml"),
)
def mcp_command(http: bool, host: str, port: int) -> CommandResult:
    """Serve the store's tools and memory files to AI agents over MCP (stdio by default).

    Runs until the client disconnects (stdio) or the process gets SIGINT/SIGTERM (HTTP).
    Needs the optional extra: pip install 'memhtml[mcp]'.
    """
    from memhtml.app.errors import ExtraMissing

    _refuse_http_flags_without_http(http)
    # The root is checked before the SDK loads (~1 s): a mistyped --repo fails at once.
    root = repo_root()
    try:
        from memhtml.app.mcp.serving import serve_http, serve_stdio
    except ImportError as error:
        raise ExtraMissing(f"memhtml {EXTRA}", EXTRA, error.name or EXTRA) from error
    from memhtml.app.mcp.http_policy import check_bind, configured_token
    from memhtml.app.store import Store, open_store

    def opener() -> Store:
        return open_store(root)

    if http:
        token = configured_token(os.environ)
        check_bind(host, token)
        served = serve_http(opener, host=host, port=port, token=token)
    else:
        current_state().writer.hand_over()
        served = serve_stdio(opener)
    return STOPPED_TYPE, {"transport": served.transport, "url": served.url, "calls": served.calls}


def _refuse_http_flags_without_http(http: bool) -> None:
    context = click.get_current_context()
    for name in HTTP_ONLY:
        if not http and context.get_parameter_source(name) is ParameterSource.COMMANDLINE:
            raise InvalidInput(f"--{name} applies to --http only")
