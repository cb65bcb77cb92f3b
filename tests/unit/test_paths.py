"""PARA placement, slugs, collisions and archive paths (docs/format.md §11)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.paths import (
    SLUG_MAX,
    archive_path,
    file_name,
    is_archived_path,
    is_indexable_path,
    is_valid_explicit_path,
    normalize_path,
    origin_path,
    placement_dir,
    slugify,
    with_collision_suffix,
    workspace_of,
)
from memhtml.domain.vocabulary import WRITABLE_TYPES

SLUG_SHAPE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def test_slug_folds_accents_and_punctuation() -> None:
    """Accents fold to ASCII letters and punctuation runs become one hyphen."""
    assert "deploy-the-cafe-api-v2" == slugify("  Déploy: the Café API — v2!  ")


def test_slug_of_nothing_is_untitled() -> None:
    """A title with no slug characters still yields a usable name."""
    assert "untitled" == slugify("!!! ???")


@given(st.text(max_size=300))
@example("a" * 79 + "-b")
def test_slug_shape_and_budget(text: str) -> None:
    """Every slug is lowercase ASCII words joined by single hyphens, at most 80 long."""
    slug = slugify(text)
    assert SLUG_SHAPE.match(slug)
    assert len(slug) <= SLUG_MAX


@given(st.text(max_size=100))
def test_slug_is_idempotent(text: str) -> None:
    """Slugging a slug changes nothing."""
    assert slugify(text) == slugify(slugify(text))


@given(
    st.from_regex(SLUG_SHAPE, fullmatch=True).filter(lambda s: len(s) <= 80), st.integers(2, 999)
)
@example("a" * 78 + "-2", 2)
def test_collision_variant_fits_and_differs(slug: str, n: int) -> None:
    """The n-th variant ends in -n, stays within 80 and never equals its source."""
    variant = with_collision_suffix(slug, n)
    assert variant.endswith(f"-{n}")
    assert len(variant) <= SLUG_MAX
    assert variant != slug


def test_collision_that_would_rebuild_the_source_cuts_one_more() -> None:
    """A slug already ending in -2 at full length gets a distinct -2 variant."""
    slug = "a" * 77 + "-2"
    assert "a" * 76 + "-2" == with_collision_suffix(slug, 2)


@pytest.mark.parametrize(
    ("memory_type", "workspace", "tags", "expected"),
    [
        ("arc", "checkout", ("x",), "areas/arcs"),
        ("task", "Checkout API", (), "projects/checkout-api/tasks"),
        ("task", None, (), "areas/inbox/tasks"),
        ("semantic", "Checkout API", ("rate limits",), "projects/checkout-api"),
        ("semantic", None, (" ", "Rate Limits"), "resources/rate-limits"),
        ("procedural", None, ("ops",), "resources/ops"),
        ("precedent", None, ("law",), "resources/law"),
        ("episodic", None, ("ops",), "areas/inbox"),
        ("semantic", None, (), "areas/inbox"),
        ("semantic", "   ", (), "areas/inbox"),
    ],
)
def test_placement_rules_first_match_wins(
    memory_type: str, workspace: str | None, tags: tuple[str, ...], expected: str
) -> None:
    """Arc, task, workspace, tagged reference types, then the inbox."""
    assert expected == placement_dir(memory_type, workspace=workspace, tags=tags)


@given(st.sampled_from(WRITABLE_TYPES), st.none() | st.text(max_size=20), st.lists(st.text()))
def test_placement_never_routes_to_people(
    memory_type: str, workspace: str | None, tags: list[str]
) -> None:
    """No rule places a memory under resources/people/ (docs/decisions.md §13)."""
    directory = placement_dir(memory_type, workspace=workspace, tags=tags)
    assert not directory.startswith("resources/people")
    assert is_indexable_path(f"{directory}/x.html")


def test_episodic_file_name_gets_date_prefix_outside_budget() -> None:
    """Episodic names carry YYYYMMDD- in front of a full 80-character slug."""
    name = file_name("x" * 200, "episodic", "2026-11-29")
    assert "20261129-" + "x" * 80 + ".html" == name


def test_file_name_collision_variant() -> None:
    """The second file with one title gets -2."""
    assert "rate-limit-2.html" == file_name("Rate limit", "semantic", "2026-11-29", collision=2)


@pytest.mark.parametrize(
    ("path", "valid"),
    [
        ("resources/a.html", True),
        ("/resources//a.html/", True),
        ("a.html", False),
        ("notes/a.html", False),
        ("resources/../a.html", False),
        ("resources/./a.html", False),
        ("resources/a.txt", False),
        ("resources/.html", False),
    ],
)
def test_explicit_path_validity(path: str, valid: bool) -> None:
    """Explicit paths need a bucket, two segments, .html and no dot segments."""
    assert valid == is_valid_explicit_path(path)


def test_normalize_path_strips_and_collapses() -> None:
    """Leading, repeated and trailing slashes go."""
    assert "resources/a/b.html" == normalize_path("//resources//a/b.html/")


@pytest.mark.parametrize(
    ("path", "indexed"),
    [
        ("areas/inbox/x.html", True),
        ("archive/2026/areas/inbox/x.html", True),
        ("areas/index.html", False),
        ("resources/deep/sitemap.xml", False),
        ("README.html", False),
        (".memhtml/x.html", False),
        ("areas/x.htm", False),
    ],
)
def test_indexable_paths(path: str, indexed: bool) -> None:
    """Only .html under a bucket, generated names excluded."""
    assert indexed == is_indexable_path(path)


@given(st.from_regex(r"(projects|areas|resources)(/[a-z0-9-]{1,8}){1,3}\.html", fullmatch=True))
def test_archive_round_trip(path: str) -> None:
    """origin_path inverts archive_path, and the archived copy is archived."""
    moved = archive_path(path, 2026)
    assert path == origin_path(moved)
    assert is_archived_path(moved)
    assert not is_archived_path(path)


def test_origin_path_strips_exactly_one_prefix() -> None:
    """A doubly archived path keeps its inner archive prefix."""
    assert "archive/2025/a/b.html" == origin_path("archive/2026/archive/2025/a/b.html")
    assert origin_path("areas/x.html") is None


def test_workspace_is_directory_under_projects() -> None:
    """Only the folder directly under projects/ is a workspace."""
    assert "checkout" == workspace_of("projects/checkout/tasks/t.html")
    assert workspace_of("projects/x.html") is None
    assert workspace_of("areas/checkout/x.html") is None
