"""Control characters: which are refused in stored fields, and how they are shown or dropped."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.control_chars import (
    DISPLAY_CONTROL,
    REFUSED_CONTROL,
    escape_controls,
    first_refused_control,
    strip_controls,
)
from memhtml.domain.model import collapse_whitespace

REFUSED = [chr(c) for c in [*range(0x09), 0x0B, *range(0x0E, 0x20), *range(0x7F, 0xA0)]]
WHITESPACE = ["\t", "\n", "\f", "\r"]
controlled_text = st.text(
    alphabet=st.one_of(st.characters(codec="utf-8"), st.sampled_from(REFUSED + WHITESPACE))
)


def test_the_refused_set_is_c0_but_whitespace_del_and_c1() -> None:
    """ESC, BEL, NUL, VT, DEL, CSI are refused; tab, newline, form feed, CR and é are not."""
    refused = [chr(c) for c in range(0x100) if REFUSED_CONTROL.fullmatch(chr(c))]
    assert REFUSED == refused
    assert "U+001B" == first_refused_control("title \x1b[31m")
    assert first_refused_control("a\tb\nc\fd\re é\u00a0") is None


@given(controlled_text)
def test_escaped_text_holds_no_terminal_control(text: str) -> None:
    """After escaping only tab and newline remain of the C0/C1 controls; other text stays."""
    escaped = escape_controls(text)
    assert DISPLAY_CONTROL.search(escaped) is None
    controls = len(DISPLAY_CONTROL.findall(text))
    assert len(text) + 3 * controls == len(escaped)


@given(controlled_text)
def test_escaping_is_reversible_for_controls(text: str) -> None:
    """Each control becomes its own \\xNN spelling, so a reader can tell which it was."""
    escaped = escape_controls(text)
    for char in set(text):
        if DISPLAY_CONTROL.fullmatch(char):
            assert f"\\x{ord(char):02x}" in escaped


@given(controlled_text)
def test_stripped_text_has_no_refused_control_and_keeps_the_rest(text: str) -> None:
    """Stripping drops exactly the refused controls; whitespace is left for collapsing."""
    stripped = strip_controls(text)
    assert first_refused_control(stripped) is None
    assert [c for c in text if not REFUSED_CONTROL.fullmatch(c)] == list(stripped)
    assert "a b" == collapse_whitespace(strip_controls("a\r\x1b\x9bb"))
