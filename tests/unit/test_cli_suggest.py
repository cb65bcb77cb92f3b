"""'Did you mean': the edit distance and the choice of at most three nearby names."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.suggest import MAX_SUGGESTIONS, distance_limit, levenshtein, suggest

# A small alphabet so random words are often a few edits apart.
words = st.text(alphabet="abcde", max_size=8)
phrases = st.lists(st.text(alphabet="abcde", min_size=1, max_size=5), min_size=1, max_size=2).map(
    " ".join
)
COMMANDS = ["index rebuild", "index update", "index embed", "index status", "init", "search"]


def test_levenshtein_of_the_textbook_pair() -> None:
    """kitten → sitting takes two substitutions and one insertion."""
    assert 3 == levenshtein("kitten", "sitting")


@given(words, words)
@example("", "abc")
@example("ab", "ba")
def test_levenshtein_is_a_bounded_symmetric_distance(a: str, b: str) -> None:
    """Symmetric, zero exactly on equal strings, at least the length gap, at most the longer."""
    distance = levenshtein(a, b)
    assert distance == levenshtein(b, a)
    assert (distance == 0) == (a == b)
    assert abs(len(a) - len(b)) <= distance <= max(len(a), len(b))


@given(words, words, words)
def test_levenshtein_obeys_the_triangle_inequality(a: str, b: str, c: str) -> None:
    """Going through a third string is never shorter."""
    assert levenshtein(a, c) <= levenshtein(a, b) + levenshtein(b, c)


@given(words, words)
def test_one_more_character_costs_one_edit(a: str, b: str) -> None:
    """Appending the same character to both strings keeps the distance."""
    assert levenshtein(a, b) == levenshtein(a + "z", b + "z")


def test_distance_limit_is_two_or_half_the_length() -> None:
    """max(2, ⌈len/2⌉): short names tolerate two edits, a 7-letter one four."""
    assert [2, 2, 2, 3, 4] == [distance_limit(t) for t in ("", "ab", "abcd", "abcde", "abcdefg")]


def test_a_misspelt_command_suggests_it() -> None:
    """`serch` is one edit from `search`."""
    assert ("search",) == suggest(("serch",), COMMANDS)


def test_two_word_commands_are_compared_as_one_phrase() -> None:
    """`indx rebuild` finds `index rebuild` first, though `indx` alone is far from it."""
    assert "index rebuild" == suggest(("indx", "rebuild"), COMMANDS)[0]


def test_nothing_close_suggests_nothing() -> None:
    """A word far from every name gets no suggestion."""
    assert () == suggest(("zzzzzzzz",), COMMANDS)


@given(st.lists(words, min_size=1, max_size=2), st.lists(phrases, max_size=12))
@example(["ab"], ["a", "b", "ab", "abc", "abd"])
@example(["a", "b"], ["a b", "a", "b c"])
def test_suggestions_are_the_nearest_few_registered_names(
    typed: list[str], names: list[str]
) -> None:
    """At most three registered names, each within the limit, nearest first, ties by name,
    and no name left out is nearer than the last one kept."""
    chosen = suggest(typed, names)

    def key(name: str) -> tuple[int, str]:
        phrase = " ".join(typed[: len(name.split(" "))])
        return levenshtein(phrase, name), name

    def within(name: str) -> bool:
        phrase = " ".join(typed[: len(name.split(" "))])
        return key(name)[0] <= distance_limit(phrase)

    assert len(chosen) <= MAX_SUGGESTIONS
    assert set(chosen) <= set(names)
    assert all(within(name) for name in chosen)
    assert sorted(chosen, key=key) == list(chosen)
    assert len(set(chosen)) == len(chosen)
    left_out = [name for name in set(names) - set(chosen) if within(name)]
    if left_out:
        assert len(chosen) == MAX_SUGGESTIONS
        assert all(key(name) > key(chosen[-1]) for name in left_out)
