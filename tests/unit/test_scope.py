"""Search scope values, facet parsing, and the pure scope predicate every arm shares."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.scope import (
    EXCLUDED_BY_DEFAULT,
    FACET_SEPARATOR,
    FacetFilter,
    ScopeFacts,
    SearchScope,
    ascii_fold,
    parse_facet_filter,
    parse_facet_filter_strict,
    parse_facet_filters,
    scope_admits,
)
from memhtml.domain.vocabulary import MEMORY_TYPES
from tests.strategies import (
    facet_specs,
    optional_stamps,
    scope_entity_pairs,
    scope_facet_pairs,
    scope_tags,
    small_stamps,
)

C = "2026-01-01T00:00:00Z"
AS_OF_STAMPS = ["2026-01-01T00:00:00Z", "2026-06-01T00:00:00Z", "2027-01-01"]

facets = st.builds(lambda pair: FacetFilter(name=pair[0], value=pair[1]), scope_facet_pairs)
# Both strategies lean toward empty axes and matching values, so a random scope admits a random
# file often enough for the monotonicity properties below to have something to lose.
scope_facts = st.builds(
    ScopeFacts,
    path=st.just("projects/checkout-api/a.html"),
    memory_type=st.sampled_from(["semantic", "semantic", "task", "episodic"]),
    archived=st.booleans(),
    workspace=st.sampled_from([None, "checkout-api", "checkout-api", "other"]),
    tags=st.frozensets(scope_tags, max_size=3),
    entities=st.frozensets(scope_entity_pairs, max_size=3),
    facets=st.frozensets(scope_facet_pairs, max_size=4),
    valid_from=optional_stamps,
    valid_until=optional_stamps,
    event_at=optional_stamps,
    created_at=small_stamps,
)
scopes = st.builds(
    SearchScope,
    workspace=st.sampled_from([None, None, "Checkout API", "other"]),
    tags=st.lists(scope_tags, max_size=2),
    entity=st.sampled_from(
        [None, None, None, "person:sasha", "PERSON:SASHA", "place:café", "a:b:c", "sasha"]
    ),
    facets=st.lists(facets, max_size=2),
    memory_types=st.sampled_from([(), (), ("semantic",), ("semantic", "task")]),
    include_archived=st.booleans(),
    as_of=st.sampled_from([None, None, *AS_OF_STAMPS]),
)


def _facts(**changes: Any) -> ScopeFacts:
    base = ScopeFacts(path="resources/a.html", memory_type="semantic", created_at=C)
    return attrs.evolve(base, **changes)


def _tags_and_facets_only(
    scope: SearchScope, *, tags: bool = True, facets: bool = True
) -> SearchScope:
    """The scope with the other narrowing axes cleared, so random files are often admitted."""
    return attrs.evolve(
        scope,
        workspace=None,
        entity=None,
        as_of=None,
        tags=scope.tags if tags else (),
        facets=scope.facets if facets else (),
    )


# --- facet parsing ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("doc-type=runbook", FacetFilter(name="doc-type", value="runbook")),
        ("  tier =  1 ", FacetFilter(name="tier", value="1")),
        ("query=a=b", FacetFilter(name="query", value="a=b")),
        ("=x", None),
        ("x=", None),
        ("x", None),
        (" = ", None),
        ("", None),
    ],
)
def test_parse_facet_filter(spec: str, expected: FacetFilter | None) -> None:
    """Split at the first `=`, trim both halves, refuse an empty half."""
    assert expected == parse_facet_filter(spec)


def test_parse_facet_filters_drops_malformed_and_repeats_in_order() -> None:
    """The library drops bad specs silently and collapses exact repeats, keeping first order."""
    specs = ["tier=1", "tier", "doc-type=guide", " tier = 1", "=x", "tier=2"]
    expected = (
        FacetFilter(name="tier", value="1"),
        FacetFilter(name="doc-type", value="guide"),
        FacetFilter(name="tier", value="2"),
    )
    assert expected == parse_facet_filters(specs)


def test_the_strict_parser_refuses_a_typo() -> None:
    """The CLI's parser raises on `--facet tier` instead of dropping it (docs/decisions.md §17)."""
    assert FacetFilter(name="tier", value="1") == parse_facet_filter_strict("tier=1")
    with pytest.raises(InvalidInput, match="name=value"):
        parse_facet_filter_strict("tier")


