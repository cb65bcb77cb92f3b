"""Read, retrieval, index and maintenance commands over a real store (embedding off), and the
scope flags they refuse before running."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_cli_commands_store import (
    EXPORT_PATH,
    EXPORT_WRITE,
    LOCK_PATH,
    LOCK_WRITE,
    Store,
    data,
    envelope,
    invoke,
    snapshot,
)


def linked_store(root: Path) -> Store:
    """A store at ``root`` holding the invoice export and the ledger lock, linked."""
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    made = Store(root)
    made.ok(*EXPORT_WRITE)
    made.ok(*LOCK_WRITE)
    made.ok("link", EXPORT_PATH, "caused_by", LOCK_PATH)
    return made


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The linked store, built once per module and never changed: ``store`` copies it."""
    return linked_store(tmp_path_factory.mktemp("built") / "store").root


@pytest.fixture
def store(built: Path, tmp_path: Path) -> Store:
    """A fresh linked store, for tests that change it: a copy of the built one (repository,
    index and state plane), where building it cost four invocations per test."""
    shutil.copytree(built, tmp_path / "store", symlinks=True)
    return Store(tmp_path / "store")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """One linked store for the tests that only read it or are refused before touching it
    (no commit, no salience bump): building it per test cost four invocations each."""
    return linked_store(tmp_path_factory.mktemp("reads") / "store")


def test_search_reports_cli_md_fields_and_freshness(store: Store) -> None:
    """search returns memory.hits with the keys of docs/cli-contract.md §3, ranks as an object, and
    indexFresh."""
    hits = store.ok("search", "when does the invoice export start", "--limit", "3")
    assert [
        "hits",
        "degraded",
        "degradedReason",
        "vectorCoverage",
        "pendingVectors",
        "arms",
        "entityScope",
        "scopeEmpty",
        "archivedMatches",
        "archived",
        "knownAtCommit",
        "indexFresh",
        "indexUpdateMs",
    ] == list(hits)
    top = hits["hits"][0]
    assert EXPORT_PATH == top["path"]
    assert [
        "path",
        "title",
        "gist",
        "memoryType",
        "score",
        "confidence",
        "updatedAt",
        "snippet",
        "entities",
        "supersededBy",
        "ranks",
        "via",
        "authority",
    ] == list(top)
    assert 1 == top["ranks"]["fts"]
    assert (True, True) == (hits["degraded"], hits["indexFresh"])
    # A lexical store owes no vectors, and says why the vector arm did not run.
    assert 0 == hits["pendingVectors"]
    assert "MEMHTML_EMBED=off" in hits["degradedReason"]


def test_hit_scores_fall_strictly_in_hit_order(store: Store) -> None:
    """score is the reciprocal of the hit's position, whatever order MMR left."""
    store.ok("write", "--title", "Invoice export logs", "--type", "semantic", "--claim",
             "The invoice export writes its logs to the ledger bucket.")  # fmt: skip
    hits = store.ok("search", "invoice export ledger", "--limit", "5")["hits"]
    assert 3 <= len(hits)
    assert [1.0 / n for n in range(1, len(hits) + 1)] == [hit["score"] for hit in hits]


def test_search_sees_a_file_written_behind_its_back(store: Store) -> None:
    """Freshness: an uncommitted file in the tree is found by the next search."""
    source = (store.root / EXPORT_PATH).read_text(encoding="utf-8")
    edited = source.replace("03:30 UTC every night", "03:30 UTC every zebra night")
    (store.root / EXPORT_PATH).write_text(edited, encoding="utf-8")
    hits = store.ok("search", "zebra")
    lexical = [hit["path"] for hit in hits["hits"] if "fts" in hit["ranks"]]
    assert [EXPORT_PATH] == lexical


def test_scoped_search_by_entity_and_empty_scope(shared: Store) -> None:
    """--entity narrows hits and is echoed; a scope matching nothing sets scopeEmpty."""
    scoped = shared.ok("search", "export", "--entity", "SERVICE:invoice-exporter")
    assert ([EXPORT_PATH], "SERVICE:invoice-exporter") == (
        [hit["path"] for hit in scoped["hits"]],
        scoped["entityScope"],
    )
    empty = shared.ok("search", "export", "--tag", "no-such-tag")
    assert ([], True) == (empty["hits"], empty["scopeEmpty"])


def test_search_ablation_flags_change_the_arms(shared: Store) -> None:
    """--arms runs only the named arms; --weights and --rrf-k are accepted."""
    hits = shared.ok("search", "export", "--arms", "fts", "--weights", "fts=2", "--rrf-k", "20")
    assert ["fts"] == hits["arms"]


