"""The server's tool table and the prose a client shows a model before the first call.

One table for the server's ``tools/list``, its dispatch, and the manifest's ``mcp`` section.
"""

from __future__ import annotations

from typing import Final

from memhtml.app.errors import UnknownTool
from memhtml.app.mcp.catalog_reads import READ_TOOLS
from memhtml.app.mcp.catalog_writes import WRITE_TOOLS
from memhtml.app.mcp.tool_spec import ToolSpec

SERVER_NAME: Final = "memhtml"
TOOLS: Final[tuple[ToolSpec, ...]] = (*READ_TOOLS, *WRITE_TOOLS)
_BY_NAME: Final[dict[str, ToolSpec]] = {tool.name: tool for tool in TOOLS}

INSTRUCTIONS: Final = (
    "memhtml is a long-term memory: a git repository of short HTML files, one fact per file, "
    "with full-text and vector search over them. At the start of a task call recall with the "
    "topic to load what is already known; use search for a specific fact and read to see a "
    "memory in full. Store durable facts, decisions, preferences and error causes with write "
    "(one fact each, specific title, one-sentence claim) or apply for several at once. When a "
    "stored fact changes, use correct (never a second, contradicting write); retire stale "
    "ones with archive. After using memories, reinforce the ones that helped. Every change is "
    "a git commit, so nothing is lost. Failed calls return an ERR_* code and a message."
)

MEMORY_URI_PREFIX: Final = "memhtml://memory/"
AT_URI_PREFIX: Final = "memhtml://at/"
MEMORY_TEMPLATE: Final = MEMORY_URI_PREFIX + "{+path}"
AT_TEMPLATE: Final = AT_URI_PREFIX + "{commit}/{+path}"
HTML_MIME: Final = "text/html"
RESOURCE_TEMPLATES: Final[tuple[tuple[str, str, str], ...]] = (
    (
        MEMORY_TEMPLATE,
        "memory",
        "A memory file's HTML as it is now in the store's working tree.",
    ),
    (
        AT_TEMPLATE,
        "memory-at-commit",
        "A memory file's HTML as it was at a commit (a full or abbreviated sha).",
    ),
)


def tool_named(name: str) -> ToolSpec:
    """The tool called ``name``.

    Raises:
        UnknownTool: No such tool; the message lists the tools there are.
    """
    tool = _BY_NAME.get(name)
    if tool is None:
        raise UnknownTool(f"no such tool {name!r}; tools: {', '.join(_BY_NAME)}")
    return tool


def manifest_section() -> dict[str, object]:
    """The manifest's ``mcp`` object: every tool with its schema, and the resource templates."""
    return {
        "serverName": SERVER_NAME,
        "tools": [
            {
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "responseType": tool.response_type,
                "readOnly": tool.read_only,
                "inputSchema": tool.input_schema(),
            }
            for tool in TOOLS
        ],
        "resourceTemplates": [
            {"uriTemplate": template, "name": name, "mimeType": HTML_MIME, "description": text}
            for template, name, text in RESOURCE_TEMPLATES
        ],
    }
