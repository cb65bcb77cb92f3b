"""The link graph, the contradiction check and the entity vocabulary over every backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings

from memhtml.ports.link_graph import StoredLink
from memhtml.ports.storage import Storage
from tests.contract.storage.corpora import memories, populate
from tests.contract.storage.harness import BACKENDS, Memory, open_backend, write


@pytest.fixture(params=BACKENDS)
def storage(request: pytest.FixtureRequest) -> Iterator[Storage]:
    """One empty store per backend."""
    with open_backend(request.param) as opened:
        yield opened


FAILURE = Memory(
    path="areas/inbox/linker-fails.html",
    claim="The linker fails on stale objects.",
    links=(("contradicts", "areas/inbox/linker-works.html"),),
)
FIX = Memory(
    path="resources/build/clean-objects.html",
    claim="Cleaning the object directory fixes the linker.",
    links=(("fixes", "areas/inbox/linker-fails.html"), ("supports", "areas/inbox/gone.html")),
)
WORKS = Memory(path="areas/inbox/linker-works.html", claim="The linker works.")
OLD = Memory(
    path="archive/2026/areas/inbox/linker-old.html",
    claim="The linker was fine.",
    links=(("contradicts", "areas/inbox/linker-fails.html"),),
)


def test_links_touching_a_memory_come_from_both_ends(storage: Storage) -> None:
    """Its own links and links to it, sorted, dangling targets included."""
    write(storage, [FAILURE, FIX, WORKS])
    assert (
        StoredLink(src=FAILURE.path, rel="contradicts", dst=WORKS.path, edge_class="memory"),
        StoredLink(src=FIX.path, rel="fixes", dst=FAILURE.path, edge_class="memory"),
    ) == storage.links.links_touching([FAILURE.path])
    assert (
        StoredLink(src=FIX.path, rel="fixes", dst=FAILURE.path, edge_class="memory"),
        StoredLink(src=FIX.path, rel="supports", dst="areas/inbox/gone.html", edge_class="memory"),
    ) == storage.links.links_touching(["areas/inbox/gone.html", FIX.path])
    assert () == storage.links.links_touching([])


def test_only_contradictions_between_active_memories_are_found(storage: Storage) -> None:
    """An archived side means the contradiction was resolved; a dangling side is no memory."""
    write(storage, [FAILURE, FIX, WORKS, OLD])
    found = storage.health.active_contradictions()
    assert [(FAILURE.path, WORKS.path)] == [(c.src_path, c.dst_path) for c in found]


def test_the_vocabulary_names_entities_by_name_tag_and_alias(storage: Storage) -> None:
    """Surfaces map to every key they name; unknown surfaces are absent."""
    ledger = Memory(
        path="resources/billing/ledger.html",
        claim="The ledger API books invoices.",
        entities=("service:Ledger-API",),
        aliases=("the bookkeeping service",),
        tags=("Billing",),
    )
    other = Memory(
        path="resources/billing/other.html",
        claim="Another ledger.",
        entities=("team:ledger-api",),
    )
    write(storage, [ledger, other])
    named = storage.ranks.entity_keys_named(
        ["ledger api", "the bookkeeping service", "billing", "nothing"]
    )
    assert {
        "ledger api": frozenset({"service:ledger-api", "team:ledger-api"}),
        "the bookkeeping service": frozenset({"service:ledger-api"}),
        "billing": frozenset({"tag:billing"}),
    } == named


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpus=memories())
def test_every_backend_answers_the_same_link_questions(corpus: tuple[Memory, ...]) -> None:
    """Links around every path, contradictions and the vocabulary agree across backends."""
    answers = []
    for kind in BACKENDS:
        with open_backend(kind) as storage:
            populate(storage, corpus)
            paths = [m.path for m in corpus]
            answers.append(
                (
                    [storage.links.links_touching([path]) for path in paths],
                    storage.health.active_contradictions(),
                    storage.ranks.entity_keys_named(
                        ["sasha", "api", "the ledger", "checkout queue", "ops", "billing"]
                    ),
                )
            )
    assert answers[0] == answers[1]
