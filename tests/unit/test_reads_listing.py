"""``list`` over fakes: validation, the archive bucket, freshness, and keyset paging."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.html import parse_memory
from memhtml.app.use_cases.listing import (
    MAX_LIST_LIMIT,
    ListRequest,
    facet_filters,
    list_scope,
    list_with,
)
from memhtml.domain.errors import InvalidInput
from memhtml.ports.lister import ListedMemory
from tests.fakes.git import FakeGit
from tests.fakes.read_plane import FakeLister
from tests.fakes.write_plane import FakeIndex


def _row(path: str, memory_type: str = "semantic") -> ListedMemory:
    return ListedMemory(
        path=path,
        title=path,
        memory_type=memory_type,
        gist="",
        workspace=None,
        para=path.split("/", 1)[0],
        confidence=1.0,
        importance=5,
        archived=path.startswith("archive/"),
        updated_at="2026-01-01T00:00:00Z",
    )


@given(limit=st.integers(min_value=-5, max_value=MAX_LIST_LIMIT + 5))
@example(limit=0)
@example(limit=MAX_LIST_LIMIT + 1)
def test_the_limit_is_accepted_exactly_inside_1_to_500(limit: int) -> None:
    """Limits 1–500 pass; anything else is bad input."""
    request = ListRequest(limit=limit)
    if 1 <= limit <= MAX_LIST_LIMIT:
        assert list_scope(request).include_archived is False
    else:
        with pytest.raises(InvalidInput):
            list_scope(request)


def test_an_unknown_bucket_is_refused() -> None:
    """``--para`` names one of the four PARA buckets."""
    with pytest.raises(InvalidInput):
        list_scope(ListRequest(para="inbox"))


def test_the_archive_bucket_admits_archived_memories() -> None:
    """Listing the archive bucket needs no --include-archived."""
    assert list_scope(ListRequest(para="archive")).include_archived is True
    assert list_scope(ListRequest(para="areas")).include_archived is False


def test_a_malformed_facet_spec_is_refused() -> None:
    """``tier`` without ``=`` is a typo the caller hears about (docs/decisions.md §17)."""
    with pytest.raises(InvalidInput):
        facet_filters(["tier"])


paths = st.lists(
    st.sampled_from(
        ["areas/a.html", "areas/b.html", "projects/x/c.html", "resources/d.html", "areas/é.html"]
    ),
    unique=True,
)


@given(rows=paths, limit=st.integers(min_value=1, max_value=4))
@example(rows=["areas/a.html", "areas/b.html"], limit=1)
def test_following_cursors_lists_every_memory_once_in_path_order(
    rows: list[str], limit: int
) -> None:
    """Pages chained by next_cursor concatenate to the sorted paths, the last page without one."""
    index = FakeIndex(FakeGit(), parse_memory)
    lister = FakeLister([_row(p) for p in rows])
    seen: list[str] = []
    cursor: str | None = None
    for _ in range(len(rows) + 1):
        page = list_with(index, lister, ListRequest(limit=limit, cursor=cursor), embed=False)
        seen += [f.path for f in page.files]
        # A cursor is handed out only when another memory follows.
        assert page.next_cursor is None or len(seen) < len(rows)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert sorted(rows) == seen
    assert None is cursor


def test_listing_runs_a_freshness_update_first() -> None:
    """The index is updated once before the page is read."""
    index = FakeIndex(FakeGit(), parse_memory)
    result = list_with(index, FakeLister([]), ListRequest(), embed=False)
    assert (1, True) == (index.updates, result.index_fresh)