def test_recall_reports_both_folds(shared: Store) -> None:
    """recall returns recall.pack with arcs and memories folds in the shape of
    docs/cli-contract.md §3.3."""
    pack = shared.ok("recall", "ledger lock", "--budget", "4000")
    expected = ["disclosed", "indexLines", "spentChars", "truncated"]
    assert (expected, expected) == (list(pack["arcs"]), list(pack["memories"]))
    assert LOCK_PATH in [item["path"] for item in pack["memories"]["disclosed"]]
    assert [
        "arcs",
        "memories",
        "spentChars",
        "truncated",
        "degraded",
        "degradedReason",
        "vectorCoverage",
        "pendingVectors",
        "knownAtCommit",
        "indexFresh",
        "indexUpdateMs",
    ] == list(pack)


def test_read_returns_the_detail_and_bumps_salience(store: Store) -> None:
    """read returns memory.detail with metas as an object; a reinforce right after cools down."""
    detail = store.ok("read", "/" + EXPORT_PATH)
    assert (EXPORT_PATH, "procedural", 7) == (
        detail["path"],
        detail["metas"]["memoryType"],
        detail["metas"]["importance"],
    )
    assert [{"rel": "caused_by", "href": "/" + LOCK_PATH}] == detail["links"]
    assert "<mark>" in detail["html"]
    reinforced = store.ok("reinforce", EXPORT_PATH)
    assert {"bumped": [], "cooledDown": [EXPORT_PATH], "signal": "neutral"} == reinforced


def test_reinforce_unknown_path_is_path_not_found(shared: Store) -> None:
    """reinforce of a path the index does not know: ERR_PATH_NOT_FOUND, exit 1."""
    result = shared.run("reinforce", "areas/inbox/nothing-here.html")
    assert (1, "ERR_PATH_NOT_FOUND") == (result.exit_code, envelope(result)["code"])


def test_read_unknown_path_is_path_not_found(shared: Store) -> None:
    """read of a path with no file: ERR_PATH_NOT_FOUND, exit 1."""
    result = shared.run("read", "areas/inbox/nothing-here.html")
    assert (1, "ERR_PATH_NOT_FOUND") == (result.exit_code, envelope(result)["code"])


def test_list_pages_by_path_with_a_cursor(shared: Store) -> None:
    """list pages path-ascending; the cursor of page one leads to page two."""
    first = shared.ok("list", "--limit", "1")
    second = shared.ok("list", "--limit", "1", "--cursor", first["nextCursor"])
    assert ([EXPORT_PATH], [LOCK_PATH], None) == (
        [f["path"] for f in first["files"]],
        [f["path"] for f in second["files"]],
        second["nextCursor"],
    )
    assert [
        "path",
        "title",
        "memoryType",
        "gist",
        "workspace",
        "para",
        "confidence",
        "importance",
        "archived",
        "updatedAt",
    ] == list(first["files"][0])


@pytest.mark.parametrize(
    "args",
    [
        ["search", "export", "--facet", "tier"],
        ["search", "export", "--facet", "=gold"],
        ["recall", "export", "--facet", "tier"],
        ["list", "--facet", "tier="],
        ["search", "export", "--as-of", "yesterday"],
        ["search", "export", "--as-of", "2026-13-40"],
        ["recall", "export", "--as-of", "soon"],
        ["search", "export", "--entity", "invoice-exporter"],
        ["search", "export", "--type", "opinion"],
        ["search", "export", "--limit", "0"],
        ["search", "export", "--limit", "201"],
        ["search", "export", "--arms", "fts,telepathy"],
        ["search", "export", "--weights", "fts"],
        ["list", "--limit", "501"],
        ["reinforce", EXPORT_PATH, "--signal", "great"],
    ],
)
def test_bad_scope_and_ranking_flags_are_invalid_flag(shared: Store, args: list[str]) -> None:
    """Malformed facets, non-ISO --as-of, typeless entities, out-of-range limits: exit 2."""
    before = snapshot(shared.root)
    result = shared.run(*args)
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])
    assert before == snapshot(shared.root)


def test_as_of_admits_facts_valid_then(shared: Store) -> None:
    """--as-of an ISO instant before anything was written finds nothing; a later one finds it."""
    early = shared.ok("search", "export", "--as-of", "2000-01-01")
    later = shared.ok("search", "export", "--as-of", "2999-01-01T00:00:00Z")
    assert ([], EXPORT_PATH) == (early["hits"], later["hits"][0]["path"])


def index_data(store: Store, *args: str) -> Any:
    """Run an index subcommand and return its data."""
    return store.ok("index", *args)


