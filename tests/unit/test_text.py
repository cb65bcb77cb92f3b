"""UTF-16 length, the unit of every limit, and the prefix cut in that unit."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.text import utf16_len, utf16_prefix
from tests.strategies import awkward_text


def test_astral_character_counts_two_units() -> None:
    """A character outside the BMP is a surrogate pair, two units."""
    assert utf16_len("a😀") == 3


@given(awkward_text)
def test_utf16_len_matches_the_encoder(text: str) -> None:
    """The helper agrees with Python's own UTF-16 encoder."""
    assert len(text.encode("utf-16-le")) // 2 == utf16_len(text)


@given(awkward_text, st.integers(min_value=1, max_value=60))
@example("ab😀", 3)
@example("😀", 1)
def test_utf16_prefix_is_the_longest_fitting_prefix(text: str, units: int) -> None:
    """The prefix fits, and one more character would not."""
    prefix = utf16_prefix(text, units)
    assert text.startswith(prefix)
    assert utf16_len(prefix) <= units
    if prefix != text:
        assert utf16_len(text[: len(prefix) + 1]) > units


def test_utf16_prefix_of_nothing_is_empty() -> None:
    """A ceiling of zero or less keeps nothing."""
    assert ("", "") == (utf16_prefix("abc", 0), utf16_prefix("abc", -3))
