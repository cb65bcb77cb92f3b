"""The entity and graph arms, authority, ``neighbors``, ``inboundLinks`` and the contradiction
finding, end to end through the command line over a real store (embedding off)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.integration.test_cli_commands_store import Store, envelope, invoke

FAILURE = "areas/inbox/the-linker-fails-on-stale-objects.html"
FIX = "areas/inbox/clean-the-object-directory-before-linking.html"
LEDGER = "areas/inbox/ledger-api.html"
OTHER = "areas/inbox/the-nightly-build-is-slow.html"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """A failure, its fix (linked by `fixes`), a service with an alias, and a bystander."""
    root = tmp_path_factory.mktemp("built") / "store"
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    made = Store(root)
    made.ok(
        "write", "--title", "The linker fails on stale objects", "--type", "error_pattern",
        "--claim", "The linker fails with undefined symbols when stale objects remain.",
    )  # fmt: skip
    made.ok(
        "write", "--title", "Clean the object directory before linking", "--type",
        "procedural", "--claim", "Run make clean to remove the object directory first.",
    )  # fmt: skip
    made.ok(
        "write", "--title", "Who books invoices", "--type", "semantic", "--path", LEDGER,
        "--claim", "Books every invoice into the general accounts.",
        "--entity", "service:ledger-api",
    )  # fmt: skip
    made.ok(
        "write", "--title", "The nightly build is slow", "--type", "episodic", "--path", OTHER,
        "--claim", "The nightly build took forty minutes.",
    )  # fmt: skip
    made.ok("link", FIX, "fixes", FAILURE)
    return made


@pytest.fixture
def store(built: Store, tmp_path: Path) -> Store:
    """A copy of the built store (repository, index and state plane) for each test, where
    building it cost six invocations per test."""
    shutil.copytree(built.root, tmp_path / "store", symlinks=True)
    return Store(tmp_path / "store")


def test_a_fix_is_reached_only_through_its_link(store: Store) -> None:
    """The query names the failure's words only; the fix comes in by the graph, with its via."""
    query = "undefined symbols stale objects"
    hits = store.ok("search", query, "--arms", "fts,entity,graph")["hits"]
    by_path = {hit["path"]: hit for hit in hits}
    fix = by_path[FIX]
    assert (1, None, {"path": FAILURE, "rel": "fixes", "direction": "inbound"}) == (
        fix["ranks"]["graph"],
        fix["ranks"].get("fts"),
        fix["via"],
    )
    assert 1 == by_path[FAILURE]["ranks"]["fts"]
    assert None is by_path[FAILURE]["via"]


def test_without_the_graph_arm_the_fix_is_not_found(store: Store) -> None:
    """The fix shares no query word: left out of `--arms`, the graph arm cannot bring it in;
    in the default set it does, with its step."""
    query = "undefined symbols stale objects"
    default = store.ok("search", query)
    narrowed = store.ok("search", query, "--arms", "fts,entity")["hits"]
    fix = {hit["path"]: hit for hit in default["hits"]}[FIX]
    assert FIX not in [hit["path"] for hit in narrowed]
    assert (["fts", "context", "recency", "salience", "graph"], "fixes") == (
        default["arms"],
        fix["via"]["rel"],
    )
    assert 1 == fix["ranks"]["graph"]


def test_an_entity_name_in_the_query_finds_the_memory(store: Store) -> None:
    """`ledger-api` is not in the memory's text, only its entity: the entity arm finds it."""
    answer = store.ok("search", "who owns the ledger-api", "--arms", "fts,entity")
    assert "entity" in answer["arms"]
    assert [(LEDGER, {"entity": 1})] == [(h["path"], h["ranks"]) for h in answer["hits"]]


def test_authority_is_reported_when_switched_on(store: Store) -> None:
    """Authority is opt-in: with `--authority` a maintained memory reports its adjustment; by
    default none is reported."""
    on = {h["path"]: h["authority"] for h in store.ok("search", "linker", "--authority")["hits"]}
    off = {h["path"]: h["authority"] for h in store.ok("search", "linker")["hits"]}
    assert (0.03, None) == (on[FAILURE], off[FAILURE])


def test_neighbors_lists_both_directions_and_narrows_by_relation(store: Store) -> None:
    """The fix's own link is outbound from it; from the failure it is inbound."""
    from_fix = store.ok("neighbors", FIX)
    assert [
        {
            "path": FAILURE,
            "rel": "fixes",
            "edgeClass": "memory",
            "direction": "outbound",
            "depth": 1,
            "fromPath": FIX,
            "title": "The linker fails on stale objects",
            "memoryType": "error_pattern",
        }
    ] == from_fix["links"]
    from_failure = store.ok("neighbors", FAILURE, "--relation", "fixes", "--depth", "2")
    assert [("inbound", FIX, 1)] == [
        (link["direction"], link["path"], link["depth"]) for link in from_failure["links"]
    ]
    assert [] == store.ok("neighbors", FAILURE, "--relation", "supports")["links"]


def test_neighbors_of_an_unknown_path_is_not_found(store: Store) -> None:
    """A path the index does not hold: ERR_PATH_NOT_FOUND."""
    result = store.run("neighbors", "areas/inbox/nothing-here.html")
    assert "ERR_PATH_NOT_FOUND" == envelope(result)["code"]


def test_read_lists_inbound_links(store: Store) -> None:
    """The failure's detail names the fix's link to it."""
    detail = store.ok("read", FAILURE)
    assert [{"rel": "fixes", "href": f"/{FIX}", "derived": False}] == detail["inboundLinks"]
    assert [] == store.ok("read", FIX)["inboundLinks"]


def test_doctor_reports_a_contradiction_between_active_memories(store: Store) -> None:
    """A `contradicts` link between two live memories is listed as a finding; it does not make
    the store unhealthy (a store may record a disagreement on purpose)."""
    store.ok("link", OTHER, "contradicts", FIX)
    report = store.ok("doctor")
    found = [(c["srcPath"], c["dstPath"]) for c in report["contradictions"]]
    assert ([(OTHER, FIX)], True) == (found, report["healthy"])


def test_a_pinned_memory_says_so_in_read(store: Store) -> None:
    """`write --pin` writes the meta; read shows it among the metas."""
    written = store.ok(
        "write", "--title", "Release procedure", "--type", "procedural", "--pin",
        "--claim", "Tag the release, then publish the container image.",
    )  # fmt: skip
    assert True is store.ok("read", written["path"])["metas"]["pinned"]