def test_index_subcommands_report_their_mode_and_fields(store: Store) -> None:
    """Each index subcommand answers index.report with mode first and the fields of
    docs/cli-contract.md §3.4."""
    rebuilt = index_data(store, "rebuild")
    updated = index_data(store, "update")
    embedded = index_data(store, "embed", "--dry-run")
    status = index_data(store, "status")
    assert ("rebuild", 2, 1) == (rebuilt["mode"], rebuilt["filesIndexed"], rebuilt["edgesIndexed"])
    assert ("update", True) == (updated["mode"], updated["unchanged"])
    assert ("embed", 0) == (embedded["mode"], embedded["embeddingsWritten"])
    assert ["mode", "headSha", "embedModel", "embedDim", "embedModelMatches"] == list(status)[:5]
    assert (2, 2, True) == (status["files"], status["activeFiles"], status["hasState"])


def test_index_embed_without_an_embedder_is_model_unavailable(store: Store) -> None:
    """index embed with chunks pending and embedding off: ERR_MODEL_UNAVAILABLE
    (docs/decisions.md §23)."""
    result = store.run("index", "embed")
    assert (1, "ERR_MODEL_UNAVAILABLE") == (result.exit_code, envelope(result)["code"])


def test_doctor_reports_a_healthy_store(store: Store) -> None:
    """doctor answers doctor.report with the keys of docs/cli-contract.md §3, then issue 14's
    recovery findings (none on a fresh store, which is healthy)."""
    report = store.ok("doctor")
    assert ("root", "healthy", "dangling") == tuple(report)[:3]
    assert (True, str(store.root), []) == (report["healthy"], report["root"], report["dangling"])
    assert (["warnings", "recovery"], []) == (list(report)[-2:], report["recovery"])


def unhealthy(result: Any) -> Any:
    """The report an unhealthy doctor carries as detail, after checking exit 1 and the code."""
    failure = envelope(result)
    assert (1, "ERR_STORE_UNHEALTHY") == (result.exit_code, failure["code"]), result.stdout
    assert False is failure["detail"]["healthy"]
    return failure


def test_doctor_reports_low_coverage_when_the_store_is_meant_to_embed(store: Store) -> None:
    """The plain doctor loads no model, yet a store configured to embed whose chunks have no
    vectors is reported low, with the remedy, and exits 1; a lexical-only store is not."""
    failure = unhealthy(store.run("doctor", env={"MEMHTML_EMBED": "local"}))
    local = failure["detail"]
    off = data(store.run("doctor", env={"MEMHTML_EMBED": "off"}))
    assert (True, 0.0, False) == (
        local["vectorCoverageLow"],
        local["vectorCoverage"],
        off["vectorCoverageLow"],
    )
    assert any("vector coverage is low" in warning for warning in local["warnings"])
    assert ["memhtml index embed"] == failure["suggestions"]
    assert "vector coverage below the floor" in failure["error"]


def test_doctor_names_the_bedrock_space_without_calling_aws(store: Store) -> None:
    """Configured for Bedrock, doctor reports Titan's space (not the local default) and the
    mismatch with the MiniLM-built index, without credentials or network."""
    failure = unhealthy(store.run("doctor", env={"MEMHTML_EMBED": "bedrock"}))
    report = failure["detail"]
    assert ("amazon.titan-embed-text-v2:0@1024", False) == (
        report["configuredEmbedModel"],
        report["embedModelMatches"],
    )
    assert "memhtml index rebuild --embed" in failure["suggestions"]


def test_state_export_then_import_round_trips(store: Store) -> None:
    """state export commits the sidecar once; state import replays its rows."""
    store.ok("read", EXPORT_PATH)
    exported = store.ok("state", "export")
    again = store.ok("state", "export")
    imported = store.ok("state", "import")
    assert (".memhtml/state/access.jsonl", 1, True) == (
        exported["path"],
        exported["rows"],
        exported["written"],
    )
    assert (False, None) == (again["written"], again["commitSha"])
    assert (1, 1, 0) == (imported["rows"], imported["restored"], imported["skipped"])


def test_a_skipped_file_reports_each_findings_detail(store: Store) -> None:
    """An unparseable file in the tree is skipped by index update with codes and details."""
    (store.root / "areas" / "inbox" / "broken.html").write_text(
        "<!doctype html><html><head><title>x</title></head><body></body></html>",
        encoding="utf-8",
    )
    report = store.ok("index", "update")
    (skipped,) = [s for s in report["skipped"] if s["path"] == "areas/inbox/broken.html"]
    assert ["path", "reason", "detail"] == list(skipped)
    first_code = skipped["reason"].split("; ")[0]
    assert skipped["detail"].startswith(f"{first_code}: ")
