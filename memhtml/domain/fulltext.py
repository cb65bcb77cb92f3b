"""The full-text arm's pure twin: FTS5's ``unicode61`` (and ``porter``) tokens and its bm25.

The SQLite backend ranks in FTS5; a backend without it ranks here, and the contract suite holds
the two to the same order and the same scores. The tokenizer follows ``unicode61``'s rules —
a token is a run of letters, digits and private-use characters (combining marks continue one),
folded to lower case with diacritics removed — exactly on ASCII text and closely beyond it
(FTS5's fold tables and Python's Unicode data can differ on rare characters).

bm25 is FTS5's: per phrase ``idf = ln((N − n + 0.5) / (n + 0.5))`` (1e-6 when not positive),
``k1 = 1.2``, ``b = 0.75``, document length in tokens, the average over every row of the table
(not only the rows in scope), phrases summed in query order and the sum negated, so lower is
better. Every operation is spelled in FTS5's order, so the doubles come out bit for bit.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Final

import attrs

from memhtml.domain.porter import porter_stem

BM25_K1: Final = 1.2
BM25_B: Final = 0.75
IDF_FLOOR: Final = 1e-6
TOKENIZERS: Final = frozenset({"unicode61", "porter"})


def _starts_token(ch: str) -> bool:
    if ch.isascii():
        return ch.isalnum()
    category = unicodedata.category(ch)
    return category[0] in "LN" or category == "Co"


def _continues_token(ch: str) -> bool:
    return _starts_token(ch) or (not ch.isascii() and unicodedata.category(ch) == "Mn")


def _fold(ch: str) -> str:
    if ch.isascii():
        return ch.lower()
    stripped = "".join(
        c for c in unicodedata.normalize("NFD", ch) if unicodedata.category(c) != "Mn"
    )
    return stripped.lower()


def fts_tokens(text: str, tokenizer: str = "unicode61") -> list[str]:
    """The tokens FTS5 indexes for ``text`` with ``tokenizer`` (``unicode61`` or ``porter``).

    Raises:
        ValueError: An unknown tokenizer name.
    """
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenizer!r}")
    tokens: list[str] = []
    current: list[str] = []
    for ch in text:
        if (current and _continues_token(ch)) or (not current and _starts_token(ch)):
            current.append(_fold(ch))
        elif current:
            tokens.append("".join(current))
            current = []
    if current:
        tokens.append("".join(current))
    if tokenizer == "porter":
        return [porter_stem(token) for token in tokens]
    return tokens


@attrs.frozen(kw_only=True)
class FullTextRow:
    """One indexed row: its key and its tokens in order."""

    key: str
    tokens: tuple[str, ...]


def phrase_count(tokens: Sequence[str], phrase: Sequence[str]) -> int:
    """How many positions of ``tokens`` start ``phrase`` (overlapping matches count)."""
    n = len(phrase)
    if n == 0:
        return 0
    first = phrase[0]
    return sum(
        1
        for i, token in enumerate(tokens)
        if token == first and tuple(tokens[i : i + n]) == tuple(phrase)
    )


class FullTextIndex:
    """A whole table's rows, for matching and bm25 the way FTS5 computes them."""

    def __init__(self, rows: Iterable[FullTextRow]) -> None:
        """Index ``rows`` (every row of the table, whatever a query's scope)."""
        self._rows = {row.key: row.tokens for row in rows}
        self._total_tokens = sum(len(tokens) for tokens in self._rows.values())

    def matches(self, phrases: Sequence[Sequence[str]], *, every: bool) -> dict[str, list[int]]:
        """Rows matching the phrases (all of them with ``every``, else any), with the count of
        each phrase's instances in the row."""
        found: dict[str, list[int]] = {}
        for key, tokens in self._rows.items():
            counts = [phrase_count(tokens, phrase) for phrase in phrases]
            hit = all(counts) if every else any(counts)
            if hit and phrases:
                found[key] = counts
        return found

    def bm25(self, phrases: Sequence[Sequence[str]], *, every: bool) -> Mapping[str, float]:
        """The bm25 score of every matching row (lower is better)."""
        hits = self.matches(phrases, every=every)
        if not hits:
            return {}
        n_row = max(len(self._rows), 1)
        avgdl = float(self._total_tokens) / float(n_row)
        idfs = []
        for phrase in phrases:
            n_hit = sum(1 for tokens in self._rows.values() if phrase_count(tokens, phrase))
            idf = math.log((n_row - n_hit + 0.5) / (n_hit + 0.5))
            idfs.append(idf if idf > 0.0 else IDF_FLOOR)
        scores: dict[str, float] = {}
        for key, counts in hits.items():
            length = float(len(self._rows[key]))
            score = 0.0
            for idf, count in zip(idfs, counts, strict=True):
                freq = float(count)
                score += idf * (
                    (freq * (BM25_K1 + 1.0))
                    / (freq + BM25_K1 * (1 - BM25_B + BM25_B * length / avgdl))
                )
            scores[key] = -1.0 * score
        return scores


def query_phrases(
    terms: Iterable[str], tokenizer: str = "unicode61"
) -> tuple[tuple[str, ...], ...]:
    """Each query term (a bare word or a ``"…"`` phrase) as the tokens FTS5 matches it by."""
    return tuple(tuple(fts_tokens(term.strip('"'), tokenizer)) for term in terms)
