"""The assembled scope filter against its pure twin, ``domain.scope.scope_admits``."""

from __future__ import annotations

import re
from typing import Final

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.connection import Database
from memhtml.adapters.sqlite.retrieval_sql import FusionPlan, build_rrf_sql
from memhtml.adapters.sqlite.scope_sql import (
    FIRST_SCOPE_PARAM,
    assemble_scope,
    facet_conditions,
)
from memhtml.domain.fusion import RANK_ARMS
from memhtml.domain.scope import FacetFilter, SearchScope, is_narrowing, scope_admits
from memhtml.domain.vocabulary import MEMORY_TYPES
from tests.fakes.retrieval_rows import MemoryRow, load_rows, open_index, scope_facts
from tests.strategies import (
    optional_stamps,
    scope_entity_pairs,
    scope_facet_pairs,
    scope_tags,
    small_stamps,
)

PATHS: Final = (
    "areas/a.html",
    "areas/b.html",
    "projects/checkout-api/c.html",
    "projects/ops/d.html",
    "resources/e.html",
    "archive/2025/f.html",
    "archive/2026/g.html",
)
DEFAULT_FILTER: Final = "AND {alias}.archived = 0 AND {alias}.memory_type <> 'task'"


@st.composite
def scoped_rows(draw: st.DrawFn) -> tuple[MemoryRow, ...]:
    """Memories with overlapping tags, entities, facets, workspaces and validity stamps."""
    paths = draw(st.lists(st.sampled_from(PATHS), unique=True, min_size=1))
    return tuple(
        MemoryRow(
            path=path,
            memory_type=draw(st.sampled_from(MEMORY_TYPES)),
            workspace=draw(st.sampled_from([None, "checkout-api", "ops"])),
            tags=draw(st.frozensets(scope_tags.map(str.strip), max_size=2)),
            entities=draw(st.frozensets(scope_entity_pairs, max_size=3)),
            facets=draw(st.frozensets(scope_facet_pairs, max_size=3)),
            created_at=draw(small_stamps),
            event_at=draw(optional_stamps),
            valid_from=draw(optional_stamps),
            valid_until=draw(optional_stamps),
        )
        for path in paths
    )


scopes = st.builds(
    SearchScope,
    workspace=st.sampled_from([None, "Checkout API", "checkout-api", "ops", "  "]),
    tags=st.lists(scope_tags, max_size=3),
    entity=st.sampled_from(
        [None, "person:sasha", "PERSON:Sasha", "place:café", "place:CAFÉ", "a:b:c", "sasha"]
    ),
    facets=st.lists(scope_facet_pairs.map(lambda p: FacetFilter(name=p[0], value=p[1]))),
    memory_types=st.lists(st.sampled_from(MEMORY_TYPES), max_size=3),
    include_archived=st.booleans(),
    as_of=st.one_of(st.none(), small_stamps),
)


def _sql_paths(db: Database, scope: SearchScope, *, archived_only: bool = False) -> set[str]:
    assembled = assemble_scope(scope, archived_only=archived_only)
    params = (None,) * (FIRST_SCOPE_PARAM - 1) + assembled.params if assembled.params else ()
    rows = db.all(f"SELECT f.path FROM files f WHERE 1 {assembled.for_alias('f')}", params)
    return {str(row[0]) for row in rows}


@settings(max_examples=300, deadline=None)
@given(rows=scoped_rows(), scope=scopes)
@example(
    rows=(MemoryRow(path="areas/a.html", entities=frozenset({("place", "CAFÉ")})),),
    scope=SearchScope(entity="PLACE:CAFÉ"),
)
@example(
    rows=(MemoryRow(path="areas/a.html", facets=frozenset({("tier", "1")})),),
    scope=SearchScope(
        facets=(FacetFilter(name="doc-type", value="guide"), FacetFilter(name="tier", value="1"))
    ),
)
def test_scope_filter_admits_what_the_twin_admits(
    rows: tuple[MemoryRow, ...], scope: SearchScope
) -> None:
    """Row for row, the SQL filter and scope_admits agree (facets AND across names, OR within)."""
    db = open_index()
    load_rows(db, rows)
    expected = {row.path for row in rows if scope_admits(scope, scope_facts(row))}
    assert expected == _sql_paths(db, scope)


