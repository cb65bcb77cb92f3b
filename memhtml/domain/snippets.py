"""Hit snippets cut to a UTF-16 ceiling, and the vector-coverage wording.

Every ceiling counts UTF-16 code units (docs/decisions.md §1), so a cut is made in those units and
never between the two halves of a surrogate pair: a lone surrogate is not valid text in JSON, SQLite
or the other implementation, and a snippet ending in one would break the consumer that reads it.
"""

from __future__ import annotations

import math
from typing import Final

from memhtml.domain.text import utf16_len, utf16_prefix

SNIPPET_MAX_CHARS: Final = 700
"""Ceiling for a hit's ``snippet``, ellipsis included: roughly three gists wide.

Enough to show why the chunk matched without turning a ten-hit result into a recall pack.
"""

ELLIPSIS: Final = "…"
"""Ends a snippet that was cut, so a reader can tell a short chunk from a shortened one."""

VECTOR_COVERAGE_FLOOR: Final = 0.95
"""Below this share of chunks with vectors, search and recall drop the vector arm (degraded).

Not 1.0: a write's chunks land a moment before its vectors, so a healthy live store is briefly
a little short, and a floor of 1.0 would report it degraded after every write.
"""

VECTOR_COVERAGE_HARD_FLOOR: Final = 0.5
"""Below this a curation pass over vectors would describe a sample, not the corpus.

Not configurable: past it, dedup and mining compare half the corpus against itself.
"""

VECTOR_COVERAGE_REMEDY: Final = (
    "run `memhtml index embed` to backfill the missing vectors, or `memhtml index rebuild --embed`"
)
"""What an operator does about low coverage; every surface that reports it says this."""

VECTOR_COVERAGE_NO_VECTORS_REMEDY: Final = (
    "or set `MEMHTML_EMBED=off` for a store that is not meant to embed"
)
"""The clause a plane with no vector at all adds: the embedder has never once succeeded."""


def truncate_snippet(text: str, max_chars: int = SNIPPET_MAX_CHARS) -> str:
    """``text`` cut to at most ``max_chars`` UTF-16 units, ending in ``…`` when it was cut.

    The ellipsis fits inside the ceiling, so a consumer budgeting ``max_chars`` per hit is never
    off by one. Whitespace left dangling before the ellipsis is dropped (``word…``, not
    ``word …``). Text that fits is returned unchanged.
    """
    if utf16_len(text) <= max_chars:
        return text
    return utf16_prefix(text, max_chars - utf16_len(ELLIPSIS)).rstrip() + ELLIPSIS


def vector_coverage(embedded_chunks: int, total_chunks: int) -> float:
    """Share of chunks carrying a vector in the configured space; 1.0 for an index with none.

    An empty index is fully covered rather than 0 % covered: calling it 0 would mark every new
    store degraded before its first write.
    """
    if total_chunks <= 0:
        return 1.0
    return embedded_chunks / total_chunks


def format_coverage(coverage: float) -> str:
    """A ratio as a percentage with at most one decimal: ``0.4`` → ``40%``, ``0.949`` → ``94.9%``.

    One decimal rather than a whole percent, so a ratio just under the floor never prints as the
    floor in the sentence that says it is below it. Halves round up (toward +∞), as the original
    tool's arithmetic did, so both print the same text for the same ratio.
    """
    tenths = math.floor(coverage * 1000 + 0.5)
    if tenths % 10 == 0:
        return f"{tenths // 10}%"
    return f"{tenths / 10!r}%"


def coverage_remedy(embedded_chunks: int) -> str:
    """The remedy sentence for low coverage, naming the opt-out when no vector exists at all."""
    if embedded_chunks == 0:
        return f"{VECTOR_COVERAGE_REMEDY}, {VECTOR_COVERAGE_NO_VECTORS_REMEDY}"
    return VECTOR_COVERAGE_REMEDY


def coverage_reason(embedded_chunks: int, total_chunks: int) -> str:
    """The reason a low-coverage report gives: the ratio, the counts, and the remedy."""
    ratio = format_coverage(vector_coverage(embedded_chunks, total_chunks))
    return (
        f"{embedded_chunks} of {total_chunks} chunks carry a vector ({ratio}); "
        f"{coverage_remedy(embedded_chunks)}"
    )
