"""One tool call, start to finish, as a plain value: the structured result and its text.

Success carries the CLI envelope's ``data`` as structured content and the ``--pretty``
rendering of it as text. Any exception becomes the CLI's failure (same ``ERR_*`` code, same
message, same suggestions, from the same table); an unexpected one is logged with its
traceback on stderr and reported by class name only. Nothing here imports the SDK.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from memhtml.app.cli import pretty
from memhtml.app.cli.envelope import JsonValue, drop_nulls, to_json_value
from memhtml.app.cli.errors import ERR_UNKNOWN
from memhtml.app.cli.failures import describe_error
from memhtml.app.mcp.calls import CALLS
from memhtml.app.mcp.catalog import tool_named
from memhtml.app.mcp.params import check_arguments

if TYPE_CHECKING:
    from memhtml.app.store import Store

logger = logging.getLogger("memhtml")


@attrs.frozen(kw_only=True)
class Outcome:
    """What one tool call returns.

    Attributes:
        structured: The CLI's ``data`` on success; ``{error, code, suggestions}`` on failure,
            plus ``detail`` when the CLI's failure envelope carries one.
        text: A rendering for a model or person reading the result as text.
        is_error: Whether the call failed.
    """

    structured: dict[str, JsonValue]
    text: str
    is_error: bool


def call_tool(store: Store, name: str, arguments: Mapping[str, object] | None) -> Outcome:
    """Run tool ``name`` over ``store``; never raises."""
    try:
        tool = tool_named(name)
        checked = check_arguments(tool.params, arguments or {})
        data = CALLS[tool.name](store, checked)
        return success(tool.response_type, data)
    except Exception as exc:  # every failure, ours or not, becomes a tool error
        return failure(exc, name)


def success(response_type: str, data: Mapping[str, object]) -> Outcome:
    """A result carrying ``data`` and its ``--pretty`` text."""
    structured = to_json_value(data)
    if not isinstance(structured, dict):
        raise TypeError("tool data must be a JSON object")
    return Outcome(
        structured=structured,
        text=pretty.render_success(response_type, drop_nulls(structured)),
        is_error=False,
    )


def failure(exc: BaseException, tool: str) -> Outcome:
    """The CLI's failure for ``exc`` as a tool error; the traceback of an unknown one is logged."""
    described = describe_error(exc)
    if described.code == ERR_UNKNOWN:
        logger.error("tool %s failed unexpectedly", tool, exc_info=exc)
    structured: dict[str, JsonValue] = {
        "error": described.message,
        "code": described.code,
        "suggestions": list(described.suggestions),
    }
    if described.detail is not None:
        structured["detail"] = to_json_value(described.detail)
    lines = [f"{described.code}: {described.message}"]
    lines.extend(f"try: {suggestion}" for suggestion in described.suggestions)
    return Outcome(structured=structured, text="\n".join(lines) + "\n", is_error=True)
