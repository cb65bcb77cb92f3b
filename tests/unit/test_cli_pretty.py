"""--pretty: aligned key/value lines, tables for lists of flat objects, wrapped text."""

from __future__ import annotations

import textwrap

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.envelope import JsonValue
from memhtml.app.cli.pretty import (
    ELLIPSIS,
    MAX_CELL_WIDTH,
    MIN_TEXT_WIDTH,
    WIDTH,
    _fits,
    _wrap,
    render,
    render_failure,
    render_success,
)
from memhtml.domain.control_chars import DISPLAY_CONTROL

keys = st.text(alphabet="abcdefgXYZ_", min_size=1, max_size=10)
prose = st.lists(st.sampled_from([*"abc xyz.\n-é😀", "  ", "long" * 30]), max_size=60).map("".join)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), prose)
# Anything at all, tables included.
any_values: st.SearchStrategy[JsonValue] = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=25,
)
# Objects nested in objects with text or lists of text as leaves: no table can form, so no
# cell is ever cut and every character of every leaf must be printed.
untabled: st.SearchStrategy[JsonValue] = st.recursive(
    st.one_of(prose, st.lists(prose, max_size=3)),
    lambda inner: st.dictionaries(keys, inner, min_size=1, max_size=4),
    max_leaves=15,
)


def _keys(value: JsonValue) -> set[str]:
    if isinstance(value, dict):
        return set(value).union(*(_keys(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(item) for item in value))
    return set()


def _leaves(value: JsonValue) -> list[str]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value] if isinstance(value, str) else []


def _squeezed(text: str) -> str:
    return "".join(text.split())


@given(any_values)
@example({"a": [{"x": 1}, {"y": None}], "b": [[1, 2], {"c": {}}], "d": []})
@example([[[]]])
def test_output_is_newline_terminated_without_trailing_spaces(value: JsonValue) -> None:
    """Every rendering ends with a newline and no line ends in spaces."""
    text = render(value)
    assert text.endswith("\n")
    assert [] == [line for line in text.split("\n") if line != line.rstrip()]


@given(any_values)
@example([{"a": 1}, {"b": 2}])
@example({"k": [{"inner": "x"}]})
def test_every_key_is_shown(value: JsonValue) -> None:
    """Object keys are never cut or lost, in tables (as headers) or in key/value lines."""
    text = render(value)
    assert set() == {key for key in _keys(value) if key not in text}


@given(untabled)
@example({"a": "word " * 40, "b": {"c": ["x", "long" * 30]}})
def test_wrapping_never_loses_text(value: JsonValue) -> None:
    """Outside tables, wrapping only moves text between lines: every leaf is printed whole."""
    squeezed = _squeezed(render(value))
    assert [] == [leaf for leaf in _leaves(value) if _squeezed(leaf) not in squeezed]


@given(untabled)
def test_lines_stay_within_the_width_unless_a_key_or_a_word_is_long(value: JsonValue) -> None:
    """Text wraps to the width; only deep nesting, or one word longer than a line (a path,
    which must stay whole to be copied), may push a line past it."""
    for line in render(value).split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        fits = len(line) <= max(WIDTH, indent + 50)
        assert fits or len(line.split()[-1]) > MIN_TEXT_WIDTH


LONG_PATH = "resources/environments/" + "staging-data-is-refreshed-every-tuesday-" * 3 + "x.html"


def test_a_path_is_never_cut_or_split() -> None:
    """In a table and after a key, a long path is printed whole on one line."""
    table = render({"links": [{"rel": "supersedes", "href": "/archive/2026/" + LONG_PATH}]})
    line = render({"archivedPath": "archive/2026/" + LONG_PATH})
    assert ELLIPSIS not in table
    assert "/archive/2026/" + LONG_PATH in table.split()
    assert "archive/2026/" + LONG_PATH in line.split()


@given(st.lists(st.dictionaries(keys, scalars, min_size=1, max_size=4), min_size=1, max_size=6))
@example([{"X": ""}])
def test_a_list_of_flat_objects_is_a_table(rows: list[dict[str, JsonValue]]) -> None:
    """One header, one rule, one line per row (empty cells too); every key in the header."""
    table: JsonValue = [*rows]
    text = render(table)
    assert text.endswith("\n")
    lines = text[:-1].split("\n")
    assert len(rows) + 2 == len(lines)
    assert set(lines[1]) <= {"-", " "}
    for key in {key for row in rows for key in row}:
        assert key in lines[0].split()