@given(facet_specs)
def test_a_parsed_facet_is_trimmed_nonempty_and_rebuilds_its_spec(spec: str) -> None:
    """A parse succeeds iff both trimmed halves are non-empty, and the name holds no `=`."""
    parsed = parse_facet_filter(spec)
    name, sep, value = spec.partition(FACET_SEPARATOR)
    assert bool(sep and name.strip() and value.strip()) == (parsed is not None)
    if parsed is not None:
        assert (name.strip(), value.strip()) == (parsed.name, parsed.value)
        assert FACET_SEPARATOR not in parsed.name


@given(st.lists(facet_specs, max_size=8))
def test_parse_facet_filters_is_the_unique_parseable_subsequence(specs: list[str]) -> None:
    """The list parse equals parsing one by one, dropping Nones and later repeats."""
    one_by_one = [f for f in map(parse_facet_filter, specs) if f is not None]
    expected = tuple(f for i, f in enumerate(one_by_one) if f not in one_by_one[:i])
    assert expected == parse_facet_filters(specs)


# --- scope values -------------------------------------------------------------------------


def test_workspace_is_slugged_like_placement() -> None:
    """`Checkout API` scopes to the directory placement wrote, `checkout-api`
    (docs/decisions.md §11)."""
    assert "checkout-api" == SearchScope(workspace="  Checkout API ").workspace
    assert "deploye" == SearchScope(workspace="Déployé").workspace


def test_blank_scope_values_mean_no_scope() -> None:
    """A blank workspace or entity and blank tags narrow nothing."""
    scope = SearchScope(workspace="  ", entity=" ", tags=["", "  ", " ops ", "ops"])
    assert (None, None, ("ops",)) == (scope.workspace, scope.entity, scope.tags)


def test_evolve_normalises_too() -> None:
    """Changing a scope with attrs.evolve runs the same normalisation as construction."""
    assert "checkout-api" == attrs.evolve(SearchScope(), workspace="Checkout API").workspace


def test_an_unknown_memory_type_is_refused() -> None:
    """A type outside the vocabulary would silently match nothing, so it is an error."""
    with pytest.raises(InvalidInput, match="unknown memory type"):
        SearchScope(memory_types=["semantic", "fact"])


def test_facet_groups_are_by_name_in_first_seen_order() -> None:
    """Values group under their name; a repeated pair appears once."""
    scope = SearchScope(
        facets=[
            FacetFilter(name="tier", value="1"),
            FacetFilter(name="doc-type", value="runbook"),
            FacetFilter(name="tier", value="2"),
            FacetFilter(name="tier", value="1"),
        ]
    )
    assert (("tier", ("1", "2")), ("doc-type", ("runbook",))) == scope.facet_groups()


def test_excluded_by_default_is_task() -> None:
    """The one type an unscoped query does not see."""
    assert ("task",) == EXCLUDED_BY_DEFAULT


def test_ascii_fold_leaves_non_ascii_alone() -> None:
    """The fold is SQLite's lower(): ASCII letters only."""
    assert "café ÉtÉ" == ascii_fold("CAFé ÉTÉ")


# --- the predicate ------------------------------------------------------------------------


def test_defaults_exclude_archived_files_and_tasks() -> None:
    """An empty scope admits active non-tasks only."""
    default = SearchScope()
    assert True is scope_admits(default, _facts())
    assert False is scope_admits(default, _facts(archived=True))
    assert False is scope_admits(default, _facts(memory_type="task"))


def test_naming_task_opts_in() -> None:
    """A caller-named type list is honoured exactly, task included, others then excluded."""
    scope = SearchScope(memory_types=["task"])
    assert True is scope_admits(scope, _facts(memory_type="task"))
    assert False is scope_admits(scope, _facts(memory_type="semantic"))


