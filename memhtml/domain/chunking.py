"""Splitting a memory's article text into the chunks that carry its vectors
(docs/index-schema.md §3.3).

Almost every memory is one fact and fits one chunk, so its vector describes the whole article.
A longer article packs whole sentences greedily, hard-cuts a sentence that alone exceeds the
ceiling, and drops nothing.
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

import attrs

from memhtml.domain.text import utf16_len, utf16_prefix

CHUNK_MAX_CHARS: Final = 1_800
"""Ceiling for one chunk, in UTF-16 code units.

Below it an article is chunk 0 whole, the overwhelmingly common case for one fact per file; a
local model's 512-token window also takes a full chunk whole (docs/decisions.md §22).
"""

CHUNK_JOINER: Final = " "
"""Packs sentences into one chunk; the whitespace that separated them is not kept."""

# A sentence ends at `.`, `!` or `?` followed by whitespace; the whitespace run is the seam.
_SENTENCE_SEAM = re.compile(r"(?<=[.!?])\s+")


@attrs.frozen(kw_only=True)
class Chunk:
    """One chunk of a memory's article text.

    Attributes:
        chunk_id: :func:`chunk_id_for` of the file's content hash and ``ordinal``.
        ordinal: 0-based position in this file's chunk sequence.
        text: The chunk's text.
        char_count: Length of ``text`` in UTF-16 code units.
    """

    chunk_id: str
    ordinal: int
    text: str
    char_count: int


def chunk_id_for(content_hash: str, ordinal: int) -> str:
    """Lowercase hex sha256 of ``"<content_hash>:<ordinal>"``.

    Keyed on the content rather than the path, so an identical body at another path, or a file
    moved by ``git mv``, finds its vectors already stored.
    """
    return hashlib.sha256(f"{content_hash}:{ordinal}".encode()).hexdigest()


def chunk_text(
    content_hash: str, body_text: str, max_chars: int = CHUNK_MAX_CHARS
) -> tuple[Chunk, ...]:
    """The chunks of ``body_text`` (trimmed), each at most ``max_chars`` UTF-16 units.

    Empty text gives no chunk and text that fits gives one chunk holding it verbatim. Longer
    text is split after ``.``, ``!`` or ``?`` plus whitespace; a sentence longer than the
    ceiling is cut into ceiling-sized pieces (never inside a surrogate pair, whitespace at a
    cut trimmed); pieces are then packed greedily, joined by one space. There is no overlap:
    an overlap would make a phrase near a seam count twice toward the file's nearest-chunk
    distance.

    Args:
        content_hash: The file's ``sha256:…`` content hash, the key of every chunk id.
        body_text: The article text the parser extracted.
        max_chars: The ceiling; a parameter so tests can exercise packing on short text.

    Returns:
        Chunks in text order with ordinals 0, 1, 2…
    """
    if max_chars < 2:
        # A one-unit ceiling cannot hold an astral character, so the cut would never advance.
        raise ValueError("max_chars must be at least 2")
    text = body_text.strip()
    if not text:
        return ()
    fits = utf16_len(text) <= max_chars
    pieces = [text] if fits else _pack(_pieces(text, max_chars), max_chars)
    return tuple(
        Chunk(
            chunk_id=chunk_id_for(content_hash, ordinal),
            ordinal=ordinal,
            text=piece,
            char_count=utf16_len(piece),
        )
        for ordinal, piece in enumerate(pieces)
    )


def _pieces(text: str, max_chars: int) -> list[str]:
    """Sentences, with each over-long sentence hard-cut into pieces that fit."""
    pieces: list[str] = []
    for sentence in _SENTENCE_SEAM.split(text):
        rest = sentence
        while utf16_len(rest) > max_chars:
            head = utf16_prefix(rest, max_chars)
            pieces.append(head)
            rest = rest[len(head) :]
        pieces.append(rest)
    # A hard cut can land beside whitespace; trimming it keeps every chunk free of leading and
    # trailing blanks, and a whitespace-only piece would only spend an embedding on nothing.
    return [stripped for piece in pieces if (stripped := piece.strip())]


def _pack(pieces: list[str], max_chars: int) -> list[str]:
    """Greedy packing: append a piece to the open chunk while the joined text still fits."""
    chunks: list[str] = []
    current = ""
    current_units = 0
    joiner_units = utf16_len(CHUNK_JOINER)
    for piece in pieces:
        units = utf16_len(piece)
        if current and current_units + joiner_units + units <= max_chars:
            current = current + CHUNK_JOINER + piece
            current_units += joiner_units + units
        else:
            if current:
                chunks.append(current)
            current, current_units = piece, units
    if current:
        chunks.append(current)
    return chunks
