"""Query text → FTS5 MATCH forms: what survives, how phrases form, and the output grammar."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.fts_query import (
    ALL_JOINER,
    ANY_JOINER,
    ENGLISH_STOPWORDS,
    MAX_FTS_TERMS,
    FtsQueryForms,
    fts_query_forms,
    fts_terms,
    has_fts_terms,
    sanitize_fts_query,
)
from tests.strategies import fts_query_text

FTS5_KEYWORDS = {"AND", "OR", "NOT", "NEAR"}


def _is_token(token: str) -> bool:
    """A bare FTS5 token as this module promises one: a letter/digit, then letters/digits/marks."""
    categories = [unicodedata.category(ch)[0] for ch in token]
    return (
        bool(token)
        and categories[0] in "LN"
        and all(c in "LNM" for c in categories)
        and not any("A" <= ch <= "Z" for ch in token)
    )


def _is_term(term: str) -> bool:
    if term.startswith('"'):
        inner = term[1:-1]
        return (
            len(term) >= 3
            and term.endswith('"')
            and all(_is_token(word) for word in inner.split(" "))
        )
    return _is_token(term)


def test_words_join_with_or_and_and() -> None:
    """The original tool's own example: three words give an AND form and an OR form."""
    expected = FtsQueryForms(all="oscar AND wants AND talk", any="oscar OR wants OR talk")
    assert expected == fts_query_forms("Oscar wants... talk?")


def test_balanced_quotes_make_one_phrase() -> None:
    """A balanced double-quoted span is one phrase term in either form."""
    assert 'find OR "drain the vip" OR fast' == sanitize_fts_query('find "drain the VIP" fast')


def test_words_inside_a_phrase_are_sanitized() -> None:
    """Punctuation inside quotes is dropped like anywhere else; the words stay a phrase."""
    assert '"don t panic"' == sanitize_fts_query('"don\'t: panic!"')


def test_unbalanced_quote_reads_as_no_quote() -> None:
    """With an odd number of quotes no phrase forms and every quote is a separator."""
    assert "say OR hello OR world" == sanitize_fts_query('say "hello world')


def test_an_empty_phrase_is_dropped() -> None:
    """A quoted span with no word in it contributes no term."""
    assert "a OR b" == sanitize_fts_query('a "" b "!?" ')


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("person:sasha", "person OR sasha"),
        ("-leading hyphen", "leading OR hyphen"),
        ("it's", "it OR s"),
        ("AND", "and"),
        ("NEAR(a b)", "near OR a OR b"),
        ("x* ^y", "x OR y"),
    ],
)
def test_fts5_syntax_breakers_become_plain_terms(query: str, expected: str) -> None:
    """Apostrophes, colons, hyphens, operators and specials are dropped, never escaped."""
    assert expected == sanitize_fts_query(query)


def test_nothing_indexable_gives_empty_forms() -> None:
    """Punctuation alone sanitizes to empty strings, which the caller must not bind."""
    assert FtsQueryForms(all="", any="") == fts_query_forms(" -- '\" ?! ")
    assert False is has_fts_terms(" -- '\" ?! ")


def test_one_term_gives_equal_forms() -> None:
    """With exactly one term the AND and OR forms are the same string."""
    assert FtsQueryForms(all="cache", any="cache") == fts_query_forms("  cache!  ")


def test_composed_and_decomposed_accents_give_one_identical_term() -> None:
    """`déployé` is one term whether its accents are precomposed or combining marks."""
    assert ("déployé",) == fts_terms("de\u0301ploye\u0301")
    assert ("déployé",) == fts_terms("DÉPLOYÉ")


def test_marks_stay_inside_their_word() -> None:
    """Spacing and non-spacing marks continue a word, so a Devanagari word stays whole."""
    assert ("हिन्दी",) == fts_terms("हिन्दी")


def test_a_mark_never_starts_a_term() -> None:
    """A combining mark after a separator is dropped rather than opening a term."""
    assert ("a", "b") == fts_terms("a \u0301b")


def test_digits_are_terms() -> None:
    """Digits in any script are kept, split where punctuation splits them."""
    assert ("3", "14", "٣") == fts_terms("3.14 ٣")


def test_stopwords_are_dropped_only_when_asked() -> None:
    """The stopword switch removes function words from bare terms; it is off by default."""
    query = "how does the cache expire"
    assert "how OR does OR the OR cache OR expire" == sanitize_fts_query(query)
    assert "cache OR expire" == sanitize_fts_query(query, drop_stopwords=True)