def test_include_archived_drops_the_archived_filter() -> None:
    """Archived files come back when asked for; tasks still do not."""
    scope = SearchScope(include_archived=True)
    assert True is scope_admits(scope, _facts(archived=True))
    assert False is scope_admits(scope, _facts(archived=True, memory_type="task"))


@pytest.mark.parametrize(
    ("changes", "admitted"),
    [
        ({}, True),  # created 2026-01-01, open-ended
        ({"archived": True}, True),  # archived files were believed then
        ({"created_at": "2026-06-01T00:00:01Z"}, False),  # written after the instant
        ({"created_at": "2026-06-01T00:00:00Z"}, True),  # start is inclusive
        ({"valid_until": "2026-06-01T00:00:00Z"}, False),  # end is exclusive
        ({"valid_until": "2026-06-01T00:00:01Z"}, True),
        ({"event_at": "2026-07-01", "created_at": "2025-01-01"}, False),  # event beats write time
        ({"valid_from": "2026-05-01", "event_at": "2026-07-01"}, True),  # valid-from beats event
        ({"valid_from": ""}, True),  # "" is not NULL: coalesce picks it, and "" sorts first
    ],
)
def test_as_of_replaces_the_archived_filter_with_the_validity_window(
    changes: dict[str, Any], admitted: bool
) -> None:
    """coalesce(valid_from, event_at, created_at) <= as_of < valid_until, as strings."""
    scope = SearchScope(as_of="2026-06-01T00:00:00Z")
    assert admitted == scope_admits(scope, _facts(**changes))


def test_workspace_is_strict_equality() -> None:
    """A workspace scope admits its own files only; an unplaced file never matches."""
    scope = SearchScope(workspace="Checkout API")
    assert True is scope_admits(scope, _facts(workspace="checkout-api"))
    assert False is scope_admits(scope, _facts(workspace=None))
    assert False is scope_admits(scope, _facts(workspace="checkout-api-v2"))


def test_tags_are_any_of() -> None:
    """Any listed tag admits; a file with none of them is out."""
    scope = SearchScope(tags=["billing", "ops"])
    assert True is scope_admits(scope, _facts(tags=frozenset({"ops", "x"})))
    assert False is scope_admits(scope, _facts(tags=frozenset({"Billing"})))


@pytest.mark.parametrize(
    ("entity", "pairs", "admitted"),
    [
        ("person:sasha", {("person", "Sasha")}, True),
        ("PERSON:SASHA", {("person", "sasha")}, True),
        ("concept:sasha", {("person", "sasha")}, False),  # two entities
        ("sasha", {("person", "sasha")}, False),  # the type half is required
        ("place:café", {("place", "CAFÉ")}, False),  # ASCII fold only, like SQLite lower()
        ("place:CAFé", {("place", "café")}, True),
        ("a:b:c", {("a", "b:c")}, True),  # rebuilt from the columns, never re-split
    ],
)
def test_entity_matches_type_and_name_with_ascii_fold(
    entity: str, pairs: set[tuple[str, str]], admitted: bool
) -> None:
    """One `type:name` reference, compared ASCII-case-insensitively on both sides."""
    assert admitted == scope_admits(SearchScope(entity=entity), _facts(entities=frozenset(pairs)))


def test_facets_and_across_names_or_within_a_name() -> None:
    """doc-type=runbook doc-type=guide is either; adding tier=1 requires both names."""
    either = SearchScope(facets=parse_facet_filters(["doc-type=runbook", "doc-type=guide"]))
    both = attrs.evolve(either, facets=(*either.facets, FacetFilter(name="tier", value="1")))
    guide = _facts(facets=frozenset({("doc-type", "guide")}))
    guide_tier1 = _facts(facets=frozenset({("doc-type", "guide"), ("tier", "1")}))
    tier1 = _facts(facets=frozenset({("tier", "1")}))
    assert [True, True, False] == [scope_admits(either, f) for f in (guide, guide_tier1, tier1)]
    assert [False, True, False] == [scope_admits(both, f) for f in (guide, guide_tier1, tier1)]


def test_facet_text_is_exact() -> None:
    """No case fold on facets: `Runbook` is not `runbook`."""
    scope = SearchScope(facets=[FacetFilter(name="doc-type", value="runbook")])
    assert False is scope_admits(scope, _facts(facets=frozenset({("doc-type", "Runbook")})))


