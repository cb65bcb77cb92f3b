"""The SQLite lister against the scope twin: list admits exactly what search's scope admits."""

from __future__ import annotations

from typing import Final

from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.listing_sql import SqliteLister
from memhtml.domain.scope import FacetFilter, SearchScope, scope_admits
from memhtml.domain.vocabulary import MEMORY_TYPES
from tests.fakes.retrieval_rows import MemoryRow, load_rows, open_index, scope_facts
from tests.strategies import scope_entity_pairs, scope_facet_pairs, scope_tags

PATHS: Final = (
    "areas/a.html",
    "areas/b.html",
    "areas/é.html",
    "projects/checkout-api/c.html",
    "resources/e.html",
    "archive/2026/g.html",
)


@st.composite
def listed_rows(draw: st.DrawFn) -> tuple[MemoryRow, ...]:
    """Memories with overlapping tags, entities, facets and workspaces."""
    paths = draw(st.lists(st.sampled_from(PATHS), unique=True))
    return tuple(
        MemoryRow(
            path=path,
            memory_type=draw(st.sampled_from(MEMORY_TYPES)),
            workspace=draw(st.sampled_from([None, "checkout-api"])),
            tags=draw(st.frozensets(scope_tags.map(str.strip), max_size=2)),
            entities=draw(st.frozensets(scope_entity_pairs, max_size=2)),
            facets=draw(st.frozensets(scope_facet_pairs, max_size=2)),
        )
        for path in paths
    )


list_scopes = st.builds(
    SearchScope,
    workspace=st.sampled_from([None, "Checkout API"]),
    tags=st.lists(scope_tags, max_size=2),
    entity=st.sampled_from([None, "person:sasha", "PLACE:CAFÉ"]),
    facets=st.lists(scope_facet_pairs.map(lambda p: FacetFilter(name=p[0], value=p[1]))),
    memory_types=st.lists(st.sampled_from(MEMORY_TYPES), max_size=2),
    include_archived=st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(
    rows=listed_rows(),
    scope=list_scopes,
    para=st.sampled_from([None, "areas", "archive"]),
    limit=st.integers(min_value=1, max_value=3),
)
@example(
    rows=(
        MemoryRow(path="areas/a.html", facets=frozenset({("tier", "1"), ("doc-type", "guide")})),
    ),
    scope=SearchScope(
        facets=(FacetFilter(name="tier", value="1"), FacetFilter(name="doc-type", value="guide"))
    ),
    para="areas",
    limit=1,
)
def test_pages_chained_by_cursor_equal_the_twins_admitted_paths(
    rows: tuple[MemoryRow, ...], scope: SearchScope, para: str | None, limit: int
) -> None:
    """Every page followed to the end lists exactly the admitted paths, sorted, once each."""
    db = open_index()
    try:
        load_rows(db, rows)
        lister = SqliteLister(db)
        listed: list[str] = []
        cursor: str | None = None
        for _ in range(len(rows) + 1):
            page = lister.list_page(scope, para=para, after=cursor, limit=limit)
            assert len(page.files) <= limit
            listed += [f.path for f in page.files]
            # A cursor is handed out only when another admitted memory follows.
            assert page.next_cursor is None or len(listed) < len(
                [
                    r
                    for r in rows
                    if scope_admits(scope, scope_facts(r)) and (para is None or r.para == para)
                ]
            )
            cursor = page.next_cursor
            if cursor is None:
                break
        expected = sorted(
            row.path
            for row in rows
            if scope_admits(scope, scope_facts(row)) and (para is None or row.para == para)
        )
        assert expected == listed
    finally:
        db.close()
