"""The gate's invented vocabulary: topics pairwise disjoint and apart from every fixed word."""

from __future__ import annotations

import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.eval.discrimination import texts
from memhtml.app.eval.discrimination.controls import FAMILY_TITLE_MARKERS
from memhtml.app.eval.discrimination.topics import (
    ENVIRONMENT_WORDS,
    NEGATION_WORDS,
    PEOPLE,
    QUALIFIERS,
    STOPWORDS,
    TOPICS,
    Topic,
)

_WORD = re.compile(r"[^\W_]+")
_PLACEHOLDER = re.compile(r"\{[a-z0-9_]+\}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(_PLACEHOLDER.sub(" ", text).lower()))


def _fixed_words() -> set[str]:
    """Every word the templates, kits, markers, people and environments contribute."""
    templates = [
        *texts.CLAIM_TEMPLATES.values(),
        texts.EARLIER_PROCEDURAL_TEMPLATE,
        *texts.TITLE_LABELS.values(),
        *texts.BODY_TEMPLATES,
        texts.CODE_SENTENCE,
        *FAMILY_TITLE_MARKERS.values(),
        *(p.claim for p in PEOPLE),
        *(p.name for p in PEOPLE),
    ]
    # A kit rendered for an empty topic leaves exactly the kit's own words.
    blank = Topic(
        name="", workspace="", area="", tags=("", ""), anchor="", nouns=("",) * 5, verbs=("",) * 3
    )
    kits = [texts.kit_html(k, blank, 0, "", "2026-01-01T00:00:00Z") for k in range(9)]
    kit_words = {w for kit in kits for w in _words(re.sub(r"<[^>]*>", " ", kit))}
    return {w for t in templates for w in _words(t)} | kit_words | set(ENVIRONMENT_WORDS)


def test_there_are_twelve_complete_topics() -> None:
    """12 topics, each with 2 tags, 5 nouns and 3 verbs, all distinct within the topic."""
    shapes = {(len(set(t.tags)), len(set(t.nouns)), len(set(t.verbs))) for t in TOPICS}
    assert (12, {(2, 5, 3)}) == (len(TOPICS), shapes)


def test_topic_vocabularies_are_pairwise_disjoint() -> None:
    """No word belongs to two topics."""
    overlaps = [
        (a.workspace, b.workspace, a.vocabulary & b.vocabulary)
        for a, b in itertools.combinations(TOPICS, 2)
        if a.vocabulary & b.vocabulary
    ]
    assert [] == overlaps


def test_topic_words_avoid_stopwords_markers_and_fixed_wording() -> None:
    """Topic words are never stopwords, negation or variant markers, or template words."""
    reserved = STOPWORDS | NEGATION_WORDS | set(QUALIFIERS) | _fixed_words()
    assert {} == {t.workspace: t.vocabulary & reserved for t in TOPICS if t.vocabulary & reserved}


def test_fixed_wording_is_marker_free() -> None:
    """Templates, kits and people say nothing negated or qualified, so only a flip does."""
    assert set() == _fixed_words() & (NEGATION_WORDS | set(QUALIFIERS))


def test_environment_words_are_distinct_and_digit_free() -> None:
    """23 distinct environment words without digits."""
    assert (23, False) == (
        len(set(ENVIRONMENT_WORDS)),
        any(ch.isdigit() for w in ENVIRONMENT_WORDS for ch in w),
    )


@given(a=st.integers(min_value=0, max_value=10**6), b=st.integers(min_value=0, max_value=10**6))
def test_letter_codes_are_letters_and_injective(a: int, b: int) -> None:
    """A code is ``zq`` plus at least three letters, and two ordinals never share one."""
    code = texts.letter_code(a)
    assert re.fullmatch(r"zq[a-z]{3,}", code)
    assert (a == b) == (code == texts.letter_code(b))


def test_first_letter_codes() -> None:
    """Ordinals 0, 1, 26 and 17,576 spell zqaaa, zqaab, zqaba and zqbaaa."""
    assert ["zqaaa", "zqaab", "zqaba", "zqbaaa"] == [
        texts.letter_code(i) for i in (0, 1, 26, 26**3)
    ]
