"""The protocol side: the SDK's low-level ``Server`` with handlers over the store worker.

The low-level server, not ``MCPServer``, because the tools' schemas, argument checks and error
codes are ours (``params``, ``outcomes``) and the resource listing must page, which the
decorator API does not. Handlers only translate: every decision is in the pure modules.
"""

from __future__ import annotations

from typing import Any, Final

from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from memhtml import __version__
from memhtml.app.cli.failures import describe_error
from memhtml.app.mcp.catalog import HTML_MIME, INSTRUCTIONS, RESOURCE_TEMPLATES, SERVER_NAME, TOOLS
from memhtml.app.mcp.outcomes import call_tool
from memhtml.app.mcp.resources import list_page, read_uri
from memhtml.app.mcp.tool_spec import ToolSpec
from memhtml.app.mcp.worker import StoreWorker
from memhtml.domain.errors import InvalidInput, NotFound

# JSON-RPC code the MCP specification gives an unknown resource.
RESOURCE_NOT_FOUND: Final = -32002

Context = ServerRequestContext[Any]


def tool_definition(spec: ToolSpec) -> types.Tool:
    """The SDK's ``Tool`` for a spec, with its hints."""
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=False,
        ),
    )


def resource_error(exc: BaseException, uri: str) -> MCPError:
    """A protocol error for a failed resource call, carrying the CLI's code and message."""
    described = describe_error(exc)
    if isinstance(exc, NotFound):
        rpc_code = RESOURCE_NOT_FOUND
    elif isinstance(exc, InvalidInput):
        rpc_code = types.INVALID_PARAMS
    else:
        rpc_code = types.INTERNAL_ERROR
    data = {"code": described.code, "error": described.message, "uri": uri}
    return MCPError(code=rpc_code, message=f"{described.code}: {described.message}", data=data)


def build_server(worker: StoreWorker) -> Server[Any]:
    """A server whose tools and resources run on ``worker``'s store."""
    tools = [tool_definition(spec) for spec in TOOLS]
    templates = [
        types.ResourceTemplate(
            uri_template=template, name=name, description=text, mime_type=HTML_MIME
        )
        for template, name, text in RESOURCE_TEMPLATES
    ]

    async def list_tools(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        name, arguments = params.name, params.arguments
        outcome = await worker.run(lambda store: call_tool(store, name, arguments))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.structured,
            is_error=outcome.is_error,
        )

    async def list_resources(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        cursor = params.cursor if params is not None else None
        try:
            page = await worker.run(lambda store: list_page(store, cursor))
        except Exception as exc:
            raise resource_error(exc, "resources/list") from exc
        resources = [
            types.Resource(
                uri=entry.uri,
                name=entry.name,
                title=entry.title,
                description=entry.description,
                mime_type=HTML_MIME,
            )
            for entry in page.entries
        ]
        return types.ListResourcesResult(resources=resources, next_cursor=page.next_cursor)

    async def list_templates(
        ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=templates)

    async def read_resource(
        ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            source = await worker.run(lambda store: read_uri(store, uri))
        except Exception as exc:
            raise resource_error(exc, uri) from exc
        contents: list[types.TextResourceContents | types.BlobResourceContents] = [
            types.TextResourceContents(uri=uri, text=source.html, mime_type=HTML_MIME)
        ]
        return types.ReadResourceResult(contents=contents)

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
