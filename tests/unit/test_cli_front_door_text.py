"""The entry point's rendered answers: the root's help and the version, printed without loading
the program, are exactly what the whole program prints, and nothing else is answered early."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from memhtml.app import error_codes
from memhtml.app.cli import front_door, front_door_text, logs
from memhtml.app.cli.app import cli
from memhtml.app.cli.front_door import LOG_LEVEL_NAMES, quick_answer
from memhtml.app.cli.front_door_render import REGENERATE, TEXTS, printed
from memhtml.app.cli.global_options import GLOBAL_FLAGS, REPO


def _flag_lists() -> Iterator[tuple[str, ...]]:
    """Every list of the flags the entry point answers, up to three, in every order."""
    spellings = ("--help", "-h", "--version", "--pretty", "--dense", "--json", "--quiet", "-q")
    yield ()
    for size in (1, 2, 3):
        yield from itertools.permutations(spellings, size)


@pytest.mark.parametrize(("name", "argv", "terminal"), TEXTS, ids=[t[0] for t in TEXTS])
def test_each_committed_text_is_what_the_program_prints(
    name: str, argv: tuple[str, ...], terminal: bool
) -> None:
    """front_door_text.py is current: each constant equals the program's output now."""
    expected = printed(cli, argv, terminal=terminal)
    actual = getattr(front_door_text, name)
    assert expected == actual, f"front_door_text.py is stale; regenerate it: {REGENERATE}"


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "pipe"])
def test_every_early_answer_equals_the_whole_programs(terminal: bool) -> None:
    """For every mix of the answered flags, at a terminal and in a pipe, the early answer is the
    program's own output, byte for byte."""
    mismatched = [
        argv
        for argv in _flag_lists()
        if quick_answer(argv, {}, terminal) != printed(cli, argv, terminal=terminal)
    ]
    assert [] == mismatched


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x"],
        ["--help", "search"],
        ["help"],
        ["manifest"],
        [REPO, "/tmp", "--help"],
        [f"{REPO}=/tmp"],
        ["--", "--help"],
        ["--helps"],
        ["-x"],
    ],
)
def test_anything_but_the_answered_flags_runs_the_program(argv: list[str]) -> None:
    """A command, a word, a value or an unknown flag is never answered early."""
    assert quick_answer(argv, {}, False) is None


@pytest.mark.parametrize(
    "environ",
    [{front_door.COMPLETE_VAR: "bash_complete"}, {"MEMHTML_LOG_LEVEL": "loud"}],
    ids=["completion", "bad-log-level"],
)
def test_an_environment_that_changes_the_answer_runs_the_program(environ: dict[str, str]) -> None:
    """A shell asking for completions, or a log level the program refuses, goes to the program."""
    assert quick_answer(["--help"], environ, False) is None


def test_a_valid_log_level_in_any_case_is_answered_early() -> None:
    """` Warning ` is a level the program accepts, so the answer is unchanged."""
    expected = front_door_text.HELP_ENVELOPE
    assert expected == quick_answer([], {"MEMHTML_LOG_LEVEL": " Warning "}, False)


def test_the_entry_points_copies_of_program_tables_agree() -> None:
    """Level names, exit statuses and flag spellings the entry point keeps are the program's."""
    spellings = {spelling for flag in GLOBAL_FLAGS for spelling in (flag.name, *flag.aliases)}
    expected = (tuple(logs.LEVELS), error_codes.EXIT_OK, error_codes.EXIT_RUNTIME, True)
    actual = (
        LOG_LEVEL_NAMES,
        front_door.EXIT_OK,
        front_door.EXIT_RUNTIME,
        front_door.ANSWERED <= spellings,
    )
    assert expected == actual
