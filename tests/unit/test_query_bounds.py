"""The bounds on one query: its length limit, and text every arm can encode (issue 14)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.query_bounds import (
    MAX_QUERY_CHARS,
    REPLACEMENT_CHARACTER,
    checked_query,
    encodable,
)
from memhtml.ports.retrieval import RecallRequest, SearchRequest

# Every code point, lone surrogates included (hypothesis leaves category Cs out by default).
any_code_point = st.characters(codec=None, categories=None, exclude_categories=())


@given(st.text(any_code_point))
@example("\ud800")
@example("a\udfffb\ud83d")
def test_encodable_text_always_encodes_and_keeps_its_length(text: str) -> None:
    """After the replacement UTF-8 encodes every result, one code point per code point."""
    cleaned = encodable(text)
    cleaned.encode("utf-8")
    assert len(text) == len(cleaned)


@given(st.text())
def test_text_without_surrogates_is_left_alone(text: str) -> None:
    """Only surrogates are replaced: ordinary text, astral characters included, is unchanged."""
    assert text == encodable(text)


def test_each_lone_surrogate_becomes_one_replacement_character() -> None:
    """A lone high and a lone low surrogate each turn into U+FFFD, in place."""
    assert f"a{REPLACEMENT_CHARACTER}b{REPLACEMENT_CHARACTER}" == encodable("a\ud800b\udc80")


def test_a_query_at_the_limit_passes_and_one_past_it_is_refused() -> None:
    """The limit is inclusive; past it the message names both numbers and never the text."""
    at_limit = "q" * MAX_QUERY_CHARS
    assert at_limit == checked_query(at_limit)
    with pytest.raises(InvalidInput) as refused:
        checked_query("secret " + "q" * MAX_QUERY_CHARS)
    message = str(refused.value)
    assert ("4,103", "4,096", False) == (
        message.split(" characters")[0].split()[-1],
        message.split("limit is ")[1][:5],
        "secret" in message,
    )


@pytest.mark.parametrize("request_type", [SearchRequest, RecallRequest])
def test_every_request_is_bounded_as_it_is_built(request_type: type) -> None:
    """Search and recall requests refuse an over-long query and replace lone surrogates, so
    the CLI, the MCP server and library callers all get the same bounds."""
    with pytest.raises(InvalidInput):
        request_type(query="x" * (MAX_QUERY_CHARS + 1))
    assert f"invoice {REPLACEMENT_CHARACTER}" == request_type(query="invoice \udc9f").query
