"""Control families: each flip satisfies its own predicate and leaves the other two alone."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.eval.discrimination import texts
from memhtml.app.eval.discrimination.controls import (
    PREDICATES,
    Family,
    control_claims,
    negate,
    negation_holds,
    numeric_holds,
    qualifier_for,
    qualify,
    renumber,
    variant_holds,
)
from memhtml.app.eval.discrimination.topics import ENVIRONMENT_WORDS, QUALIFIERS, TOPICS

probe_wordings = st.builds(
    lambda topic, kind, noun, verb, env, n: texts.Wording(
        topic=topic,
        memory_type=kind,
        noun=topic.nouns[noun],
        verb=topic.verbs[verb],
        env=env,
        number=n if kind == texts.SEMANTIC else None,
    ),
    st.sampled_from(TOPICS),
    st.sampled_from((texts.SEMANTIC, texts.PROCEDURAL)),
    st.integers(0, 4),
    st.integers(0, 2),
    st.sampled_from(ENVIRONMENT_WORDS),
    st.integers(2, 59),
)
paths = st.text(alphabet="abcz/-.", min_size=1, max_size=40)
# Prose with none of the negation anchors, markers, qualifiers or digits.
plain_words = st.lists(st.sampled_from(["alpha", "ledger", "runs", "fast", "today"]), min_size=1)


@given(wording=probe_wordings, path=paths)
def test_every_probe_claim_gets_negation_and_variant_controls(
    wording: texts.Wording, path: str
) -> None:
    """A probe claim always yields negation and variant controls, numeric iff semantic."""
    claim = texts.claim_of(wording)
    families = [family for family, _ in control_claims(claim, wording.topic.anchor, path)]
    expected = [Family.NEGATION, Family.NUMERIC, Family.VARIANT]
    if wording.memory_type != texts.SEMANTIC:
        expected.remove(Family.NUMERIC)
    assert expected == families


@given(wording=probe_wordings, path=paths)
def test_each_flip_changes_only_its_own_family(wording: texts.Wording, path: str) -> None:
    """Each control satisfies its family's predicate and none of the other two."""
    claim = texts.claim_of(wording)
    for family, flipped in control_claims(claim, wording.topic.anchor, path):
        holding = {f for f, predicate in PREDICATES.items() if predicate(claim, flipped)}
        assert {family} == holding


def test_negation_goes_after_the_first_anchor_in_priority_order() -> None:
    """``must`` is tried before ``is``; ``not`` lands right after it."""
    assert "operators must not rotate, which is fine" == negate(
        "operators must rotate, which is fine"
    )


@given(words=plain_words)
def test_negation_without_an_anchor_prefixes_the_claim(words: list[str]) -> None:
    """No auxiliary to negate: "It is not true that …", which the predicate accepts."""
    claim = " ".join(words).capitalize() + "."
    flipped = negate(claim)
    assert flipped.startswith("It is not true that ")
    assert negation_holds(claim, flipped)


@example(n=99)
@example(n=100)
@given(n=st.integers(min_value=0, max_value=10**6))
def test_numbers_move_by_ten_when_small_else_double(n: int) -> None:
    """n < 100 becomes n + 10, anything larger 2n; the predicate sees the change."""
    claim = f"The quota is {n} per minute."
    flipped = renumber(claim)
    expected = n + 10 if n < 100 else 2 * n
    assert f"The quota is {expected} per minute." == flipped
    assert numeric_holds(claim, flipped)


@given(words=plain_words)
def test_no_number_means_no_numeric_control(words: list[str]) -> None:
    """A claim without a number has no numeric flip."""
    assert renumber(" ".join(words)) is None


@given(path=paths)
def test_variant_without_the_anchor_appends_the_qualifier(path: str) -> None:
    """No anchor noun: ", on the <q> variant only." is appended, and the predicate holds."""
    qualifier = qualifier_for(path)
    flipped = qualify("Jobs run nightly.", "gateway", qualifier)
    assert (f"Jobs run nightly, on the {qualifier} variant only.", True) == (
        flipped,
        variant_holds("Jobs run nightly.", flipped),
    )


@given(path=paths)
def test_qualifier_is_picked_by_code_point_sum(path: str) -> None:
    """The qualifier is QUALIFIERS[sum of code points mod 5]."""
    assert QUALIFIERS[sum(ord(c) for c in path) % 5] == qualifier_for(path)
