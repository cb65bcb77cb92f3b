"""The OpenMP variables the e5 engine loads under, and their scope in the process environment."""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.adapters.e5.openmp import (
    OMP_NUM_THREADS,
    OMP_WAIT_POLICY,
    openmp_settings,
    scoped_environment,
)

_NAMES = st.sampled_from(["MEMHTML_TEST_E5_A", "MEMHTML_TEST_E5_B", "MEMHTML_TEST_E5_C"])
_VALUES = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)


@given(threads=st.integers(1, 256))
def test_passive_waiting_unless_the_environment_names_a_policy(threads: int) -> None:
    """Unset or blank: PASSIVE. The thread count is always the configured one, as text."""
    expected = {OMP_WAIT_POLICY: "PASSIVE", OMP_NUM_THREADS: str(threads)}
    assert expected == openmp_settings(threads, {})
    assert expected == openmp_settings(threads, {OMP_WAIT_POLICY: "  "})
    assert expected == openmp_settings(threads, {OMP_NUM_THREADS: "64"})


@given(policy=st.sampled_from(["ACTIVE", "active", "PASSIVE"]))
def test_a_policy_the_user_chose_is_kept(policy: str) -> None:
    """A user who set OMP_WAIT_POLICY gets it: the choice was theirs to make."""
    assert policy == openmp_settings(2, {OMP_WAIT_POLICY: policy})[OMP_WAIT_POLICY]


def test_threads_below_one_are_refused() -> None:
    """Zero threads is a bug in the caller, not a setting."""
    with pytest.raises(ValueError, match="at least 1"):
        openmp_settings(0, {})


@given(
    before=st.dictionaries(_NAMES, _VALUES, max_size=3),
    inside=st.dictionaries(_NAMES, _VALUES, min_size=1, max_size=3),
)
def test_the_environment_is_put_back_exactly(
    before: dict[str, str], inside: dict[str, str]
) -> None:
    """Inside the block the values hold; after it every name is as it was, set or unset."""
    names = ("MEMHTML_TEST_E5_A", "MEMHTML_TEST_E5_B", "MEMHTML_TEST_E5_C")
    for name in names:
        os.environ.pop(name, None)
    os.environ.update(before)
    try:
        with scoped_environment(inside):
            during = {name: os.environ.get(name) for name in inside}
        after = {name: os.environ.get(name) for name in names}
    finally:
        for name in names:
            os.environ.pop(name, None)
    assert dict(inside) == during
    assert {name: before.get(name) for name in names} == after


def test_the_environment_is_put_back_when_the_block_raises() -> None:
    """A load that fails inside the block leaves no variable of ours behind."""
    name = "MEMHTML_TEST_E5_A"
    os.environ.pop(name, None)
    with pytest.raises(RuntimeError), scoped_environment({name: "x"}):
        raise RuntimeError("engine refused to load")
    assert name not in os.environ
