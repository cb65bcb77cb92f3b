"""How deeply a JSON text nests, read before the decoder recurses (issue 14)."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.json_depth import nesting_depth, nests_deeper_than

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab\u00e9'),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet='[]{}"\\ab', max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


def depth_of(value: object) -> int:
    """The nesting of a decoded value: each list or dict is one level."""
    if isinstance(value, list):
        return 1 + max(map(depth_of, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth_of, value.values()), default=0)
    return 0


@given(json_values, st.booleans())
@example(["]]]", {"[": "{{"}], False)
@example('"\\"[', True)
def test_the_depth_of_encoded_json_is_the_depth_of_its_value(value: object, indent: bool) -> None:
    """Brackets inside strings (escaped quotes included) never count; layout does not matter."""
    text = json.dumps(value, indent=1 if indent else None, ensure_ascii=False)
    assert depth_of(value) == nesting_depth(text)


@given(json_values, st.integers(min_value=0, max_value=6))
def test_the_quick_answer_agrees_with_the_scan(value: object, limit: int) -> None:
    """Counting brackets first never changes the answer, only skips the scan."""
    text = json.dumps(value)
    assert (nesting_depth(text) > limit) == nests_deeper_than(text, limit)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("[" * 100_000, 100_000),
        ("]]]][", 1),
        ('["unterminated [[[', 1),
        ("", 0),
        ('{"a": [1, {"b": []}]}', 4),
    ],
)
def test_malformed_text_still_gets_a_bounded_answer(text: str, depth: int) -> None:
    """Unclosed openers count, stray closers never go below zero, an unterminated string
    swallows the rest of the line: the decoder judges the text after this bound."""
    assert depth == nesting_depth(text)
