"""Which root a command uses: --repo, else MEMHTML_ROOT, else the nearest store above the
working directory, else ~/memhtml; and the refusal switch."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.cli.config_root import (
    FALSY,
    SOURCE_DEFAULT,
    SOURCE_DISCOVERED,
    TRUTHY,
    RootChoice,
    check_initialized,
    choose_root,
    env_switch,
    resolve_root,
)
from memhtml.app.errors import RepoRequired
from memhtml.domain.errors import InvalidInput

HOME = Path("/home/ada")
CWD = Path("/work")


def no_store(_: Path) -> bool:
    """A filesystem without any store."""
    return False


def test_repo_flag_wins_over_the_environment() -> None:
    """--repo beats MEMHTML_ROOT."""
    root = resolve_root("/flag", {"MEMHTML_ROOT": "/env"}, HOME, CWD)
    assert Path("/flag") == root


def test_environment_root_is_used_without_the_flag() -> None:
    """MEMHTML_ROOT names the root when --repo is absent."""
    assert Path("/env") == resolve_root(None, {"MEMHTML_ROOT": "/env"}, HOME, CWD)


@pytest.mark.parametrize("environ", [{}, {"MEMHTML_ROOT": ""}, {"MEMHTML_ROOT": "  "}])
def test_default_root_is_memhtml_in_home(environ: dict[str, str]) -> None:
    """Unset or empty MEMHTML_ROOT falls back to ~/memhtml."""
    assert HOME / "memhtml" == resolve_root(None, environ, HOME, CWD, is_store=no_store)


def test_relative_roots_are_made_absolute_and_tilde_is_home() -> None:
    """A relative root hangs off the working directory; `~` and `~/x` off the home."""
    assert CWD / "mem" == resolve_root("mem", {}, HOME, CWD)
    assert HOME / "x" == resolve_root("~/x", {}, HOME, CWD)
    assert HOME == resolve_root("~", {}, HOME, CWD)


def test_refusal_switch_demands_the_flag() -> None:
    """MEMHTML_REFUSE_ENV_ROOT truthy without --repo refuses, suggesting --repo."""
    environ = {"MEMHTML_REFUSE_ENV_ROOT": "1", "MEMHTML_ROOT": "/env"}
    with pytest.raises(RepoRequired) as caught:
        resolve_root(None, environ, HOME, CWD)
    assert ("pass --repo PATH",) == caught.value.suggestions
    assert Path("/flag") == resolve_root("/flag", environ, HOME, CWD)


@given(st.sampled_from(sorted(TRUTHY | FALSY)), st.sampled_from(["", " ", "\t"]), st.booleans())
def test_switch_values_ignore_case_and_surrounding_space(word: str, pad: str, upper: bool) -> None:
    """`ON`, ` yes `, `False`… read like their lowercase selves."""
    raw = pad + (word.upper() if upper else word) + pad
    assert (word in TRUTHY) == env_switch({"X": raw}, "X")


@pytest.mark.parametrize("raw", ["", "   "])
def test_switch_unset_or_empty_is_off(raw: str) -> None:
    """An empty switch is off, like an unset one."""
    assert (False, False) == (env_switch({"X": raw}, "X"), env_switch({}, "X"))


def test_a_switch_typo_is_refused() -> None:
    """`MEMHTML_REFUSE_ENV_ROOT=ture` must not quietly mean off."""
    with pytest.raises(InvalidInput, match="MEMHTML_REFUSE_ENV_ROOT"):
        resolve_root(None, {"MEMHTML_REFUSE_ENV_ROOT": "ture"}, HOME, CWD)


def test_the_nearest_store_above_the_working_directory_is_found() -> None:
    """Without --repo and MEMHTML_ROOT the closest enclosing store wins, as git's search does."""
    stores = {Path("/srv"), Path("/srv/notes")}
    cwd = Path("/srv/notes/areas/inbox")
    choice = choose_root(None, {}, HOME, cwd, is_store=lambda p: p in stores)
    assert (Path("/srv/notes"), SOURCE_DISCOVERED) == (choice.path, choice.source)


def test_an_explicit_root_is_final_even_inside_another_store() -> None:
    """--repo and MEMHTML_ROOT are never overridden by a store around the working directory."""
    inside = Path("/srv/notes")
    assert Path("/env") == resolve_root(None, {"MEMHTML_ROOT": "/env"}, HOME, inside, is_store=bool)
    assert Path("/flag") == resolve_root("/flag", {}, HOME, inside, is_store=bool)


def test_without_a_store_anywhere_the_default_names_what_was_searched() -> None:
    """Falling back to ~/memhtml records the flag, the variable and the directories tried."""
    choice = choose_root(None, {}, HOME, CWD, is_store=no_store)
    assert (HOME / "memhtml", SOURCE_DEFAULT) == (choice.path, choice.source)
    assert "no store in /work or any directory above it" in choice.searched


def test_an_uninitialized_default_root_names_the_search_in_its_error(tmp_path: Path) -> None:
    """The refusal says no store was found above the working directory and suggests init."""
    choice = RootChoice(path=tmp_path, source=SOURCE_DEFAULT, searched=("--repo not given",))
    with pytest.raises(RepoRequired) as caught:
        check_initialized(choice)
    message = str(caught.value)
    assert message.startswith("no memhtml store found (--repo not given;")
    assert f"memhtml init --repo {tmp_path}" == caught.value.suggestions[0]


def test_an_uninitialized_named_root_says_where_it_came_from(tmp_path: Path) -> None:
    """A root from MEMHTML_ROOT that is not a store is refused naming the variable."""
    choice = RootChoice(path=tmp_path, source="MEMHTML_ROOT")
    with pytest.raises(RepoRequired, match=r"\(from MEMHTML_ROOT\) is not an initialized"):
        check_initialized(choice)