@given(scope_facts)
def test_the_default_scope_is_active_non_tasks(facts: ScopeFacts) -> None:
    """With nothing named, a file is in scope iff it is neither archived nor a task."""
    expected = not facts.archived and facts.memory_type != "task"
    assert expected == scope_admits(SearchScope(), facts)


@given(scopes, scope_facts, scope_tags)
@example(SearchScope(), _facts(), "ops")
def test_another_tag_never_narrows(scope: SearchScope, facts: ScopeFacts, tag: str) -> None:
    """Tags broaden: adding one to a non-empty tag list never drops an admitted file."""
    scope = _tags_and_facets_only(scope, facets=False)
    if not scope.tags:
        scope = attrs.evolve(scope, tags=(tag,))
    wider = attrs.evolve(scope, tags=(*scope.tags, tag))
    assert scope_admits(scope, facts) <= scope_admits(wider, facts)


@given(scopes, scope_facts, facets)
def test_another_facet_name_never_widens(
    scope: SearchScope, facts: ScopeFacts, facet: FacetFilter
) -> None:
    """A filter on a name not yet scoped narrows: it never admits a file the scope refused."""
    scope = _tags_and_facets_only(scope, tags=False)
    others = tuple(f for f in scope.facets if f.name != facet.name)
    scope = attrs.evolve(scope, facets=others)
    narrower = attrs.evolve(scope, facets=(*scope.facets, facet))
    assert scope_admits(narrower, facts) <= scope_admits(scope, facts)


@given(scopes, scope_facts, facets)
def test_another_value_under_a_scoped_name_never_narrows(
    scope: SearchScope, facts: ScopeFacts, facet: FacetFilter
) -> None:
    """A second value under a name already scoped broadens that name's alternatives."""
    scope = _tags_and_facets_only(scope, tags=False)
    if not scope.facets:
        scope = attrs.evolve(scope, facets=(facet,))
    first = scope.facets[0]
    wider = attrs.evolve(scope, facets=(*scope.facets, attrs.evolve(facet, name=first.name)))
    assert scope_admits(scope, facts) <= scope_admits(wider, facts)


@given(scopes, scope_facts)
def test_include_archived_only_widens(scope: SearchScope, facts: ScopeFacts) -> None:
    """Without as_of, turning include_archived on never drops a file."""
    scope = attrs.evolve(scope, as_of=None)
    narrow = attrs.evolve(scope, include_archived=False)
    wide = attrs.evolve(scope, include_archived=True)
    assert scope_admits(narrow, facts) <= scope_admits(wide, facts)


@given(scopes, scope_facts)
def test_as_of_ignores_the_archived_flags(scope: SearchScope, facts: ScopeFacts) -> None:
    """With as_of set, neither the file's archived bit nor include_archived changes anything."""
    scope = attrs.evolve(scope, as_of="2026-06-01T00:00:00Z")
    outcomes = {
        scope_admits(attrs.evolve(scope, include_archived=flag), attrs.evolve(facts, archived=bit))
        for flag in (False, True)
        for bit in (False, True)
    }
    assert 1 == len(outcomes)


@given(scopes, scope_facts)
def test_entity_case_is_ascii_insensitive(scope: SearchScope, facts: ScopeFacts) -> None:
    """Swapping ASCII case in the scope's entity never changes admission."""
    if scope.entity is None:
        scope = attrs.evolve(scope, entity="person:sasha")
    assert scope.entity is not None
    flipped = "".join(ch.swapcase() if ch.isascii() else ch for ch in scope.entity)
    swapped = attrs.evolve(scope, entity=flipped)
    assert scope_admits(scope, facts) == scope_admits(swapped, facts)


@given(scope_facts, st.lists(st.sampled_from(MEMORY_TYPES), min_size=1, unique=True))
def test_named_types_are_exact(facts: ScopeFacts, types: list[str]) -> None:
    """A named type list admits exactly those types (among active files)."""
    active = attrs.evolve(facts, archived=False)
    assert (active.memory_type in types) == scope_admits(SearchScope(memory_types=types), active)
