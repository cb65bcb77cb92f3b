"""Snippets cut to 700 UTF-16 units, and the coverage wording."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.snippets import (
    ELLIPSIS,
    SNIPPET_MAX_CHARS,
    VECTOR_COVERAGE_FLOOR,
    VECTOR_COVERAGE_HARD_FLOOR,
    VECTOR_COVERAGE_NO_VECTORS_REMEDY,
    VECTOR_COVERAGE_REMEDY,
    coverage_reason,
    coverage_remedy,
    format_coverage,
    truncate_snippet,
    vector_coverage,
)
from memhtml.domain.text import utf16_len
from tests.strategies import awkward_text


def test_seed_constants() -> None:
    """Snippet ceiling and coverage floors are the original tool's values."""
    assert (700, 0.95, 0.5) == (
        SNIPPET_MAX_CHARS,
        VECTOR_COVERAGE_FLOOR,
        VECTOR_COVERAGE_HARD_FLOOR,
    )


def test_text_that_fits_is_unchanged() -> None:
    """Exactly 700 units is returned as it is, with no ellipsis."""
    assert "a" * 700 == truncate_snippet("a" * 700)


def test_a_cut_snippet_ends_in_an_ellipsis_inside_the_ceiling() -> None:
    """701 units become 699 units of text plus `…`: 700 in all."""
    assert "a" * 699 + ELLIPSIS == truncate_snippet("a" * 701)


def test_a_cut_never_splits_a_surrogate_pair() -> None:
    """An emoji straddling the cut is left out whole, so the snippet is one unit short."""
    assert "a" * 698 + ELLIPSIS == truncate_snippet("a" * 698 + "😀" + "b")


def test_whitespace_before_the_ellipsis_is_dropped() -> None:
    """A cut right after a space reads `word…`, not `word …`."""
    assert "word" + ELLIPSIS == truncate_snippet("word  and more", max_chars=7)


@given(awkward_text, st.integers(min_value=2, max_value=60))
@example("a" * 10, 10)
@example("a b😀c", 4)
def test_snippets_fit_and_keep_a_prefix(text: str, max_chars: int) -> None:
    """A snippet fits its ceiling; unchanged when it fits; otherwise a prefix plus `…`."""
    snippet = truncate_snippet(text, max_chars)
    assert utf16_len(snippet) <= max_chars
    if utf16_len(text) <= max_chars:
        assert text == snippet
    else:
        assert snippet.endswith(ELLIPSIS)
        assert text.startswith(snippet[: -len(ELLIPSIS)])


@pytest.mark.parametrize(
    ("coverage", "expected"),
    [
        (0.4, "40%"),
        (0.949, "94.9%"),
        (1.0, "100%"),
        (0.0, "0%"),
        (0.95, "95%"),
        (0.0005, "0.1%"),
        (0.12345, "12.3%"),
        (1 / 3, "33.3%"),
    ],
)
def test_format_coverage(coverage: float, expected: str) -> None:
    """A percentage with at most one decimal, halves rounded up, no trailing `.0`."""
    assert expected == format_coverage(coverage)


@given(st.floats(min_value=0.0, max_value=1.0))
def test_format_coverage_is_within_half_a_tenth(coverage: float) -> None:
    """The printed percentage is within 0.05 points of the ratio and has at most one decimal."""
    text = format_coverage(coverage)
    number = text.removesuffix("%")
    assert text.endswith("%")
    assert abs(float(number) - coverage * 100) <= 0.05 + 1e-9
    assert len(number.partition(".")[2]) <= 1
    assert not number.endswith(".0")


def test_vector_coverage_of_an_empty_index_is_full() -> None:
    """No chunks means nothing is missing: coverage 1, not 0."""
    assert (1.0, 0.95, 0.0) == (
        vector_coverage(0, 0),
        vector_coverage(19, 20),
        vector_coverage(0, 4),
    )


def test_the_remedy_names_the_opt_out_only_when_no_vector_exists() -> None:
    """A plane with some vectors gets the backfill remedy; an empty one also hears of EMBED=off."""
    assert VECTOR_COVERAGE_REMEDY == coverage_remedy(3)
    assert f"{VECTOR_COVERAGE_REMEDY}, {VECTOR_COVERAGE_NO_VECTORS_REMEDY}" == coverage_remedy(0)


def test_coverage_reason_names_counts_ratio_and_remedy() -> None:
    """The reason line carries both counts, the formatted ratio and the remedy."""
    expected = f"949 of 1000 chunks carry a vector (94.9%); {VECTOR_COVERAGE_REMEDY}"
    assert expected == coverage_reason(949, 1000)
