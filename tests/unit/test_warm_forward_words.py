"""Which argument lists the front door may hand to a warm helper."""

from __future__ import annotations

import pytest

from memhtml.app.bootstrap.warm_forward import (
    _FLAGS,
    _REPO,
    REQUEST_VAR,
    command_word,
    keyed_request,
)
from memhtml.app.cli.global_options import GLOBAL_FLAGS, HELP, HELP_SHORT, REPO, VERSION


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["search", "q"], "search"),
        (["--repo", "/s", "search", "q"], "search"),
        (["--repo=/s", "--dense", "recall", "q"], "recall"),
        (["-q", "--pretty", "search", "--limit", "3", "q"], "search"),
        (["write", "--title", "t"], "write"),
        (["search", "--help"], None),
        (["-h"], None),
        (["--version"], None),
        (["--repo"], None),
        ([], None),
        (["--limit", "3", "search"], None),
        (["search", "--", "--odd query"], None),
        (["write", "--title", "-"], None),
    ],
)
def test_the_command_word(argv: list[str], word: str | None) -> None:
    assert command_word(argv) == word


def test_the_flags_skipped_are_the_programs_global_flags() -> None:
    """Every global flag but the ones that never forward, and --repo with its value."""
    flags = {flag.name for flag in GLOBAL_FLAGS} | {"-q"}
    assert _FLAGS | {_REPO} == flags - {HELP, HELP_SHORT, VERSION}
    assert _REPO == REPO


@pytest.mark.parametrize(
    ("argv", "keyed"),
    [
        (["archive", "areas/a.html", "--reason", "r"], True),
        (["--repo", "/s", "correct", "areas/a.html"], True),
        (["write", "--title", "t"], False),
        (["search", "q"], False),
        (["archive", "--help"], False),
    ],
)
def test_archive_and_correct_get_a_request_id_once(argv: list[str], keyed: bool) -> None:
    """A fresh id for the two commands a second run cannot tell from a missing target; one
    already set is kept, so the helper and a run after it name the same invocation."""
    environ: dict[str, str] = {}
    keyed_request(argv, environ)
    assert keyed == (REQUEST_VAR in environ)
    if keyed:
        first = environ[REQUEST_VAR]
        assert 32 == len(first)
        keyed_request(argv, environ)
        assert first == environ[REQUEST_VAR]
        other: dict[str, str] = {}
        keyed_request(argv, other)
        assert first != other[REQUEST_VAR]


def test_no_request_id_when_no_helper_may_serve() -> None:
    """With the helper switched off the command runs here only, once: nothing to recognise."""
    environ = {"MEMHTML_EMBED_HELPER": "off"}
    keyed_request(["archive", "areas/a.html", "--reason", "r"], environ)
    assert REQUEST_VAR not in environ
