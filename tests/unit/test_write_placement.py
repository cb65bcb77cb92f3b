"""Placement with collision suffixes, explicit paths, and caller paths that must stay inside."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.errors import Conflict, InvalidInput, InvalidMemory
from memhtml.domain.paths import SLUG_MAX, file_name, slugify
from memhtml.domain.placement import (
    explicit_path,
    free_path,
    is_safe_path,
    repo_path,
)


def test_first_free_name_is_the_plain_slug() -> None:
    """With nothing in the way the file is ``<dir>/<slug>.html``."""
    assert "areas/inbox/hello-world.html" == free_path(
        "areas/inbox", "Hello, World", "semantic", "2026-09-14", lambda _: True
    )


def test_collisions_count_from_two() -> None:
    """Taken names get ``-2``, ``-3``… in order."""
    taken = {"areas/inbox/x.html", "areas/inbox/x-2.html"}
    assert "areas/inbox/x-3.html" == free_path(
        "areas/inbox", "x", "semantic", "2026-09-14", lambda p: p not in taken
    )


def test_episodic_names_carry_the_write_date() -> None:
    """Episodic memories are prefixed ``YYYYMMDD-``."""
    assert "areas/inbox/20260914-standup.html" == free_path(
        "areas/inbox", "Standup", "episodic", "2026-09-14", lambda _: True
    )


def test_a_full_folder_is_a_conflict() -> None:
    """When no suffix is free the placement gives up with Conflict instead of looping."""
    with pytest.raises(Conflict):
        free_path("areas/inbox", "x", "semantic", "2026-09-14", lambda _: False)


@given(
    title=st.text(max_size=100),
    taken=st.integers(min_value=0, max_value=6),
)
@example(title="x-2", taken=2)
@example(title="a" * 90, taken=3)
def test_free_path_is_the_first_free_candidate(title: str, taken: int) -> None:
    """The answer is free, and every earlier candidate was taken."""
    candidates = [
        f"areas/inbox/{file_name(title, 'semantic', '2026-09-14', n)}" for n in range(1, 9)
    ]
    occupied = set(candidates[:taken])
    path = free_path("areas/inbox", title, "semantic", "2026-09-14", lambda p: p not in occupied)
    assert candidates[taken] == path
    assert len(path.removeprefix("areas/inbox/").removesuffix(".html")) <= SLUG_MAX


@given(title=st.text(max_size=100), taken=st.integers(min_value=0, max_value=5))
def test_collision_variants_are_distinct(title: str, taken: int) -> None:
    """No two suffix variants of one title name the same file, so a taken name never recurs."""
    names = [file_name(title, "semantic", "2026-09-14", n) for n in range(1, taken + 3)]
    assert len(names) == len(set(names))
    assert slugify(title) + ".html" == names[0]


def test_valid_explicit_path_is_normalised() -> None:
    """A leading slash and doubled slashes go; the path is otherwise used as given."""
    assert "projects/x/y.html" == explicit_path("//projects//x/y.html", strict=False)


@pytest.mark.parametrize("raw", ["notes/x.html", "projects/x.txt", "projects.html", "areas/.html"])
def test_unusable_explicit_paths_are_ignored_or_strictly_refused(raw: str) -> None:
    """Outside the buckets, not ``.html`` or one segment: ignored, or InvalidMemory when strict."""
    assert None is explicit_path(raw, strict=False)
    with pytest.raises(InvalidMemory, match="path-unusable"):
        explicit_path(raw, strict=True)


@pytest.mark.parametrize(
    "raw",
    [
        "../x.html",
        "projects/../../x.html",
        "projects/./x.html",
        "areas\\x.html",
        "areas/.git/x.html",
    ],
)
def test_explicit_paths_that_could_escape_are_refused(raw: str) -> None:
    """``..``, ``.``, backslashes and ``.git`` are refused even without ``strict_path``."""
    with pytest.raises(InvalidInput, match="inside the repository"):
        explicit_path(raw, strict=False)


def test_repo_paths_strip_one_leading_slash_run() -> None:
    """An href-style ``/areas/x.html`` names the repo path ``areas/x.html``."""
    assert "areas/x.html" == repo_path("/areas/x.html", "path")


@pytest.mark.parametrize("raw", ["", "/", "../etc/passwd", "areas//x.html", "a/\x00.html"])
def test_repo_paths_that_could_escape_are_refused(raw: str) -> None:
    """Empty, dot-dot, empty segment or NUL: InvalidInput naming the argument."""
    with pytest.raises(InvalidInput, match="src must be a path inside"):
        repo_path(raw, "src")


@given(
    path=st.lists(
        st.sampled_from(["a", "..", ".", "", ".git", "b\\c", "x.html"]), min_size=1, max_size=4
    ).map("/".join)
)
@example(path="a/../x.html")
def test_safe_paths_have_no_escaping_segment(path: str) -> None:
    """Safe exactly when no segment is empty, a dot form, ``.git`` or holds a backslash."""
    segments = path.split("/")
    escaping = any(s in {"", ".", ".."} or s.lower() == ".git" or "\\" in s for s in segments)
    assert (not escaping) == is_safe_path(path)
