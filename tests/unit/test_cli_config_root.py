"""Which root a command uses: --repo, else MEMHTML_ROOT, else ~/memhtml; and the refusal switch."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.app.cli.config_root import FALSY, TRUTHY, env_switch, resolve_root
from memhtml.app.errors import RepoRequired
from memhtml.domain.errors import InvalidInput

HOME = Path("/home/ada")
CWD = Path("/work")


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
    assert HOME / "memhtml" == resolve_root(None, environ, HOME, CWD)


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
