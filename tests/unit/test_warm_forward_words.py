"""Which argument lists the front door may hand to a warm helper."""

from __future__ import annotations

import pytest

from memhtml.app.bootstrap.warm_forward import _FLAGS, _REPO, command_word
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
