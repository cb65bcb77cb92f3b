"""A caller's query text as the two FTS5 MATCH strings the lexical arm binds (docs/ranking.md §5).

Prose, not a query language: an apostrophe, a ``type:name`` reference, a leading hyphen or a bare
``AND`` each makes an FTS5 statement fail outright, so every character that is not part of a
word is dropped rather than escaped. What survives is a sequence of terms, each either

* a bare token: a letter or digit followed by letters, digits and combining marks, lowercased; or
* a phrase: ``"tok tok …"``, the sanitized words of one balanced pair of double quotes.

FTS5's operators (``AND``, ``OR``, ``NOT``, ``NEAR``) are case-sensitive uppercase keywords, so a
lowercased ``and`` in the output is an ordinary term, and the only uppercase text the output ever
holds is the ``AND``/``OR`` this module puts between terms.
"""

from __future__ import annotations

import unicodedata
from typing import Final

import attrs

MAX_FTS_TERMS: Final = 32
"""The most terms one query hands the full-text arm (docs/ranking.md §11): the first this many
distinct ones. Each term costs the arm about 2.5 ms over 10,000 memories, so a pasted page of
distinct words (500 terms) took seconds; 32 is a long paragraph's worth (BENCHMARKS.md)."""

ALL_JOINER: Final = " AND "
"""Joins the terms of the every-term form."""

ANY_JOINER: Final = " OR "
"""Joins the terms of the any-term form."""

QUOTE: Final = '"'
"""The one quote character that opens and closes a phrase (typographic quotes are not)."""

ENGLISH_STOPWORDS: Final[frozenset[str]] = frozenset(
    """
    a an and are as at be been but by can did do does for from had has have how i if in into is
    it its me my of on or our so that the their then there these they this those to was we were
    what when where which who why will with would you your
    """.split()  # noqa: SIM905 - the word list reads as prose; 58 quoted literals would not
)
"""Function words dropped from bare terms when stopword removal is on (docs/decisions.md §12).

Deliberately small and free of negations (``not``, ``no``, ``never``, ``without``): those words
carry the polarity a query asks about, and dropping them would make "why does X not merge" and
"why does X merge" the same lexical query.
"""


@attrs.frozen(kw_only=True)
class FtsQueryForms:
    """The two MATCH strings one query sanitizes to.

    Both are ``""`` when no term survives, and equal when exactly one does.

    Attributes:
        all: Every term required, ``oscar AND wants AND talk``. The lexical arm binds this form
            when some in-scope file holds every term, because under the any-term form the arm
            hands fusion 40 near-equal candidates and its lexical lead is outvoted.
        any: Any term suffices, ``oscar OR wants OR talk``; the fallback that lets one proper
            noun in a sentence find its file.
    """

    all: str
    any: str


def fts_terms(
    query: str, *, drop_stopwords: bool = False, max_terms: int = MAX_FTS_TERMS
) -> tuple[str, ...]:
    """The MATCH-safe terms of ``query``, in the order they first appear, each once.

    Each word is NFC-normalised after lowercasing, so a decomposed ``de\\u0301ploye\\u0301`` and
    a precomposed ``déployé`` give the same single term. A combining mark continues the token
    it follows (it never starts one): FTS5's own tokenizer decides what a mark does to a word,
    so splitting at marks here would turn one indexed word into two required terms.

    Double quotes pair up left to right when their count is even; each pair's words become one
    phrase term and an empty pair is dropped. With an odd count no quote means anything and every
    quote is a separator, because guessing which one is the stray would invent a phrase the
    caller did not write.

    Args:
        query: The caller's text, verbatim.
        drop_stopwords: Drop bare terms found in :data:`ENGLISH_STOPWORDS`. Words inside a
            phrase are kept (the caller quoted them on purpose), and when every bare term is a
            stopword and no phrase exists, none is dropped: a query of only "how it is" must
            still reach the index.
        max_terms: Keep the first this many distinct terms (after stopwords are dropped), so
            a pasted page costs what a paragraph does. A repeated term is kept once: FTS5
            would weigh it twice under ``OR`` and it changes nothing under ``AND``.

    Returns:
        Bare tokens and ``"…"`` phrases, ready to be joined with ``AND`` or ``OR``.
    """
    segments = query.split(QUOTE)
    # An even number of quotes leaves an odd number of segments: odd positions are inside quotes.
    balanced = len(segments) % 2 == 1
    terms: list[tuple[str, bool]] = []
    for index, segment in enumerate(segments if balanced else [query.replace(QUOTE, " ")]):
        words = _words(segment)
        if balanced and index % 2 == 1:
            if words:
                terms.append((QUOTE + " ".join(words) + QUOTE, True))
        else:
            terms.extend((word, False) for word in words)
    if drop_stopwords:
        kept = [t for t in terms if t[1] or t[0] not in ENGLISH_STOPWORDS]
        terms = kept or terms
    return tuple(dict.fromkeys(term for term, _ in terms))[:max_terms]


@attrs.frozen(kw_only=True)
class LexicalQuery:
    """The terms a full-text arm looks for, and whether it needs every one of them.

    Attributes:
        terms: Bare tokens and ``"…"`` phrases from :func:`fts_terms`, never empty.
        every: Every term required (the all-terms form) rather than any one.
    """

    terms: tuple[str, ...]
    every: bool = False

    @property
    def match_text(self) -> str:
        """The FTS5 ``MATCH`` string: the terms joined by ``AND`` or ``OR``."""
        return (ALL_JOINER if self.every else ANY_JOINER).join(self.terms)

    def phrases(self) -> tuple[tuple[str, ...], ...]:
        """Each term as the words it holds (a bare token is a one-word phrase)."""
        return tuple(tuple(term.strip(QUOTE).split()) for term in self.terms)


def fts_query_forms(query: str, *, drop_stopwords: bool = False) -> FtsQueryForms:
    """Both MATCH forms of ``query``; see :func:`fts_terms` for what a term is."""
    terms = fts_terms(query, drop_stopwords=drop_stopwords)
    return FtsQueryForms(all=ALL_JOINER.join(terms), any=ANY_JOINER.join(terms))


def sanitize_fts_query(query: str, *, drop_stopwords: bool = False) -> str:
    """The any-term MATCH form of ``query``, or ``""`` when it holds no indexable term.

    ``""`` is a value, not a failure: the caller must drop the lexical arm rather than bind it,
    because an empty MATCH is itself an FTS5 syntax error.
    """
    return fts_query_forms(query, drop_stopwords=drop_stopwords).any


def has_fts_terms(query: str) -> bool:
    """True when ``query`` holds at least one term the full-text index could match."""
    return bool(fts_terms(query))


def _words(text: str) -> list[str]:
    """Runs of letters and digits (plus the marks that follow them), lowercased."""
    words: list[str] = []
    current: list[str] = []
    for ch in text:
        major = unicodedata.category(ch)[0]
        if major in "LN" or (major == "M" and current):
            current.append(ch)
        elif current:
            words.append(_lower("".join(current)))
            current = []
    if current:
        words.append(_lower("".join(current)))
    return words


def _lower(word: str) -> str:
    # NFC after the fold: lowercasing can itself decompose (``İ`` becomes ``i`` plus a combining
    # dot), and composing last is what makes both spellings of one word byte-identical terms.
    return unicodedata.normalize("NFC", word.lower())