@settings(max_examples=150, deadline=None)
@given(rows=scoped_rows(), scope=scopes)
def test_archived_only_flips_the_archived_axis_alone(
    rows: tuple[MemoryRow, ...], scope: SearchScope
) -> None:
    """The pointer's filter is the same scope over archived rows: every other axis unchanged."""
    db = open_index()
    load_rows(db, rows)
    widened = attrs.evolve(scope, include_archived=True)
    expected = {
        row.path for row in rows if row.archived and scope_admits(widened, scope_facts(row))
    }
    assert expected == _sql_paths(db, scope, archived_only=True)


def test_an_unscoped_filter_is_the_plain_default() -> None:
    """No scope, the empty scope and an absent as_of all give the default filter, unbound."""
    expected = (DEFAULT_FILTER, ())
    for scope in (None, SearchScope(), SearchScope(as_of=None)):
        assembled = assemble_scope(scope)
        assert expected == (assembled.file_filter, assembled.params)


def test_unscoped_statement_is_byte_identical_to_the_unfiltered_form() -> None:
    """Passing the empty scope builds the very statement the default scope builds, and binds
    nothing after ?5 but the time arms' windows (the first place after the scope's values) and
    the salience instant after them."""
    plan = FusionPlan(arms=RANK_ARMS, embed_model="m@1", now="2026-01-01T00:00:00Z")
    expected = build_rrf_sql(plan, assemble_scope())
    assert expected == build_rrf_sql(plan, assemble_scope(SearchScope(as_of=None)))
    assert expected is not None
    assert {6, 7} == {int(n) for n in re.findall(r"\?(\d+)", expected) if int(n) > 5}
    untimed = attrs.evolve(
        plan, arms=tuple(arm for arm in RANK_ARMS if arm.name not in ("time", "time_words"))
    )
    assert {6} == {
        int(n) for n in re.findall(r"\?(\d+)", build_rrf_sql(untimed, assemble_scope()) or "")
    } - {1, 2, 3, 4, 5}


@given(scope=scopes)
def test_scope_values_bind_from_six_in_order(scope: SearchScope) -> None:
    """Placeholders run ?6, ?7, … with one value each, and the filter names no other."""
    assembled = assemble_scope(scope)
    numbers = sorted({int(n) for n in re.findall(r"\?(\d+)", assembled.file_filter)})
    expected = list(range(FIRST_SCOPE_PARAM, FIRST_SCOPE_PARAM + len(assembled.params)))
    assert expected == numbers


def test_facets_build_one_exists_per_name() -> None:
    """Two values of one name share an IN list; a second name is a second EXISTS."""
    bound: list[str] = []

    def bind(value: str) -> str:
        bound.append(value)
        return "?"

    scope = SearchScope(
        facets=(
            FacetFilter(name="doc-type", value="runbook"),
            FacetFilter(name="tier", value="1"),
            FacetFilter(name="doc-type", value="guide"),
        )
    )
    conditions = facet_conditions(scope.facet_groups(), "f", bind)
    assert 2 == len(conditions)
    assert ["doc-type", "runbook", "guide", "tier", "1"] == bound
    assert "scope_facet.value IN (?, ?)" in conditions[0]


@pytest.mark.parametrize(
    ("scope", "expected"),
    [
        (SearchScope(), False),
        (SearchScope(include_archived=True), False),
        (SearchScope(workspace="ops"), True),
        (SearchScope(tags=("x",)), True),
        (SearchScope(entity="a:b"), True),
        (SearchScope(facets=(FacetFilter(name="a", value="b"),)), True),
        (SearchScope(memory_types=("task",)), True),
        (SearchScope(as_of="2026-01-01"), True),
    ],
)
def test_only_a_narrowing_axis_names_a_scope(scope: SearchScope, expected: bool) -> None:
    """include_archived alone widens, so an empty result under it is not an empty scope."""
    assert expected == is_narrowing(scope)
