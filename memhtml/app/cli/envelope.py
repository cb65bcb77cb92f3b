"""The JSON envelope every invocation prints: success or failure, in a stable key order.

Success ``{"apiVersion":"1","type":T,"data":{…}}``; failure
``{"apiVersion":"1","error":prose,"code":"ERR_…","suggestions":[…]}``, plus ``"detail":{…}``
when the command ran to its end and its result is the failure (an aborted batch, an unhealthy
store). Keys keep the order the command listed them in; text is UTF-8, never ``\\u``-escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, TypeAlias

import attrs

API_VERSION: Final = "1"

# A JSON document as Python builds it: the encoder accepts exactly these shapes.
JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None

# Without --dense the envelope is indented for a person reading a pipe; --dense is one line.
INDENT: Final = 2
DENSE_SEPARATORS: Final = (",", ":")


@attrs.frozen(kw_only=True)
class Failure:
    """What a failed invocation reports.

    Attributes:
        message: Prose for a person; built from our own exception messages, never from a
            driver's, so it carries no SQL parameters or memory text.
        code: The stable ``ERR_*`` code.
        exit_status: 2 for usage errors, 1 for runtime failures.
        suggestions: Runnable commands or actions, possibly none.
        detail: The result of a command that ran to its end and failed (``apply``'s op
            results, ``doctor``'s report), shaped as its success ``data``; else ``None``.
    """

    message: str
    code: str
    exit_status: int
    suggestions: tuple[str, ...] = ()
    detail: Mapping[str, object] | None = None


def to_json_value(value: object) -> JsonValue:
    """Copy ``value`` into plain JSON shapes: mappings to dicts, tuples and lists to lists.

    Raises:
        TypeError: A value JSON cannot carry in a stable order (a set, an object), or a
            mapping key that is not a string.
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        copied: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, not {type(key).__name__}")
            copied[key] = to_json_value(item)
        return copied
    if isinstance(value, list | tuple):
        return [to_json_value(item) for item in value]
    raise TypeError(f"{type(value).__name__} is not JSON data")


def drop_nulls(value: JsonValue) -> JsonValue:
    """Remove every null-valued object key, at any depth; ``false``, ``0`` and ``[]`` stay.

    Nulls inside arrays stay too: dropping one would shift the positions of the rest.
    """
    if isinstance(value, dict):
        return {key: drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_nulls(item) for item in value]
    return value


def success_envelope(response_type: str, data: Mapping[str, object]) -> dict[str, JsonValue]:
    """The success envelope around ``data``, keys in contract order."""
    return {"apiVersion": API_VERSION, "type": response_type, "data": to_json_value(data)}


def failure_envelope(failure: Failure) -> dict[str, JsonValue]:
    """The failure envelope, keys in contract order; ``suggestions`` is always an array and
    ``detail`` is present only when the failure carries one."""
    envelope: dict[str, JsonValue] = {
        "apiVersion": API_VERSION,
        "error": failure.message,
        "code": failure.code,
        "suggestions": list(failure.suggestions),
    }
    if failure.detail is not None:
        envelope["detail"] = to_json_value(failure.detail)
    return envelope


def encode(envelope: Mapping[str, JsonValue], *, dense: bool) -> str:
    """The envelope as newline-terminated JSON text.

    Args:
        envelope: A success or failure envelope.
        dense: One line with no spaces, null-valued keys dropped recursively.

    Raises:
        ValueError: A float is NaN or infinite, which JSON cannot carry.
    """
    document = to_json_value(envelope)
    if dense:
        text = json.dumps(
            drop_nulls(document), ensure_ascii=False, allow_nan=False, separators=DENSE_SEPARATORS
        )
    else:
        text = json.dumps(document, ensure_ascii=False, allow_nan=False, indent=INDENT)
    return text + "\n"