def test_table_aligns_columns_and_cuts_a_wide_middle_cell() -> None:
    """Columns line up; a cell wider than the cap, not in the last column, ends in an ellipsis."""
    rows: list[JsonValue] = [{"path": "a.html", "snippet": "x" * 80, "n": 1}, {"path": "bb.html"}]
    lines = render(rows).split("\n")
    assert "path     snippet" == lines[0][: len("path     snippet")]
    assert lines[2].split()[1].endswith(ELLIPSIS)
    assert MAX_CELL_WIDTH == len(lines[2].split()[1])
    assert lines[0].rindex("n") == lines[2].rindex("1")


def test_objects_align_their_values() -> None:
    """Values start in one column; booleans and nulls read as words."""
    text = render({"path": "a.html", "deduped": False, "existingPath": None})
    expected = "path          a.html\ndeduped       no\nexistingPath  —\n"
    assert expected == text


def test_nested_objects_indent_under_their_key() -> None:
    """A nested object is a section: its key, then its lines two spaces in."""
    assert "summary:\n  total  3\n" == render({"summary": {"total": 3}})


def test_list_items_that_are_objects_get_dashes() -> None:
    """Items that are not flat objects render as '-' blocks."""
    text = render([{"ranks": {"fts": 1}}, "x"])
    assert "- ranks:\n    fts  1\n- x\n" == text


def test_success_starts_with_the_type() -> None:
    """The response type heads the rendering."""
    assert "memory.list\nfiles  (none)\n" == render_success("memory.list", {"files": []})


def test_failure_drops_the_api_version() -> None:
    """A person needs the error, its code and the next steps, not the envelope's version."""
    envelope: JsonValue = {
        "apiVersion": "1",
        "error": "boom",
        "code": "ERR_GIT",
        "suggestions": ["memhtml doctor"],
    }
    expected = "error        boom\ncode         ERR_GIT\nsuggestions  memhtml doctor\n"
    assert expected == render_failure(envelope)


controlled = st.text(alphabet=st.sampled_from(["a", " ", "\x1b", "[", "\x9b", "\r", "\x07", "\n"]))


@given(st.dictionaries(controlled.filter(bool), st.one_of(controlled, st.lists(controlled))))
@example({"title\x1b[2J": "claim\x1b]0;pwned\x07", "rows": ["\x9b31m"]})
def test_no_control_character_reaches_the_terminal(value: dict[str, JsonValue]) -> None:
    """Keys, values and table cells print controls escaped; only newlines stay raw."""
    for shown in (render(value), render([value, value])):
        assert DISPLAY_CONTROL.search(shown) is None


def test_an_escape_is_shown_as_its_code() -> None:
    """ESC prints as \\x1b, so a reader sees that the text held one."""
    assert "title  a\\x1b[31mb\n" == render({"title": "a\x1b[31mb"})


@given(
    st.text(alphabet=st.sampled_from([*"ab z.-é😀", "\t", "\n", "\u00a0", "\u2028"]), max_size=40),
    st.integers(min_value=1, max_value=50),
)
@example("a  b", 4)
@example(" a", 10)
@example("", 10)
def test_the_one_line_shortcut_agrees_with_textwrap(text: str, width: int) -> None:
    # The renderer skips textwrap for text it would return unchanged; it must never guess wrong.
    if _fits(text, width):
        wrapped = textwrap.wrap(
            text, width, break_on_hyphens=False, break_long_words=False, replace_whitespace=True
        )
        assert wrapped == [text]


def test_the_shortcut_covers_the_usual_values() -> None:
    assert _fits("areas/inbox/2026-12-01-deploy-notes.html", WIDTH)
    assert _fits("The deploy runs at 09:00 UTC — every weekday.", WIDTH)
    assert not _fits("x" * (WIDTH + 1), WIDTH)
    assert not _fits("two\nlines", WIDTH)


def _textwrap_lines(text: str, width: int) -> list[str]:
    return [
        line
        for paragraph in text.split("\n")
        for line in textwrap.wrap(
            paragraph,
            width,
            break_on_hyphens=False,
            break_long_words=False,
            replace_whitespace=True,
        )
        or [""]
    ]


@given(
    st.lists(
        st.sampled_from([*"ab z.-é😀", " ", "   ", "\t", "\n", "\u00a0", "word" * 6]), max_size=40
    ).map("".join),
    st.integers(min_value=1, max_value=50),
)
@example("a  b", 4)
@example(" a", 10)
@example("  lead  and  trail  ", 6)
@example("wordwordwordword x y", 5)
@example("", 10)
def test_wrapping_gives_what_textwrap_gives(text: str, width: int) -> None:
    """The renderer's own line filling (printable text) and its one-line shortcut both
    return exactly textwrap's lines, for any text and width."""
    assert _textwrap_lines(text, width) == _wrap(text, width)
