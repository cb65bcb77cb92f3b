"""The envelope: contract key order, UTF-8 text, --dense minifying and dropping null keys."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.envelope import (
    API_VERSION,
    Failure,
    JsonValue,
    drop_nulls,
    encode,
    failure_envelope,
    success_envelope,
    to_json_value,
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
json_values: st.SearchStrategy[JsonValue] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


def _paths(value: JsonValue, prefix: tuple[object, ...] = ()) -> Iterator[tuple[object, ...]]:
    """Every path to a leaf or container, with nulls that sit under object keys left out."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            if item is not None:
                yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _at(value: JsonValue, path: tuple[object, ...]) -> Any:
    current: Any = value
    for step in path:
        current = current[step]
    return current


def _null_keys(value: JsonValue) -> int:
    if isinstance(value, dict):
        return sum(item is None for item in value.values()) + sum(
            _null_keys(item) for item in value.values()
        )
    if isinstance(value, list):
        return sum(_null_keys(item) for item in value)
    return 0


@given(json_values)
@example({"a": None, "b": {"c": None, "d": 0}})
@example([None, {"x": None}])
def test_drop_nulls_removes_exactly_the_null_valued_keys(value: JsonValue) -> None:
    """No null stays under an object key; every other value (false, 0, [], {}) stays put."""
    dropped = drop_nulls(value)
    assert 0 == _null_keys(dropped)
    for path in _paths(value):
        original = _at(value, path)
        if not isinstance(original, dict | list):
            assert original == _at(dropped, path)


@given(json_values)
def test_drop_nulls_is_idempotent(value: JsonValue) -> None:
    """Dropping twice changes nothing more."""
    assert drop_nulls(value) == drop_nulls(drop_nulls(value))


def test_dense_keeps_false_zero_and_empty_containers() -> None:
    """Only nulls go: false, 0, [] and {} are answers, not absences."""
    envelope = success_envelope("t", {"a": False, "b": 0, "c": [], "d": {}, "e": None})
    expected = '{"apiVersion":"1","type":"t","data":{"a":false,"b":0,"c":[],"d":{}}}\n'
    assert expected == encode(envelope, dense=True)


@given(st.text(), json_objects)
def test_encoded_envelope_reads_back_with_its_key_order(kind: str, data: JsonValue) -> None:
    """The text parses back to the same document, keys in the order the command listed them,
    newline-terminated."""
    assert isinstance(data, dict)
    envelope = success_envelope(kind, data)
    text = encode(envelope, dense=False)
    assert text.endswith("\n")
    assert envelope == json.loads(text)
    assert ["apiVersion", "type", "data"] == list(json.loads(text))
    assert list(data) == list(json.loads(text)["data"])


@given(st.text(), json_objects)
def test_dense_envelope_is_one_line_without_nulls(kind: str, data: JsonValue) -> None:
    """--dense: one line (plus its newline) that reads back as the null-dropped document."""
    assert isinstance(data, dict)
    envelope = success_envelope(kind, data)
    text = encode(envelope, dense=True)
    assert 1 == text.count("\n")
    assert text.endswith("\n")
    assert drop_nulls(to_json_value(envelope)) == json.loads(text)


def test_text_is_utf8_not_escaped() -> None:
    """Non-ASCII text is written as itself, never as \\u escapes."""
    text = encode(success_envelope("t", {"title": "Café 😀"}), dense=True)
    assert '{"apiVersion":"1","type":"t","data":{"title":"Café 😀"}}\n' == text


def test_failure_envelope_has_the_contract_keys_in_order() -> None:
    """apiVersion, error, code, suggestions (always an array)."""
    failure = Failure(message="boom", code="ERR_GIT", exit_status=1)
    expected = {"apiVersion": API_VERSION, "error": "boom", "code": "ERR_GIT", "suggestions": []}
    assert expected == failure_envelope(failure)
    assert list(expected) == list(failure_envelope(failure))


def test_tuples_and_read_only_mappings_become_plain_json() -> None:
    """Frozen values the commands hold (tuples, mapping proxies) encode like lists and dicts."""
    assert {"a": [1, [2]]} == to_json_value(MappingProxyType({"a": (1, (2,))}))


@pytest.mark.parametrize(
    "value", [{"a": {1, 2}}, {1: "x"}, {"a": object()}], ids=["set", "int-key", "object"]
)
def test_values_json_cannot_carry_stably_are_refused(value: object) -> None:
    """A set has no stable order and an object no JSON form: refuse rather than guess."""
    with pytest.raises(TypeError):
        to_json_value(value)


def test_nan_is_refused() -> None:
    """NaN is not JSON; printing it would break every strict parser downstream."""
    with pytest.raises(ValueError, match="JSON"):
        encode(success_envelope("t", {"x": math.nan}), dense=False)
