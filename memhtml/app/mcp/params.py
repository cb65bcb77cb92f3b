"""A tool's parameters, declared once: the JSON Schema a client sees and the check a call gets.

The schema and the checker read the same :class:`Param` values, so what a model is told and
what the server accepts cannot drift. A failed check raises the errors the command line raises
for the same mistake (``MissingArgument`` → ``ERR_MISSING_ARGUMENT``, ``InvalidInput`` →
``ERR_INVALID_FLAG``), naming the argument and never echoing its value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final, Literal

import attrs

from memhtml.app.errors import MissingArgument
from memhtml.domain.errors import InvalidInput

Kind = Literal["string", "integer", "number", "boolean", "strings", "objects"]
Scalar = str | int | float | bool
Checked = dict[str, object]

_JSON_TYPES: Final[Mapping[Kind, str]] = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "strings": "array",
    "objects": "array",
}


@attrs.frozen(kw_only=True)
class Param:
    """One named argument of a tool.

    Attributes:
        name: The argument's key in the call's ``arguments`` object.
        kind: ``strings`` is an array of strings, ``objects`` an array of JSON objects.
        description: What it means, for a model that has never seen memhtml.
        required: A call without it fails with ``ERR_MISSING_ARGUMENT``.
        default: The value an absent optional argument takes (``None``: absent stays absent).
        choices: The only values a string (or each string of ``strings``) may take.
        minimum, maximum: Inclusive bounds of a number.
        max_items: The longest array accepted.
        non_blank: A string (or each item) must hold something besides whitespace.
        blank_hint: What to do instead, added to the refusal of a blank value (a blank query
            is refused with the command line's own hint: browse with ``list``).
        max_length: The longest string the schema advertises; the request the call builds
            enforces its own bound (a query's is ``domain/query_bounds``), so the two agree.
    """

    name: str
    kind: Kind
    description: str
    required: bool = False
    default: Scalar | None = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    max_items: int | None = None
    non_blank: bool = False
    blank_hint: str = ""
    max_length: int | None = None


def input_schema(params: Sequence[Param]) -> dict[str, object]:
    """The JSON Schema object for a call's ``arguments``; unknown keys are refused."""
    return {
        "type": "object",
        "properties": {param.name: _property(param) for param in params},
        "required": [param.name for param in params if param.required],
        "additionalProperties": False,
    }


def _property(param: Param) -> dict[str, object]:
    schema: dict[str, object] = {"type": _JSON_TYPES[param.kind]}
    text: dict[str, object] = {}
    if param.choices:
        text["enum"] = list(param.choices)
    if param.non_blank:
        text["minLength"] = 1
    if param.max_length is not None:
        text["maxLength"] = param.max_length
    if param.kind == "strings":
        schema["items"] = {"type": "string", **text}
    elif param.kind == "objects":
        schema["items"] = {"type": "object"}
    else:
        schema.update(text)
    if param.max_items is not None:
        schema["maxItems"] = param.max_items
    if param.minimum is not None:
        schema["minimum"] = param.minimum
    if param.maximum is not None:
        schema["maximum"] = param.maximum
    if param.default is not None:
        schema["default"] = param.default
    schema["description"] = param.description
    return schema


def check_arguments(params: Sequence[Param], arguments: Mapping[str, object]) -> Checked:
    """``arguments`` checked against ``params``, defaults filled in; JSON null reads as absent.

    Raises:
        InvalidInput: An unknown argument, a value of the wrong type, outside its range or
            choices, blank where text is needed, or an array longer than allowed.
        MissingArgument: A required argument is absent.
    """
    known = {param.name for param in params}
    unknown = sorted(name for name in arguments if name not in known)
    if unknown:
        raise InvalidInput(f"unknown argument {unknown[0]!r}; accepted: {', '.join(sorted(known))}")
    checked: Checked = {}
    for param in params:
        value = arguments.get(param.name)
        if value is None:
            if param.required:
                raise MissingArgument(f"missing argument {param.name!r}")
            if param.default is not None:
                checked[param.name] = param.default
            continue
        checked[param.name] = _value(param, value)
    return checked


def _value(param: Param, value: object) -> object:
    if param.kind == "strings":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise InvalidInput(f"{param.name} must be an array of strings")
        _length(param, items)
        return tuple(_text(param, item) for item in items)
    if param.kind == "objects":
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise InvalidInput(f"{param.name} must be an array of objects")
        _length(param, value)
        return tuple(value)
    if param.kind == "string":
        if not isinstance(value, str):
            raise InvalidInput(f"{param.name} must be a string")
        return _text(param, value)
    if param.kind == "boolean":
        if not isinstance(value, bool):
            raise InvalidInput(f"{param.name} must be true or false")
        return value
    return _number(param, value)


def _text(param: Param, value: str) -> str:
    if param.non_blank and not value.strip():
        hint = f": {param.blank_hint}" if param.blank_hint else ""
        raise InvalidInput(f"{param.name} must not be blank{hint}")
    if param.choices and value not in param.choices:
        raise InvalidInput(f"{param.name} must be one of {', '.join(param.choices)}")
    return value


def _length(param: Param, items: Sequence[object]) -> None:
    if param.max_items is not None and len(items) > param.max_items:
        raise InvalidInput(f"{param.name} holds {len(items)} items; at most {param.max_items}")


def _number(param: Param, value: object) -> int | float:
    # bool is an int subclass in Python; `true` is not a number here.
    integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{param.name} must be {_a_number(param)}")
    if param.kind == "integer" and not integral:
        raise InvalidInput(f"{param.name} must be {_a_number(param)}")
    if not math.isfinite(value):
        raise InvalidInput(f"{param.name} must be {_a_number(param)}")
    too_low = param.minimum is not None and value < param.minimum
    too_high = param.maximum is not None and value > param.maximum
    if too_low or too_high:
        raise InvalidInput(f"{param.name} must be {_a_number(param)}")
    return int(value) if param.kind == "integer" else float(value)


def _a_number(param: Param) -> str:
    noun = "an integer" if param.kind == "integer" else "a number"
    low = _bound(param.minimum)
    high = _bound(param.maximum)
    if low is not None and high is not None:
        return f"{noun} from {low} to {high}"
    if low is not None:
        return f"{noun} of at least {low}"
    if high is not None:
        return f"{noun} of at most {high}"
    return noun


def _bound(bound: float | None) -> str | None:
    if bound is None:
        return None
    return str(int(bound)) if float(bound).is_integer() else str(bound)
