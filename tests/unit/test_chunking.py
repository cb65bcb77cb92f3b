"""Chunking article text: ceiling in UTF-16 units, sentence packing, hard cuts, stable ids."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.chunking import CHUNK_MAX_CHARS, Chunk, chunk_id_for, chunk_text
from memhtml.domain.text import utf16_len
from tests.strategies import chunk_prose

HASH = "sha256:ab"
_WHITESPACE = re.compile(r"\s+")


def _texts(chunks: tuple[Chunk, ...]) -> list[str]:
    return [c.text for c in chunks]


def test_chunk_id_is_sha256_of_hash_colon_ordinal() -> None:
    """The id is the lowercase hex sha256 of "<content_hash>:<ordinal>"
    (docs/index-schema.md §3.3)."""
    assert "064da900e4e14e173b3915078e3ef4b62bfdf62d18261ec9be7aa77c37a09b33" == chunk_id_for(
        HASH, 0
    )
    assert "407c8e064da592bff0223995a52a85b73b7a3a77e67584d89a9825ab3d231410" == chunk_id_for(
        HASH, 1
    )


def test_ceiling_is_1800_units() -> None:
    """The original tool's ceiling, in UTF-16 code units."""
    assert 1800 == CHUNK_MAX_CHARS


@pytest.mark.parametrize("body", ["", "   ", "\n\t \u00a0"])
def test_blank_text_has_no_chunks(body: str) -> None:
    """Empty or whitespace-only article text yields no chunk at all."""
    assert () == chunk_text(HASH, body)


def test_text_that_fits_is_one_trimmed_chunk() -> None:
    """Text within the ceiling is chunk 0, trimmed, inner whitespace untouched."""
    expected = (
        Chunk(chunk_id=chunk_id_for(HASH, 0), ordinal=0, text="One.\n\nTwo  three.", char_count=17),
    )
    assert expected == chunk_text(HASH, "  One.\n\nTwo  three.\n")


def test_exactly_the_ceiling_is_one_chunk() -> None:
    """1,800 units is still one chunk; 1,801 is not."""
    assert 1 == len(chunk_text(HASH, "a" * 1800))
    assert ["a" * 1800, "a"] == _texts(chunk_text(HASH, "a" * 1801))


def test_astral_characters_count_two_units_against_the_ceiling() -> None:
    """900 emoji fill 1,800 units exactly; one more forces a second chunk."""
    assert 1 == len(chunk_text(HASH, "😀" * 900))
    assert ["😀" * 900, "😀"] == _texts(chunk_text(HASH, "😀" * 901))


def test_sentences_pack_greedily_space_joined() -> None:
    """Whole sentences fill a chunk while they fit; the seam whitespace becomes one space."""
    body = "One. Two.\n\nThree! Four? Five."
    assert ["One. Two.", "Three!", "Four? Five."] == _texts(chunk_text(HASH, body, max_chars=11))
    assert ["Why?", "Yes"] == _texts(chunk_text(HASH, "Why?\tYes", max_chars=6))


def test_a_long_sentence_is_hard_cut() -> None:
    """A sentence over the ceiling is cut into ceiling-sized pieces; nothing is dropped."""
    assert ["abcdef", "ghij.", "k."] == _texts(chunk_text(HASH, "abcdefghij. k.", max_chars=6))


def test_a_hard_cut_never_splits_a_surrogate_pair() -> None:
    """When an astral character would straddle the ceiling, it moves whole to the next piece."""
    assert ["ab", "😀c"] == _texts(chunk_text(HASH, "ab😀c", max_chars=3))


def test_whitespace_at_a_hard_cut_is_trimmed() -> None:
    """A cut landing beside a space leaves no chunk starting or ending in whitespace."""
    assert ["abc", "def"] == _texts(chunk_text(HASH, "abc def", max_chars=4))


def test_tiny_ceiling_is_refused() -> None:
    """A ceiling under 2 units could never hold an astral character, so it is an error."""
    with pytest.raises(ValueError, match="at least 2"):
        chunk_text(HASH, "abc", max_chars=1)


@given(chunk_prose, st.integers(min_value=2, max_value=40))
@example("ab😀c", 3)
@example("x. \u00a0y", 2)
def test_every_chunk_fits_and_counts_its_units(body: str, max_chars: int) -> None:
    """No chunk exceeds the ceiling, char_count is its UTF-16 length, and none is blank."""
    chunks = chunk_text(HASH, body, max_chars=max_chars)
    assert [] == [c for c in chunks if c.char_count > max_chars]
    assert [utf16_len(c.text) for c in chunks] == [c.char_count for c in chunks]
    assert [] == [c for c in chunks if not c.text or c.text != c.text.strip()]


@given(chunk_prose, st.integers(min_value=2, max_value=40))
def test_chunks_recover_the_text_modulo_whitespace(body: str, max_chars: int) -> None:
    """Concatenated chunks hold every non-whitespace character of the body, in order."""
    chunks = chunk_text(HASH, body, max_chars=max_chars)
    assert _WHITESPACE.sub("", body) == _WHITESPACE.sub("", "".join(_texts(chunks)))


@given(chunk_prose, st.integers(min_value=2, max_value=40))
def test_packing_is_greedy(body: str, max_chars: int) -> None:
    """Two neighbouring chunks could not have been one: joined, they exceed the ceiling."""
    chunks = chunk_text(HASH, body, max_chars=max_chars)
    pairs = itertools.pairwise(chunks)
    assert [] == [(a, b) for a, b in pairs if a.char_count + 1 + b.char_count <= max_chars]


@given(chunk_prose, st.integers(min_value=2, max_value=40))
def test_ids_and_ordinals_are_positional_and_deterministic(body: str, max_chars: int) -> None:
    """Ordinals run 0, 1, 2…; ids derive from hash and ordinal; equal bodies chunk equally."""
    chunks = chunk_text(HASH, body, max_chars=max_chars)
    assert list(range(len(chunks))) == [c.ordinal for c in chunks]
    assert [chunk_id_for(HASH, c.ordinal) for c in chunks] == [c.chunk_id for c in chunks]
    assert chunks == chunk_text(HASH, body, max_chars=max_chars)


@given(chunk_prose)
def test_text_within_the_ceiling_is_one_verbatim_chunk(body: str) -> None:
    """At the default ceiling, prose this short is always exactly its trimmed self."""
    expected = [body.strip()] if body.strip() else []
    assert expected == _texts(chunk_text(HASH, body))


def test_a_long_article_splits_at_the_default_ceiling() -> None:
    """75 sentences of 38 units: 46 fit the first chunk (1,793 units), 29 the second."""
    body = " ".join(["This sentence is 38 units long, right."] * 75)
    chunks = chunk_text(HASH, body)
    assert [1793, 1130] == [c.char_count for c in chunks]
    assert body == " ".join(_texts(chunks))