def test_stopwords_inside_a_phrase_are_kept() -> None:
    """Words the caller quoted are a phrase on purpose, stopwords included."""
    assert '"out of the box"' == sanitize_fts_query('the "out of the box" to', drop_stopwords=True)


def test_a_query_of_only_stopwords_keeps_them() -> None:
    """Stopword removal never empties a query that had terms."""
    assert "how OR is OR it" == sanitize_fts_query("how is it", drop_stopwords=True)


def test_negations_are_not_stopwords() -> None:
    """Polarity words survive stopword removal, or negated and plain queries would collide."""
    assert set() == {"not", "no", "never", "without", "cannot"} & ENGLISH_STOPWORDS


@given(fts_query_text)
@example('İ "a "')
@example("\u0301")
@example('"\u0301"')
def test_output_follows_the_term_grammar(query: str) -> None:
    """Every term is a lowercase bare token or a quoted phrase of tokens; nothing else appears."""
    forms = fts_query_forms(query)
    terms = fts_terms(query)
    assert [] == [t for t in terms if not _is_term(t)]
    assert ALL_JOINER.join(terms) == forms.all
    assert ANY_JOINER.join(terms) == forms.any
    assert set() == FTS5_KEYWORDS & set(re.split(r'[ "]+', " ".join(terms)))


@given(fts_query_text)
def test_terms_exist_exactly_when_a_letter_or_digit_does(query: str) -> None:
    """A query has a term iff it holds a letter or digit; the forms are then non-empty."""
    expected = any(unicodedata.category(ch)[0] in "LN" for ch in query)
    assert expected == has_fts_terms(query)
    assert expected == bool(sanitize_fts_query(query))


@given(
    st.lists(st.sampled_from(["cache", "déployé", "x2", "and"]), min_size=1, max_size=5),
    st.lists(st.sampled_from([" ", "-", "'", ":", "...", "\t(", "?!", "*", "^"]), min_size=5),
)
def test_separators_do_not_matter(words: list[str], separators: list[str]) -> None:
    """Any mix of punctuation and whitespace between words gives the same terms as one space."""
    joined = "".join(word + sep for word, sep in zip(words, separators, strict=False))
    assert fts_terms(" ".join(words)) == fts_terms(joined)


@given(fts_query_text)
def test_an_odd_number_of_quotes_means_no_quotes(query: str) -> None:
    """With unbalanced quotes the terms equal those of the text with every quote blanked."""
    odd = query if query.count('"') % 2 == 1 else query + '"'
    assert fts_terms(odd.replace('"', " ")) == fts_terms(odd)


@given(fts_query_text)
def test_stopword_removal_keeps_a_nonempty_subsequence(query: str) -> None:
    """Dropping stopwords removes only bare stopwords, in order, and never every term."""
    full = fts_terms(query)
    kept = fts_terms(query, drop_stopwords=True)
    remaining = iter(full)
    assert all(term in remaining for term in kept)
    assert bool(full) == bool(kept)
    dropped = [t for t in full if t not in kept]
    assert [] == [t for t in dropped if t not in ENGLISH_STOPWORDS]


def test_a_ten_thousand_word_query_hands_over_the_first_distinct_terms() -> None:
    """A pasted page is bounded: the first MAX_FTS_TERMS distinct terms, in order, each once."""
    words = [f"w{n % 500}" for n in range(10_000)]
    assert tuple(words[:MAX_FTS_TERMS]) == fts_terms(" ".join(words))


def test_a_repeated_term_is_kept_once() -> None:
    """Repeating a word neither doubles its weight under OR nor adds anything under AND."""
    assert FtsQueryForms(all="cache AND drain", any="cache OR drain") == fts_query_forms(
        "cache cache drain CACHE"
    )


def test_the_cap_counts_terms_after_stopwords_are_dropped() -> None:
    """Function words do not use up the budget: the cap applies to the terms that remain."""
    query = " ".join(f"the w{n} of" for n in range(MAX_FTS_TERMS + 5))
    kept = fts_terms(query, drop_stopwords=True)
    assert tuple(f"w{n}" for n in range(MAX_FTS_TERMS)) == kept


@given(fts_query_text, st.integers(min_value=1, max_value=8))
def test_capped_terms_are_the_distinct_prefix_of_the_uncapped(query: str, cap: int) -> None:
    """With any cap the terms are the first ``cap`` of the uncapped ones, none repeated."""
    uncapped = fts_terms(query, max_terms=10_000)
    capped = fts_terms(query, max_terms=cap)
    assert uncapped[:cap] == capped
    assert len(set(uncapped)) == len(uncapped)
