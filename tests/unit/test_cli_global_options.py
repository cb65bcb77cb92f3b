"""Global options lifted out of the argument list wherever they stand, following the tree."""

from __future__ import annotations

import click
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.global_options import GlobalOptions, scan_arguments

GLOBAL_TOKENS = ["--dense", "--json", "--pretty", "-h", "--help"]


def _tree() -> click.Group:
    root = click.Group("memhtml")
    write = click.Command(
        "write",
        params=[
            click.Option(["--title"]),
            click.Option(["--tag"], multiple=True),
            click.Option(["--flag/--no-flag"]),
            click.Option(["--pair"], nargs=2),
            click.Argument(["words"], nargs=-1),
        ],
    )
    index = click.Group("index", commands=[click.Command("rebuild")])
    root.add_command(write)
    root.add_command(index)
    return root


TREE = _tree()
# Tokens that are never global and never take a value, so the scan must keep them untouched.
plain_tokens = st.sampled_from(["alpha", "beta", "--flag", "--no-flag", "-", "--tag=x", "é"])


def test_global_flags_before_and_after_the_command_mean_the_same() -> None:
    """`--dense write` and `write --dense` both set dense and leave `write` for click."""
    before = scan_arguments(TREE, ["--dense", "--repo", "/r", "write", "x"])
    after = scan_arguments(TREE, ["write", "x", "--repo=/r", "--dense"])
    assert before.options == after.options == GlobalOptions(repo="/r", dense=True)
    assert ("write", "x") == before.rest == after.rest
    assert ("write",) == before.command_path == after.command_path


@given(st.lists(st.one_of(plain_tokens, st.sampled_from(GLOBAL_TOKENS)), max_size=10))
@example(["alpha", "--pretty", "--flag"])
@example(["-h", "-"])
def test_globals_are_removed_and_everything_else_kept_in_order(tokens: list[str]) -> None:
    """Global flags anywhere after the command vanish; the other words stay, in order."""
    scanned = scan_arguments(TREE, ["write", *tokens])
    assert ("write", *(t for t in tokens if t not in GLOBAL_TOKENS)) == scanned.rest
    expected = GlobalOptions(
        dense="--dense" in tokens,
        pretty="--pretty" in tokens,
        help=bool({"-h", "--help"} & set(tokens)),
    )
    assert expected == scanned.options


def test_an_option_value_that_looks_global_stays_a_value() -> None:
    """`--title --dense` titles the memory "--dense"; it does not turn dense on."""
    scanned = scan_arguments(TREE, ["write", "--title", "--dense", "--pair", "-h", "--pretty"])
    assert GlobalOptions() == scanned.options
    assert ("write", "--title", "--dense", "--pair", "-h", "--pretty") == scanned.rest


def test_after_the_end_of_options_marker_everything_is_an_argument() -> None:
    """Words after `--` are literal, even `--dense`."""
    scanned = scan_arguments(TREE, ["write", "--", "--dense", "-h"])
    assert GlobalOptions() == scanned.options
    assert ("write", "--", "--dense", "-h") == scanned.rest


def test_last_repo_wins() -> None:
    """Repeating --repo keeps the last value, as click does for any option."""
    assert "/b" == scan_arguments(TREE, ["--repo", "/a", "write", "--repo=/b"]).options.repo


def test_repo_without_a_value_is_recorded_not_guessed() -> None:
    """A trailing --repo (or --repo=) is a problem to refuse, not a repo named ''."""
    assert "--repo" == scan_arguments(TREE, ["write", "--repo"]).missing_value
    assert "--repo" == scan_arguments(TREE, ["--repo=", "write"]).missing_value
    assert scan_arguments(TREE, ["write", "--repo"]).options.repo is None


def test_nested_commands_resolve_to_their_path() -> None:
    """`index rebuild` is a two-word command path."""
    scanned = scan_arguments(TREE, ["index", "--dense", "rebuild"])
    assert ("index", "rebuild") == scanned.command_path
    assert () == scanned.unresolved


def test_unknown_words_are_kept_for_suggestions() -> None:
    """From the first word a group does not know, the positional words are kept in order."""
    scanned = scan_arguments(TREE, ["index", "rebild", "--flag", "now"])
    assert ("index",) == scanned.command_path
    assert ("rebild", "now") == scanned.unresolved
    assert ("index", "rebild", "--flag", "now") == scanned.rest


def test_arguments_of_a_command_are_not_unresolved() -> None:
    """Positional words after a runnable command are its arguments, not unknown commands."""
    assert () == scan_arguments(TREE, ["write", "x", "y"]).unresolved
