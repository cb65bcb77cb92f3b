"""The retrieval-side storage ports over every backend: the same answers, and the right ones.

The generated-store properties hold the two backends to one another (same paths, same ranks,
scores within 1e-9); the examples pin what the answers are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memhtml.domain.entities import match_entities, query_surfaces
from memhtml.domain.fts_query import LexicalQuery, fts_terms
from memhtml.domain.fusion import RANK_ARMS, ArmSpec, Fused
from memhtml.domain.query_dates import DateWindow
from memhtml.domain.reinforce import Signal
from memhtml.domain.scope import SearchScope, ascii_fold
from memhtml.ports.rank_store import FusionQuery
from memhtml.ports.storage import Storage
from tests.contract.storage.corpora import (
    EMBEDDER,
    Reinforcement,
    memories,
    populate,
    queries,
    reinforcements,
)
from tests.contract.storage.harness import BACKENDS, NOW, Memory, open_backend, write

QUERY_NOW = "2026-09-20T00:00:00Z"
arm_sets = st.lists(st.sampled_from(RANK_ARMS), unique=True, min_size=1).map(
    lambda arms: tuple(a for a in RANK_ARMS if a in arms)
)
scopes = st.builds(
    SearchScope,
    tags=st.sampled_from(((), ("ops",))),
    entity=st.sampled_from((None, "person:sasha", "PERSON:Sasha")),
    memory_types=st.sampled_from(((), ("semantic", "task"))),
    include_archived=st.booleans(),
)


# Day windows over the corpus stamps (event days, else the creation day NOW names).
WINDOWS = (
    DateWindow(start=date(2026, 8, 1), end=date(2026, 8, 15)),
    DateWindow(start=date(2026, 9, 10), end=date(2026, 9, 10)),
    DateWindow(start=date(2026, 1, 1), end=date(2026, 12, 31)),
)


def fusion_query(
    query: str,
    arms: tuple[ArmSpec, ...],
    scope: SearchScope,
    *,
    every: bool,
    gate: bool,
    evidence_first: bool = False,
    prior_bound: float | None = None,
    vector_max_distance: float | None = None,
    windows: tuple[DateWindow, ...] = (),
    with_vector: bool = True,
) -> FusionQuery:
    """A plan as the pipeline would make it for ``query`` (and the day windows it names);
    ``with_vector=False`` is a query without a vector (no embedder)."""
    terms = fts_terms(query, drop_stopwords=True)
    if not terms:
        arms = tuple(a for a in arms if a.name not in ("fts", "context"))
    if not with_vector:
        arms = tuple(a for a in arms if a.name != "vector")
    if not windows or not (terms or with_vector):
        arms = tuple(a for a in arms if a.name != "time")
    if not windows or not terms or not with_vector:
        arms = tuple(a for a in arms if a.name != "time_words")
    return FusionQuery(
        arms=arms,
        scope=scope,
        lexical=LexicalQuery(terms=terms, every=every) if terms else None,
        vector=EMBEDDER.embed_query(query) if with_vector else None,
        embed_model=EMBEDDER.watermark,
        now=QUERY_NOW,
        limit=30,
        gate_priors=gate,
        evidence_first=evidence_first,
        prior_bound=prior_bound,
        vector_max_distance=vector_max_distance,
        windows=windows,
    )


def with_entities(storage: Storage, text: str, query: FusionQuery) -> FusionQuery:
    """``query`` with the entities ``text`` names in ``storage`` (and the scope's), as the
    planner finds them; without any, the entity arm does not fire."""
    known = storage.ranks.entity_keys_named(query_surfaces(text))
    keys = set(match_entities(text, known))
    if query.scope.entity is not None:
        keys.add(ascii_fold(query.scope.entity))
    if keys:
        return attrs.evolve(query, entities=tuple(sorted(keys)))
    return attrs.evolve(query, arms=tuple(a for a in query.arms if a.name != "entity"))


def fused_on(
    kind: str,
    corpus: Sequence[Memory],
    replays: Sequence[Reinforcement],
    query: FusionQuery,
    text: str = "",
) -> tuple[Fused, ...]:
    """The fused ranks one backend gives for ``query`` (whose text is ``text``) over ``corpus``."""
    with open_backend(kind) as storage:
        populate(storage, corpus, replays)
        return storage.ranks.fused_ranks(with_entities(storage, text, query))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpus=memories(),
    replays=reinforcements,
    query=queries,
    arms=arm_sets,
    scope=scopes,
    every=st.booleans(),
    gate=st.booleans(),
    evidence_first=st.booleans(),
    prior_bound=st.sampled_from((None, 0.04, 0.5)),
    vector_max_distance=st.sampled_from((None, 0.7, 0.9)),
    windows=st.lists(st.sampled_from(WINDOWS), unique=True, max_size=2).map(tuple),
    with_vector=st.booleans(),
)
def test_every_backend_fuses_the_same_ranks(
    corpus: tuple[Memory, ...],
    replays: list[Reinforcement],
    query: str,
    arms: tuple[ArmSpec, ...],
    scope: SearchScope,
    every: bool,
    gate: bool,
    evidence_first: bool,
    prior_bound: float | None,
    vector_max_distance: float | None,
    windows: tuple[DateWindow, ...],
    with_vector: bool,
) -> None:
    """Same paths, same order, same per-arm ranks, scores within 1e-9, whatever the plan."""
    plan = fusion_query(
        query,
        arms,
        scope,
        every=every,
        gate=gate,
        evidence_first=evidence_first,
        prior_bound=prior_bound,
        vector_max_distance=vector_max_distance,
        windows=windows,
        with_vector=with_vector,
    )
    sqlite, memory = (fused_on(kind, corpus, replays, plan, query) for kind in BACKENDS)
    assert [(f.path, f.ranks) for f in sqlite] == [(f.path, f.ranks) for f in memory]
    assert all(abs(a.score - b.score) <= 1e-9 for a, b in zip(sqlite, memory, strict=True))


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One empty store per backend."""
    with open_backend(request.param) as opened:
        yield opened


INVOICE = Memory(path="resources/billing/invoice.html", claim="The invoice export runs nightly.")
LEDGER = Memory(path="areas/inbox/ledger.html", claim="The ledger pool drains at noon.")
OLD = Memory(
    path="archive/2026/areas/inbox/old.html",
    claim="The invoice export ran weekly.",
    links=(),
)
NEWER = Memory(
    path="areas/inbox/newer.html",
    claim="Invoice export moved to nightly.",
    links=(("supersedes", "areas/inbox/old.html"),),
    entities=("service:exporter",),
)


def test_the_full_text_arm_finds_the_matching_memory_first(storage: Storage) -> None:
    """A lexical query ranks the memory holding its words, and only memories that match."""
    populate(storage, [INVOICE, LEDGER])
    plan = fusion_query("ledger drains", (RANK_ARMS[0],), SearchScope(), every=True, gate=False)
    fused = storage.ranks.fused_ranks(plan)
    assert [(LEDGER.path, (("fts", 1),))] == [(f.path, f.ranks) for f in fused]


def test_every_term_is_asked_inside_the_scope(storage: Storage) -> None:
    """holds_every_term is true only when one in-scope memory has every term."""
    populate(storage, [INVOICE, LEDGER])
    both = LexicalQuery(terms=("invoice", "nightly"), every=True)
    split = LexicalQuery(terms=("invoice", "ledger"), every=True)
    narrowed = SearchScope(workspace="nowhere")
    assert (True, False, False) == (
        storage.ranks.holds_every_term(both, SearchScope()),
        storage.ranks.holds_every_term(split, SearchScope()),
        storage.ranks.holds_every_term(both, narrowed),
    )


def test_the_vector_census_counts_chunks_in_the_space(storage: Storage) -> None:
    """Chunks, embedded chunks, and the space asked about."""
    populate(storage, [INVOICE, LEDGER])
    census = storage.ranks.vector_census(EMBEDDER.watermark)
    other = storage.ranks.vector_census("another@4")
    assert (2, 2, EMBEDDER.watermark) == (census.chunks, census.embedded, census.model)
    assert (2, 0) == (other.chunks, other.embedded)


def test_candidate_rows_carry_the_claim_and_the_first_chunk_vector(storage: Storage) -> None:
    """Rows for known paths only; a vector only in the asked space; supersession resolved."""
    populate(storage, [INVOICE, OLD, NEWER])
    rows = storage.candidates.candidate_rows(
        [INVOICE.path, OLD.path, "areas/none.html"], EMBEDDER.watermark
    )
    bare = storage.candidates.candidate_rows([INVOICE.path], "another@4")
    assert {INVOICE.path, OLD.path} == set(rows)
    assert ("The invoice export runs nightly.", True) == (
        rows[INVOICE.path].gist,
        rows[INVOICE.path].vector_blob is not None,
    )
    assert (NEWER.path, None) == (rows[OLD.path].superseded_by, rows[INVOICE.path].superseded_by)
    assert bare[INVOICE.path].vector_blob is None


def test_snippets_and_entities_by_path(storage: Storage) -> None:
    """The best chunk per path; entity references sorted; unknown paths absent."""
    populate(storage, [INVOICE, NEWER])
    snippets = storage.candidates.snippets(
        [INVOICE.path, NEWER.path], EMBEDDER.embed_query("invoice"), EMBEDDER.watermark
    )
    plain = storage.candidates.snippets([INVOICE.path], None, None)
    entities = storage.candidates.entity_refs([INVOICE.path, NEWER.path])
    assert "The invoice export runs nightly." == snippets[INVOICE.path] == plain[INVOICE.path]
    assert {NEWER.path: ("service:exporter",)} == dict(entities)


def test_an_empty_scope_points_at_its_archived_matches(storage: Storage) -> None:
    """A narrowing scope with nothing active says so and lists the archived match."""
    populate(storage, [INVOICE, OLD, NEWER])
    inbox_only = SearchScope(memory_types=("semantic",), workspace="inbox")
    lookup = storage.archive.archived_in_scope(SearchScope(memory_types=("semantic",)), 10)
    assert (False, False) == (
        storage.archive.scope_is_empty(SearchScope()),
        storage.archive.scope_is_empty(SearchScope(memory_types=("semantic",))),
    )
    assert storage.archive.scope_is_empty(inbox_only) is True
    assert (1, ((OLD.path, NEWER.path),)) == (
        lookup.count,
        tuple((m.path, m.superseded_by) for m in lookup.matches),
    )


def test_reinforcement_cools_down_and_unknown_paths_are_named(storage: Storage) -> None:
    """A second bump inside 900 s cools down; missing paths are listed in call order, once."""
    write(storage, [INVOICE])
    first = storage.access.reinforce([INVOICE.path], Signal.POSITIVE, NOW)
    again = storage.access.reinforce([INVOICE.path, INVOICE.path], Signal.NEUTRAL, NOW)
    assert ((INVOICE.path,), ()) == (first.bumped, first.cooled_down)
    assert ((), (INVOICE.path,)) == (again.bumped, again.cooled_down)
    assert ("b.html", "a.html") == storage.access.missing_paths(
        ["b.html", INVOICE.path, "a.html", "b.html"]
    )
