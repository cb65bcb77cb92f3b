"""The entity arm's pure rules: keys, the vocabulary, query matching and IDF ranking."""

from __future__ import annotations

import math

from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.entities import (
    MAX_SURFACE_WORDS,
    WEIGHT_UNITS,
    EntityTerm,
    entity_key,
    entity_ranking,
    entity_terms,
    idf_units,
    match_entities,
    query_surfaces,
    surface_of,
    tag_key,
)
from memhtml.domain.model import EntityRef

words = st.sampled_from(["ledger", "API", "sasha", "the", "on", "call", "pool", "x", "Café"])
texts = st.lists(words, max_size=9).map(" ".join)
keys = st.sampled_from(["person:sasha", "service:api", "tag:ops", "concept:pool", "tag:rare"])
held_maps = st.dictionaries(
    st.sampled_from(["a.html", "b.html", "c.html", "d.html", "e.html"]),
    st.frozensets(keys, max_size=3),
)


def test_keys_fold_ascii_only() -> None:
    """Keys fold A–Z as SQLite's lower() does and leave other letters as written."""
    assert ("person:sasha", "place:cafÉ", "tag:ops") == (
        entity_key("Person", "SASHA"),
        entity_key("place", "CafÉ"),
        tag_key("OPS"),
    )


def test_a_surface_is_the_names_words() -> None:
    """Hyphens, case and spacing do not matter to a surface; letters and digits do."""
    assert ("ledger api", "postgres 16", "") == (
        surface_of("Ledger-API"),
        surface_of("  Postgres   16 "),
        surface_of("—"),
    )


def test_terms_cover_names_tags_and_aliases_of_the_subject() -> None:
    """An alias names each declared entity but the code languages; tags stand for tag keys."""
    terms = entity_terms(
        (EntityRef("service", "Ledger-API"), EntityRef("lang", "python")),
        ("Ops",),
        ("the bookkeeping service",),
    )
    assert (
        EntityTerm(surface="ledger api", key="service:ledger-api"),
        EntityTerm(surface="python", key="lang:python"),
        EntityTerm(surface="ops", key="tag:ops"),
        EntityTerm(surface="the bookkeeping service", key="service:ledger-api"),
    ) == terms


def test_an_alias_without_a_subject_names_nothing() -> None:
    """A memory that declares no entity gives its aliases no key."""
    assert () == entity_terms((), (), ("the bookkeeping service",))


@given(query=texts)
def test_surfaces_are_runs_of_the_querys_words(query: str) -> None:
    """Every asked surface is a run of at most six query words, not all function words."""
    spoken = " " + surface_of(query) + " "
    for surface in query_surfaces(query):
        assert f" {surface} " in spoken
        assert 1 <= len(surface.split()) <= MAX_SURFACE_WORDS
        assert surface not in ("the", "on", "x")


def test_the_longest_known_run_wins_and_uses_its_words() -> None:
    """ "on call" is matched as the two-word name; its words do not also match alone."""
    known = {"on call": {"team:oncall"}, "call": {"concept:call"}, "sasha": {"person:sasha"}}
    assert ("person:sasha", "team:oncall") == match_entities("Is SASHA on call?", known)


@given(query=texts)
def test_matched_keys_come_from_asked_surfaces(query: str) -> None:
    """A key is matched only through a surface the query makes and the vocabulary holds."""
    known = {surface: {f"k:{surface}"} for surface in query_surfaces(query)[::2]}
    matched = set(match_entities(query, known))
    assert matched <= {key for keys in known.values() for key in keys}


@given(size=st.integers(1, 10_000), data=st.data())
def test_idf_is_positive_and_falls_with_holders(size: int, data: st.DataObject) -> None:
    """More holders never weigh more; every weight is the truncated formula's."""
    holders = data.draw(st.integers(1, size))
    more = data.draw(st.integers(holders, size))
    assert idf_units(size, more) <= idf_units(size, holders)
    exact = math.log(1.0 + (size - holders + 0.5) / (holders + 0.5)) * WEIGHT_UNITS
    assert int(exact) == idf_units(size, holders)
    assert idf_units(size, holders) > 0


@given(held=held_maps, query=st.frozensets(keys, max_size=3), limit=st.integers(1, 5))
@example(held={"a.html": frozenset({"tag:ops"}), "b.html": frozenset({"tag:ops"})},
         query=frozenset({"tag:ops"}), limit=1)  # fmt: skip
def test_ranking_orders_sharing_memories_by_weight_then_path(
    held: dict[str, frozenset[str]], query: frozenset[str], limit: int
) -> None:
    """Only memories sharing a selective entity rank, by summed weight descending, then path."""
    size = max(len(held), 1)
    ranked = entity_ranking(held, query, scope_size=size, arm_limit=limit)
    holders = {k: sum(1 for keys in held.values() if k in keys) for k in query}
    weight = {p: sum(idf_units(size, holders[k]) for k in held[p] & query) for p in held}
    for path in held:
        selective = any(holders[k] <= limit for k in held[path] & query)
        assert (path in ranked) == selective
    assert ranked == sorted(ranked, key=lambda p: (-weight[p], p))


def test_a_tag_on_every_memory_weighs_almost_nothing() -> None:
    """A rare entity outranks a tag every memory carries, whoever holds more of them."""
    held = {f"m{i}.html": frozenset({"tag:ops"}) for i in range(50)}
    held["m7.html"] = frozenset({"tag:ops", "service:api"})
    held["z.html"] = frozenset({"service:api"})
    ranked = entity_ranking(held, {"tag:ops", "service:api"}, scope_size=51, arm_limit=40)
    assert ["m7.html", "z.html"] == ranked
