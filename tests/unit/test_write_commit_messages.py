"""Commit subjects and trailers of the write path (docs/cli-contract.md §3.1)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.commit_messages import (
    ELLIPSIS,
    REQUEST_ID_PATTERN,
    SUBJECT_MAX_UNITS,
    UNTITLED_SUBJECT,
    archive_subject,
    batch_subject,
    commit_message,
    commit_subject_text,
    link_subject,
    request_of,
    with_request,
)
from memhtml.domain.control_chars import DISPLAY_CONTROL, strip_controls
from memhtml.domain.model import collapse_whitespace
from memhtml.domain.text import utf16_len
from tests.strategies import awkward_text


def test_write_subject_is_the_title() -> None:
    """``memhtml(write): <title>`` as in the worked example, with a trailing newline."""
    expected = "memhtml(write): Invoice export runs at 03:30 UTC\n"
    assert expected == commit_message("write", "Invoice export runs at 03:30 UTC")


def test_blank_subject_is_untitled() -> None:
    """An empty or all-whitespace subject becomes ``(untitled)``."""
    assert "memhtml(write): (untitled)\n" == commit_message("write", " \n\t ")


def test_long_subject_is_cut_to_72_units_with_an_ellipsis() -> None:
    """A 100-character subject keeps 71 characters and gains ``…``."""
    assert "a" * 71 + ELLIPSIS == commit_subject_text("a" * 100)


def test_astral_characters_count_two_units() -> None:
    """Emoji take two UTF-16 units each, so 36 of them fill the 72-unit subject exactly."""
    assert ("😀" * 36, "😀" * 35 + ELLIPSIS) == (
        commit_subject_text("😀" * 36),
        commit_subject_text("😀" * 37),
    )


def test_trailers_follow_a_blank_line() -> None:
    """Session and prompt ids become ``Memhtml-Session:``/``Memhtml-Prompt:`` trailers."""
    expected = "memhtml(write): T\n\nMemhtml-Session: s 1\nMemhtml-Prompt: p1\n"
    assert expected == commit_message("write", "T", session_id="s\n1", prompt_id="p1")


def test_body_sits_between_subject_and_trailers() -> None:
    """A correction's reason is the message body, before the trailers."""
    expected = "memhtml(correct): T\n\nmeasured again\n\nMemhtml-Session: s\n"
    assert expected == commit_message("correct", "T", body=" measured again ", session_id="s")


def test_archive_and_link_subjects() -> None:
    """``<path> — <reason>`` and ``<rel> <src> -> <dst>``."""
    assert ("a.html — done", "supports a.html -> b.html") == (
        archive_subject("a.html", "done"),
        link_subject("supports", "a.html", "b.html"),
    )


def test_batch_subject_rules() -> None:
    """One write gives its title; only writes give ``n memories``; a mix gives ``n ops``."""
    assert ("Title", "2 memories", "2 ops", "1 ops", "0 ops") == (
        batch_subject(("write",), "Title"),
        batch_subject(("write", "write"), None),
        batch_subject(("write", "link"), None),
        batch_subject(("link",), None),
        batch_subject((), None),
    )


@given(text=awkward_text)
@example(text="a" * 72)
@example(text="a" * 73)
@example(text="a " * 36 + "b")
def test_subject_fits_and_is_a_collapsed_prefix(text: str) -> None:
    """Never over 72 units or empty; the collapsed text itself, or a cut of it plus ``…``."""
    subject = commit_subject_text(text)
    collapsed = collapse_whitespace(strip_controls(text))
    assert utf16_len(subject) <= SUBJECT_MAX_UNITS
    if not collapsed:
        assert UNTITLED_SUBJECT == subject
    elif utf16_len(collapsed) <= SUBJECT_MAX_UNITS:
        assert collapsed == subject
    else:
        assert subject.endswith(ELLIPSIS)
        assert collapsed.startswith(subject.removesuffix(ELLIPSIS))


@given(text=st.text(min_size=1))
def test_subject_line_is_one_line(text: str) -> None:
    """Whatever the title holds, the message's first line is the whole subject."""
    message = commit_message("write", text)
    assert message.split("\n", 1)[0] == "memhtml(write): " + commit_subject_text(text)


@given(
    subject=st.text(
        alphabet=st.sampled_from(["a", " ", "\x1b", "[", "\x9b", "\r", "\x07"]), max_size=60
    ),
    reason=st.text(alphabet=st.sampled_from(["b", "\n", "\x1b", "]", "\x00", "\x7f"])),
    session=st.text(alphabet=st.sampled_from(["s", "\x1b", "\x85"])),
)
@example(subject="\x1b[2Jtitle", reason="why\x1b]0;pwned\x07", session="s\x1b")
def test_no_control_character_reaches_a_commit_message(
    subject: str, reason: str, session: str
) -> None:
    """Terminal escapes in a subject, body or trailer are dropped; the words stay."""
    message = commit_message("archive", subject, body=reason, session_id=session)
    assert DISPLAY_CONTROL.search(message) is None
    kept = strip_controls(subject).replace("\r", " ").split()
    assert all(word in message for word in kept)


REQUEST_IDS = st.from_regex(REQUEST_ID_PATTERN, fullmatch=True)


@given(
    subject=awkward_text,
    body=st.none() | awkward_text,
    session=st.none() | awkward_text,
    prompt=st.none() | awkward_text,
    request=REQUEST_IDS,
)
@example(subject="t", body="Reason: looks like a trailer", session=None, prompt=None, request="a")
@example(subject="", body=None, session="\xa0", prompt=None, request="0")
def test_a_request_trailer_is_read_back_and_changes_nothing_above_it(
    subject: str, body: str | None, session: str | None, prompt: str | None, request: str
) -> None:
    """Whatever the message, its request id reads back, the text above it is unchanged, and
    the session trailers stay in the message's last block, where git reads trailers."""
    message = commit_message("archive", subject, body=body, session_id=session, prompt_id=prompt)
    keyed = with_request(message, request)
    assert request == request_of(keyed)
    assert keyed.startswith(message.rstrip("\n") + "\n")
    assert message == with_request(message, None)
    last_block = keyed.rstrip("\n").rsplit("\n\n", 1)[-1]
    session_lines = [line for line in message.split("\n") if line.startswith("Memhtml-Session: ")]
    assert all(line in last_block.split("\n") for line in session_lines)


def test_the_trailer_joins_the_session_block_or_starts_its_own() -> None:
    with_session = commit_message("write", "t", session_id="s1")
    assert "memhtml(write): t\n\nMemhtml-Session: s1\nMemhtml-Request: r-1\n" == (
        with_request(with_session, "r-1")
    )
    assert "memhtml(write): t\n\nMemhtml-Request: r-1\n" == (
        with_request(commit_message("write", "t"), "r-1")
    )


def test_no_request_is_read_from_a_message_without_one_or_from_its_body() -> None:
    """Only the last block counts: a body line quoting the trailer is not a request."""
    assert None is request_of(commit_message("write", "t", session_id="s"))
    quoted = commit_message("correct", "t", body="Memhtml-Request: abc", session_id="s")
    assert None is request_of(quoted)


@pytest.mark.parametrize("bad", ["", "has space", "x" * 65, "ü", "a\nb"])
def test_a_malformed_request_id_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="request id"):
        with_request("memhtml(write): t\n", bad)
