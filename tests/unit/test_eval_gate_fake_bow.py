"""``fake-bow@1024``: the exact recipe docs/evaluation.md §A.2 fixes for the gate's fake mode."""

from __future__ import annotations

import hashlib
import math

from hypothesis import given
from hypothesis import strategies as st

from memhtml.adapters.hashing import FakeBowEmbedder

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé0123456789", min_size=1, max_size=12)


def _slots(token: str) -> tuple[int, int]:
    digest = hashlib.sha256(token.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % 1024, int.from_bytes(digest[4:8], "big") % 1024


def test_watermark_and_dimension() -> None:
    """The space is named fake-bow@1024."""
    embedder = FakeBowEmbedder()
    assert ("fake-bow@1024", 1024) == (embedder.watermark, embedder.dim)


@given(word=words)
def test_one_token_weighs_one_and_a_half_in_its_sha256_slots(word: str) -> None:
    """A single token puts 1.0 and 0.5 (before normalising) in its two sha256-chosen slots."""
    first, second = _slots(word)
    raw = [0.0] * 1024
    raw[first] += 1.0
    raw[second] += 0.5
    norm = math.sqrt(sum(x * x for x in raw))
    expected = tuple(x / norm for x in raw)
    assert expected == FakeBowEmbedder().embed_query(word.upper())


@given(text=st.lists(words, max_size=8).map(" ".join))
def test_order_and_case_do_not_matter(text: str) -> None:
    """A bag of words: reversing the words or changing case leaves the vector unchanged."""
    embedder = FakeBowEmbedder()
    reversed_text = " ".join(reversed(text.split()))
    assert embedder.embed_query(text) == embedder.embed_query(reversed_text.upper())


def test_an_extra_word_moves_the_vector_a_little() -> None:
    """A control with one inserted word stays close to its target, but not identical."""
    embedder = FakeBowEmbedder()
    a, b = embedder.embed(
        ["the ledger is allowed twelve vouchers", "the ledger is not allowed twelve vouchers"]
    )
    cosine = sum(x * y for x, y in zip(a, b, strict=True))
    assert 0.8 < cosine < 1.0
