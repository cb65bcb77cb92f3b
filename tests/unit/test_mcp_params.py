"""A tool's declared parameters: the JSON Schema a client sees and the check a call gets agree."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.errors import MissingArgument
from memhtml.app.mcp.catalog import TOOLS
from memhtml.app.mcp.params import Param, check_arguments, input_schema
from memhtml.domain.errors import InvalidInput

LIMIT = Param(name="limit", kind="integer", minimum=1, maximum=200, default=10, description="n")
QUERY = Param(name="query", kind="string", required=True, non_blank=True, description="q")
SIGNAL = Param(name="signal", kind="string", choices=("a", "b"), description="s")
TAGS = Param(name="tag", kind="strings", max_items=3, description="t")
OPS = Param(name="ops", kind="objects", max_items=2, description="o")
SHARE = Param(name="share", kind="number", minimum=0, maximum=1, description="c")
FLAG = Param(name="fix", kind="boolean", default=False, description="f")
PARAMS = (QUERY, LIMIT, SIGNAL, TAGS, OPS, SHARE, FLAG)


@given(st.integers(min_value=-1000, max_value=1000))
@example(1)
@example(200)
@example(0)
@example(201)
def test_an_integer_is_accepted_exactly_inside_its_range(value: int) -> None:
    """limit passes unchanged inside [1, 200] and is refused as invalid outside."""
    if 1 <= value <= 200:
        assert value == check_arguments(PARAMS, {"query": "x", "limit": value})["limit"]
    else:
        with pytest.raises(InvalidInput, match="limit must be an integer from 1 to 200"):
            check_arguments(PARAMS, {"query": "x", "limit": value})


@given(st.one_of(st.text(max_size=5), st.booleans(), st.lists(st.integers(), max_size=2)))
def test_a_non_number_is_never_an_integer(value: Any) -> None:
    """Text, booleans (an int subclass in Python) and arrays are refused as a limit."""
    with pytest.raises(InvalidInput):
        check_arguments(PARAMS, {"query": "x", "limit": value})


@given(st.text(alphabet=" \t\n", max_size=4))
def test_blank_text_is_refused_where_text_is_needed(value: str) -> None:
    """A query of nothing but whitespace is bad input, not a priors-only search."""
    with pytest.raises(InvalidInput, match="query must not be blank"):
        check_arguments(PARAMS, {"query": value})


def test_defaults_fill_absent_arguments_and_null_reads_as_absent() -> None:
    """Absent optional arguments take their default (or stay absent); null counts as absent."""
    assert {"query": "x", "limit": 10, "fix": False} == check_arguments(
        PARAMS, {"query": "x", "signal": None}
    )


def test_a_missing_required_argument_is_a_missing_argument() -> None:
    """The CLI's MissingArgument (ERR_MISSING_ARGUMENT), naming the argument."""
    with pytest.raises(MissingArgument, match="'query'"):
        check_arguments(PARAMS, {"limit": 3})


def test_an_unknown_argument_is_refused_by_name() -> None:
    """A typo is refused rather than ignored, and the accepted names are listed."""
    with pytest.raises(InvalidInput, match="unknown argument 'limt'"):
        check_arguments(PARAMS, {"query": "x", "limt": 3})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"signal": "c"}, "signal must be one of a, b"),
        ({"tag": ["a", 1]}, "tag must be an array of strings"),
        ({"tag": ["a", "b", "c", "d"]}, "tag holds 4 items; at most 3"),
        ({"ops": [{}, {}, {}]}, "ops holds 3 items; at most 2"),
        ({"ops": [1]}, "ops must be an array of objects"),
        ({"share": 1.5}, "share must be a number from 0 to 1"),
        ({"fix": "yes"}, "fix must be true or false"),
        ({"limit": 2.5}, "limit must be an integer"),
    ],
)
def test_wrong_values_are_refused_with_the_argument_named(
    arguments: dict[str, object], message: str
) -> None:
    """Each kind refuses its wrong shapes with a message naming the argument, not the value."""
    with pytest.raises(InvalidInput, match=message):
        check_arguments(PARAMS, {"query": "x", **arguments})


def test_a_lone_string_is_read_as_a_one_item_array() -> None:
    """tag: "billing" is taken as ["billing"], as apply's JSONL reads it."""
    assert ("billing",) == check_arguments(PARAMS, {"query": "x", "tag": "billing"})["tag"]


def test_a_whole_float_is_an_integer() -> None:
    """JSON has one number type: 5.0 is the integer 5."""
    assert 5 == check_arguments(PARAMS, {"query": "x", "limit": 5.0})["limit"]


def test_the_schema_states_what_the_check_enforces() -> None:
    """Types, required, range, enum, maxItems, minLength and the closed object."""
    schema = input_schema(PARAMS)
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert (["query"], False) == (schema["required"], schema["additionalProperties"])
    assert {
        "type": "integer",
        "minimum": 1,
        "maximum": 200,
        "default": 10,
        "description": "n",
    } == properties["limit"]
    assert {"type": "string", "minLength": 1, "description": "q"} == properties["query"]
    assert {"type": "string", "enum": ["a", "b"], "description": "s"} == properties["signal"]
    assert {
        "type": "array",
        "items": {"type": "string"},
        "maxItems": 3,
        "description": "t",
    } == properties["tag"]
    assert {"type": "array", "items": {"type": "object"}, "maxItems": 2, "description": "o"} == (
        properties["ops"]
    )


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_every_tool_schema_is_a_closed_object_with_described_properties(tool: Any) -> None:
    """Each shipped tool's schema: an object, required names declared, every property described."""
    schema = tool.input_schema()
    properties = schema["properties"]
    assert "object" == schema["type"]
    assert set(schema["required"]) <= set(properties)
    assert all(prop["description"] for prop in properties.values())
    assert "Example:" in tool.description


@pytest.mark.parametrize("name", ["search", "recall"])
def test_a_query_advertises_the_bound_the_request_enforces(name: str) -> None:
    """The query's maxLength is the domain's bound, so a client can check before it calls."""
    from memhtml.domain.query_bounds import MAX_QUERY_CHARS

    tool = next(tool for tool in TOOLS if tool.name == name)
    properties = tool.input_schema()["properties"]
    assert isinstance(properties, dict)
    query = properties["query"]
    assert (4096, MAX_QUERY_CHARS, 1) == (
        query["maxLength"],
        query["maxLength"],
        query["minLength"],
    )
