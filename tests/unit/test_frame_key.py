"""The frame key (``domain/frame_key``): values lifted into typed slots, the relation kept."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.eval.discrimination.controls import negate, qualify, renumber
from memhtml.domain.frame_key import Frame, frame_key, frame_of, in_conflict
from tests.strategies import awkward_text

# Relation words: none is a unit, a multiplier, a month, a weekday, am/pm or a single letter,
# so a word beside a value never joins it.
WORDS = (
    "the",
    "pool",
    "holds",
    "connections",
    "per",
    "pod",
    "export",
    "starts",
    "at",
    "every",
    "night",
    "retention",
    "is",
    "cache",
    "service",
    "limit",
    "users",
    "replicas",
    "on",
    "deploy",
    "window",
    "budget",
    "uses",
    "python",
    "flag",
    "checkout-api",
    "team's",
    "not",
    "canary",
)
relation_words = st.sampled_from(WORDS)


def _number() -> st.SearchStrategy[str]:
    plain = st.integers(0, 10**7).map(str)
    grouped = st.integers(1000, 10**7).map(lambda n: f"{n:,}")
    decimal = st.tuples(st.integers(0, 999), st.integers(0, 99)).map(lambda p: f"{p[0]}.{p[1]}")
    return st.one_of(plain, grouped, decimal)


_INT = st.integers(1, 999).map(str)
# Four-digit years: "1 January 999" reads as a day, a month and a number.
_DATES = st.dates(min_value=dt.date(1000, 1, 1), max_value=dt.date(9999, 12, 31))
RENDERINGS: dict[str, st.SearchStrategy[str]] = {
    "number": _number(),
    "percent": st.tuples(_INT, st.sampled_from(["%", " %", " percent", " per cent"])).map("".join),
    "duration": st.one_of(
        st.tuples(
            _INT,
            st.sampled_from(
                ["s", " s", "ms", " ms", "m", " min", " minutes", "h", " hours", " days", "w"]
            ),
        ).map("".join),
        st.tuples(_INT, _INT).map(lambda p: f"{p[0]}h{p[1]}m"),
        st.tuples(_INT, _INT).map(lambda p: f"{p[0]} hours {p[1]} minutes"),
    ),
    "size": st.tuples(_INT, st.sampled_from(["MB", " MB", "GB", " gigabytes", " KiB"])).map(
        "".join
    ),
    "money": st.one_of(
        st.tuples(st.sampled_from(["$", "€", "£"]), _INT, st.sampled_from(["", "k"])).map("".join),
        st.tuples(_INT, st.sampled_from([" USD", " euros"])).map("".join),
    ),
    "date": st.one_of(
        _DATES.map(lambda d: d.isoformat()),
        _DATES.map(lambda d: f"{d.day} {d:%B} {d.year}"),
        _DATES.map(lambda d: f"{d:%B} {d.day}, {d.year}"),
        _DATES.map(lambda d: f"{d:%b} {d.year}"),
        st.sampled_from(["Monday", "fridays", "July", "December"]),
    ),
    "time": st.one_of(
        st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: f"{t[0]:02d}:{t[1]:02d}"),
        st.tuples(st.integers(1, 12), st.sampled_from(["am", " pm", " a.m."])).map(
            lambda t: f"{t[0]}{t[1]}"
        ),
    ),
    "version": st.one_of(
        st.lists(st.integers(0, 30).map(str), min_size=1, max_size=3).map(
            lambda p: "v" + ".".join(p)
        ),
        st.lists(st.integers(0, 30).map(str), min_size=3, max_size=4).map(".".join),
    ),
    "quote": st.lists(st.sampled_from(["fast", "path", "blue", "Green", "x"]), min_size=1).map(
        lambda words: '"' + " ".join(words) + '"'
    ),
}
slot_kinds = st.sampled_from(sorted(RENDERINGS))

# A template: words and slots, never two slots side by side (a value beside a value can be read
# as one: "5 March 2026", "1 hour 30 minutes").
Template = list[str]


@st.composite
def templates(draw: st.DrawFn, *, min_slots: int = 1) -> Template:
    parts: Template = draw(st.lists(relation_words, min_size=1, max_size=3))
    for _ in range(draw(st.integers(min_slots, 3))):
        parts.append("{" + draw(slot_kinds) + "}")
        parts.extend(draw(st.lists(relation_words, min_size=1, max_size=3)))
    return parts


@st.composite
def rendered(draw: st.DrawFn, template: Template) -> str:
    out = []
    for part in template:
        out.append(draw(RENDERINGS[part[1:-1]]) if part.startswith("{") else part)
    return " ".join(out)


def expected_key(template: Template) -> str:
    return " ".join(template).casefold()


@given(st.data(), templates())
def test_a_rendering_keys_to_its_template(data: st.DataObject, template: Template) -> None:
    """Each value becomes the slot of its type; the words stay, case-folded, in order."""
    gist = data.draw(rendered(template))
    assert expected_key(template) == frame_key(gist)


@given(st.data(), templates())
def test_changing_values_keeps_the_key(data: st.DataObject, template: Template) -> None:
    """Two gists stating one relation with any values share the key."""
    first, second = data.draw(rendered(template)), data.draw(rendered(template))
    assert frame_key(first) == frame_key(second)


@given(st.data(), templates(), st.data())
def test_changing_a_relation_word_changes_the_key(
    data: st.DataObject, template: Template, choice: st.DataObject
) -> None:
    """Replacing one word of the relation by another word gives another key."""
    words = [i for i, part in enumerate(template) if not part.startswith("{")]
    index = choice.draw(st.sampled_from(words))
    other = choice.draw(relation_words.filter(lambda w: w != template[index]))
    changed = [*template[:index], other, *template[index + 1 :]]
    gist, changed_gist = data.draw(rendered(template)), data.draw(rendered(changed))
    assert frame_key(gist) != frame_key(changed_gist)


@given(st.lists(relation_words, min_size=1, max_size=8))
def test_a_statement_without_values_has_no_key(words: list[str]) -> None:
    """Nothing to disagree about: no frame."""
    assert frame_of(" ".join(words)) is None


@pytest.mark.parametrize(
    ("spellings", "value"),
    [
        (("12 March 2026", "March 12, 2026", "2026-03-12", "12th of March 2026"), "2026-03-12"),
        (("1h30m", "1 hour 30 minutes", "90 minutes", "5400 s", "1.5 hours"), "5400s"),
        (("03:30", "3:30 am", "3:30 a.m."), "03:30"),
        (("15:00", "3 pm", "3pm"), "15:00"),
        (("2 GB", "2GB", "2000 MB", "2 gigabytes"), "2000000000B"),
        (("$5k", "$5,000", "5000 USD"), "USD 5000"),
        (("12%", "12 %", "12 percent", "12 per cent"), "12%"),
        (("1,500", "1500", "1.5k", "1.5 thousand"), "1500"),
    ],
)
def test_spellings_of_one_value_agree(spellings: tuple[str, ...], value: str) -> None:
    """However a value is written, its words in whatever order, it is one canonical value."""
    frames = {frame_of(f"The job window is {spelling} for the pool") for spelling in spellings}
    key = frame_key(f"The job window is {spellings[0]} for the pool")
    assert {Frame(key=key or "", values=(value,))} == frames


@given(st.permutations(["fast", "path", "blue", "green"]))
def test_word_order_inside_a_quoted_value_does_not_reach_the_key(order: list[str]) -> None:
    """A quoted literal is one slot, however its words are ordered."""
    assert "the flag is named {quote}" == frame_key(f'The flag is named "{" ".join(order)}".')


@given(st.data(), templates())
def test_case_whitespace_and_end_punctuation_do_not_matter(
    data: st.DataObject, template: Template
) -> None:
    """Relation words in any case, runs of whitespace and a closing full stop give one key."""
    gist = data.draw(rendered(template))
    shouted = " ".join(w.upper() if w in WORDS else w for w in gist.split(" "))
    spaced = "  " + gist.replace(" ", " \t ") + ".\n"
    assert frame_key(gist) == frame_key(shouted) == frame_key(spaced)


# Fragments that sit on every seam of the scanner: values, units, months, quotes, digits glued
# to words, punctuation and odd Unicode.
frame_fragments = st.lists(
    st.one_of(
        st.sampled_from(
            ["5", "1,000", "3.10", "-2", "12", "2026", "v2", "1.2.3", ".5", "%", "$", "'", '"']
        ),
        st.sampled_from(["ms", "m", "M", "k", "s", "h", "hours", "per", "cent", "am", "pm", "x"]),
        st.sampled_from(["March", "may", "Monday", "Sept.", "of", "{number}", "{duration}", "`"]),
        st.sampled_from([" ", "  ", ",", ".", "-", ":", "/", "<=", "_", "\u2019", "\u212a"]),
        relation_words,
        awkward_text,
    ),
    max_size=16,
).map("".join)


@given(st.one_of(frame_fragments, st.text()))
@example("x86_64 runs 5xx at .5 and 3,5 and 1.2.3.4")
@example("1 hour, 30 minutes")
@example("5,March,1,000msms")
@example("5:2026")
@example("1,000ms1.2.3am")
@example("The '\u0130stanbul' team holds 5 pods")
@example("{duration} {duration} and {number} per cent")
def test_the_key_is_its_own_key(gist: str) -> None:
    """Keying a key gives the key back: slots read as slots, words as words."""
    key = frame_key(gist)
    if key is not None:
        assert key == frame_key(key)


@given(st.data(), templates())
def test_keying_is_idempotent_on_statements(data: st.DataObject, template: Template) -> None:
    """The same holds for every generated statement."""
    key = frame_key(data.draw(rendered(template)))
    assert key is not None
    assert key == frame_key(key)


def _frame(gist: str) -> Frame:
    frame = frame_of(gist)
    assert frame is not None, gist
    return frame


def test_conflict_is_same_relation_other_values() -> None:
    """Same key and other values conflict; same values or another key do not."""
    fifty = _frame("The pool holds 50 connections per pod.")
    eighty = _frame("The pool holds 80 connections per pod.")
    again = _frame("the pool holds 50 connections per pod")
    other = _frame("The pool holds 80 connections per worker.")
    assert (True, False, False) == (
        in_conflict(fifty, eighty),
        in_conflict(fifty, again),
        in_conflict(fifty, other),
    )


@pytest.mark.parametrize(
    "claim",
    [
        "In the staging environment the Tallyforge ledger is allowed 12 voucher operations per "
        "minute.",
        "The invoice export job starts at 03:30 UTC every night.",
        "Each checkout API pod opens at most 50 Postgres connections.",
    ],
)
def test_the_gate_flips_separate_as_they_should(claim: str) -> None:
    """A renumbered claim conflicts with its original; a negated or qualified one is another
    relation (the discrimination gate's three control families)."""
    original = _frame(claim)
    flipped = _frame(renumber(claim) or "")
    negated = _frame(negate(claim))
    qualified = _frame(qualify(claim, "pool", "canary"))
    assert (True, False, False) == (
        in_conflict(original, flipped),
        in_conflict(original, negated),
        in_conflict(original, qualified),
    )


def test_identifiers_with_digits_are_words() -> None:
    """``ec2``, ``x86_64``, ``5xx`` and ``s3`` name things; they are not values."""
    assert frame_of("The ec2 x86_64 fleet sends 5xx alerts to s3") is None


def test_bare_may_and_march_are_not_dates() -> None:
    """Alone they are verbs as often as months; with a day or year they are dates."""
    assert (None, "the job runs in {date}") == (
        frame_key("The job may march on"),
        frame_key("The job runs in May 2026"),
    )


@given(st.lists(st.one_of(frame_fragments, st.text()), min_size=1, max_size=6))
def test_a_remembered_frame_is_a_fresh_derivation(gists: list[str]) -> None:
    """Asked again (the conflict assist, then the projection), ``frame_of`` answers from its
    memory exactly what deriving the frame afresh gives."""
    for gist in [*gists, *reversed(gists)]:
        assert frame_of.__wrapped__(gist) == frame_of(gist)
