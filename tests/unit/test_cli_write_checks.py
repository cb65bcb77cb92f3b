"""The argument checks of the committing commands: explicit paths and relation names."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.app.cli.commands.write_checks import (
    UnknownRelation,
    checked_relation,
    checked_write_path,
)
from memhtml.domain.errors import InvalidInput
from memhtml.domain.paths import is_valid_explicit_path, normalize_path
from memhtml.domain.vocabulary import LINKABLE_RELS

segments = st.sampled_from(["areas", "inbox", "x.html", "..", ".git", "etc", "a.txt", "", "b"])


@given(st.lists(segments, min_size=1, max_size=4), st.booleans())
@example(["etc", "passwd"], True)
@example([".memhtml", "x.html"], False)
def test_a_path_is_returned_exactly_when_it_is_a_memory_path(parts: list[str], lead: bool) -> None:
    """Usable paths come back normalised; every other one is refused, never ignored."""
    raw = ("/" if lead else "") + "/".join(parts)
    if is_valid_explicit_path(raw) and ".." not in parts and ".git" not in parts:
        assert normalize_path(raw) == checked_write_path(raw)
    else:
        with pytest.raises(InvalidInput, match=r"^--path "):
            checked_write_path(raw)


def test_no_path_means_placement_decides() -> None:
    """Without --path nothing is checked."""
    assert None is checked_write_path(None)


@given(st.sampled_from(LINKABLE_RELS))
def test_every_linkable_relation_passes(rel: str) -> None:
    """The vocabulary itself is accepted as is."""
    assert rel == checked_relation("areas/a.html", rel, "areas/b.html")


def test_a_near_miss_relation_is_refused_with_runnable_suggestions() -> None:
    """`related` is not a relation; the refusal offers the link with `relates_to`."""
    with pytest.raises(UnknownRelation) as caught:
        checked_relation("areas/a b.html", "related", "areas/b.html")
    assert ("memhtml link 'areas/a b.html' relates_to areas/b.html",) == caught.value.suggestions
