"""UTF-16 length, the unit of every limit."""

from __future__ import annotations

from hypothesis import given

from memhtml.domain.text import utf16_len
from tests.strategies import awkward_text


def test_astral_character_counts_two_units() -> None:
    """A character outside the BMP is a surrogate pair, two units."""
    assert utf16_len("a😀") == 3


@given(awkward_text)
def test_utf16_len_matches_the_encoder(text: str) -> None:
    """The helper agrees with Python's own UTF-16 encoder."""
    assert len(text.encode("utf-16-le")) // 2 == utf16_len(text)
