"""Every MCP tool through the SDK's stdio client against a spawned ``memhtml mcp``, compared with
the CLI's ``data`` for the same store, and every tool's bad input checked for the CLI's code.

One server for the module. Writes are compared on twin stores: the server writes to one, the
CLI (in-process) to a byte-identical copy, and the two results must agree but for commit shas.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import attrs
import pytest

from memhtml.app.mcp.catalog import TOOLS
from tests.integration.mcp_session import McpSession
from tests.integration.test_cli_commands_store import data, envelope, invoke

# Wall-clock fields: the time an index pass took, and a commit's sha (its timestamp is in it).
VOLATILE: Final = frozenset({"indexUpdateMs", "commitSha"})
SEED: Final = [
    {
        "op": "write",
        "title": "Invoice export runs at 03:30 UTC",
        "type": "procedural",
        "claim": "The invoice export job starts at 03:30 UTC every night.",
        "tag": ["billing"],
        "entity": ["service:invoice-exporter"],
    },
    {
        "op": "write",
        "title": "Ledger lock holds for 40 minutes",
        "type": "semantic",
        "claim": "The nightly ledger lock is held for about 40 minutes.",
        "tag": ["billing"],
    },
    {
        "op": "write",
        "title": "Checkout pool exhaustion causes ECONNRESET",
        "type": "error_pattern",
        "claim": "The checkout API logs ECONNRESET when its connection pool is exhausted.",
        "entity": ["service:checkout-api"],
    },
    {
        "op": "write",
        "title": "Staging data is refreshed every Monday",
        "type": "semantic",
        "claim": "Staging databases are refreshed from production every Monday.",
    },
    {
        "op": "write",
        "title": "The legacy cron host is cron-01",
        "type": "semantic",
        "claim": "Scheduled jobs used to run on the host cron-01.",
    },
]


@attrs.frozen(kw_only=True)
class Stores:
    """The server's store, its CLI twin, the seeded paths in SEED order, and the session."""

    root: Path
    twin: Path
    paths: tuple[str, ...]
    mcp: McpSession

    def cli(self, *args: str, stdin: str = "", root: Path | None = None) -> Any:
        """The CLI's success data on the server's store (or ``root``)."""
        return data(invoke(["--repo", str(root or self.root), *args], stdin=stdin))


def _seed(root: Path) -> tuple[str, ...]:
    data(invoke(["init", "--repo", str(root)]))
    lines = "\n".join(json.dumps(op) for op in SEED)
    applied = data(invoke(["--repo", str(root), "apply"], stdin=lines))
    paths = tuple(result["path"] for result in applied["results"])
    link = ["--repo", str(root), "link", paths[0], "caused_by", paths[1]]
    data(invoke(link))
    return paths


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    """A seeded store served over stdio, and a byte-identical twin for the CLI's writes."""
    base = tmp_path_factory.mktemp("mcp-tools")
    root, twin = base / "served", base / "twin"
    paths = _seed(root)
    shutil.copytree(root, twin, symlinks=True)
    session = McpSession(root, base / "server.stderr")
    try:
        yield Stores(root=root, twin=twin, paths=paths, mcp=session)
    finally:
        session.close()


def stable(value: Any) -> Any:
    """``value`` without the wall-clock keys, at any depth."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(item) for item in value]
    return value


def test_the_server_introduces_itself_and_lists_the_catalog(stores: Stores) -> None:
    """initialize names the server and gives instructions; tools/list is the catalog, in order."""
    client = stores.mcp.client
    listed = stores.mcp.portal.call(client.list_tools)
    assert client.server_info is not None
    assert "memhtml" == client.server_info.name
    assert "recall" in (client.instructions or "")
    assert [tool.name for tool in TOOLS] == [tool.name for tool in listed.tools]
    search = listed.tools[0]
    assert TOOLS[0].input_schema() == search.input_schema
    assert search.annotations is not None
    assert (True, False) == (search.annotations.read_only_hint, search.annotations.open_world_hint)


def test_search_and_recall_return_the_cli_data(stores: Stores) -> None:
    """Ranks, degraded, arms and freshness: the same data as `memhtml search`/`recall`."""
    mcp = stores.mcp
    hits = mcp.data("search", {"query": "invoice export", "limit": 3})
    assert stable(stores.cli("search", "invoice export", "--limit", "3")) == stable(hits)
    assert stores.paths[0] == hits["hits"][0]["path"]
    assert (True, True) == (hits["degraded"], hits["indexFresh"])
    scoped = {"query": "pool", "entity": "service:checkout-api", "type": ["error_pattern"]}
    cli_scoped = stores.cli(
        "search", "pool", "--entity", "service:checkout-api", "--type", "error_pattern"
    )
    assert stable(cli_scoped) == stable(mcp.data("search", scoped))
    pack = mcp.data("recall", {"query": "billing jobs at night", "budget": 2000})
    assert stable(stores.cli("recall", "billing jobs at night", "--budget", "2000")) == stable(pack)


def test_list_pages_like_the_cli(stores: Stores) -> None:
    """Both pages of `list --tag billing --limit 1` and the cursor between them agree."""
    first = stores.mcp.data("list", {"tag": ["billing"], "limit": 1})
    assert stable(stores.cli("list", "--tag", "billing", "--limit", "1")) == stable(first)
    cursor = first["nextCursor"]
    assert cursor is not None
    second = stores.mcp.data("list", {"tag": ["billing"], "limit": 1, "cursor": cursor})
    cli_second = stores.cli("list", "--tag", "billing", "--limit", "1", "--cursor", cursor)
    assert stable(cli_second) == stable(second)
    assert {stores.paths[0], stores.paths[1]} == {
        first["files"][0]["path"],
        second["files"][0]["path"],
    }


def test_read_index_status_and_doctor_return_the_cli_data(stores: Stores) -> None:
    """One memory in full, the index report and the health report, as the CLI prints them."""
    path = stores.paths[0]
    assert stable(stores.cli("read", path)) == stable(stores.mcp.data("read", {"path": path}))
    assert stable(stores.cli("index", "status")) == stable(stores.mcp.data("index_status"))
    assert stable(stores.cli("doctor")) == stable(stores.mcp.data("doctor", {"fix": False}))


def test_read_known_at_returns_the_cli_data(stores: Stores) -> None:
    """A read as of a later instant names the commit that answered, as the CLI does."""
    path = stores.paths[0]
    cli = stores.cli("read", path, "--known-at", "2999-01-01")
    assert isinstance(cli["knownAtCommit"], str)
    assert stable(cli) == stable(stores.mcp.data("read", {"path": path, "known_at": "2999-01-01"}))


def test_search_recall_and_list_known_at_return_the_cli_data(stores: Stores) -> None:
    """search, recall and list as of an instant name the commit that answered, as the CLI
    does, and before the first commit know nothing."""
    later, before = "2999-01-01", "1999-01-01"
    cli = stores.cli("search", "export", "--known-at", later)
    assert isinstance(cli["knownAtCommit"], str)
    assert stable(cli) == stable(stores.mcp.data("search", {"query": "export", "known_at": later}))
    assert stable(stores.cli("recall", "export", "--known-at", later)) == stable(
        stores.mcp.data("recall", {"query": "export", "known_at": later})
    )
    listed = stores.cli("list", "--known-at", before)
    assert ([], None) == (listed["files"], listed["knownAtCommit"])
    assert stable(listed) == stable(stores.mcp.data("list", {"known_at": before}))


def test_every_write_tool_matches_the_cli_on_a_twin_store(stores: Stores) -> None:
    """write, apply, correct, archive, link and reinforce: same data as the CLI on the twin."""
    mcp, twin = stores.mcp, stores.twin
    export, lock, pool, staging, legacy = stores.paths
    title = "Pager rota lives in the ops wiki"
    note: dict[str, Any] = {"title": title, "type": "semantic", "tag": ["ops"]}
    claim = "The on-call pager rota is kept on the ops wiki."
    cli_write = ["write", "--title", title, "--type", "semantic", "--tag", "ops"]
    assert stable(stores.cli(*cli_write, "--claim", claim, root=twin)) == stable(
        mcp.data("write", {**note, "claim": claim})
    )
    ops = [
        {"op": "write", "title": "Ops wiki moved", "type": "episodic", "claim": "It moved."},
        {"op": "link", "src": pool, "rel": "relates_to", "dst": export},
    ]
    batch = "\n".join(json.dumps(op) for op in ops)
    assert stable(stores.cli("apply", stdin=batch, root=twin)) == stable(
        mcp.data("apply", {"ops": ops})
    )
    fix = {"title": "Staging data is refreshed every Tuesday", "reason": "moved"}
    tuesday = "Staging databases are refreshed from production every Tuesday."
    cli_fix = ["correct", staging, "--title", fix["title"], "--claim", tuesday, "--reason", "moved"]
    assert stable(stores.cli(*cli_fix, root=twin)) == stable(
        mcp.data("correct", {"target": staging, "claim": tuesday, **fix})
    )
    retire = {"path": legacy, "reason": "host retired"}
    assert stable(stores.cli("archive", legacy, "--reason", "host retired", root=twin)) == stable(
        mcp.data("archive", retire)
    )
    assert stable(stores.cli("link", lock, "supports", export, root=twin)) == stable(
        mcp.data("link", {"src": lock, "rel": "supports", "dst": export})
    )
    bump = mcp.data("reinforce", {"paths": [lock], "signal": "positive"})
    assert stores.cli("reinforce", lock, "--signal", "positive", root=twin) == bump
    assert {"bumped": [lock], "cooledDown": [], "signal": "positive"} == bump


def test_an_external_write_is_seen_by_the_next_call(stores: Stores) -> None:
    """Freshness per call: a memory another process commits is found by the next search."""
    claim = "The zqxjv cache is warmed at 05:00 UTC."
    written = stores.cli(
        "write", "--title", "Cache warm-up time", "--type", "semantic", "--claim", claim
    )
    hits = stores.mcp.data("search", {"query": "zqxjv"})
    lexical = [hit["path"] for hit in hits["hits"] if "fts" in hit["ranks"]]
    assert [written["path"]] == lexical


NOPE: Final = "areas/inbox/nope.html"
OUT: Final = "../outside.html"
WRITE: Final = {"title": "T", "type": "semantic", "claim": "A claim."}
WRITE_FLAGS: Final = "write --title T --type semantic --claim 'A claim.'"
HTML: Final = "<p><mark>A.</mark></p>"
DEEP: Final = json.loads("[" * 40 + "]" * 40)  # past apply's 32 levels, within the SDK's own
BOTH_FLAGS: Final = f"{WRITE_FLAGS} --article-html '{HTML}'"
FIX: Final = {"title": "T", "claim": "c."}
FIX_FLAGS: Final = "--title T --claim c."
# (tool, arguments, expected code, the same mistake on the command line or "").
BAD_INPUT: Final[list[tuple[str, dict[str, Any], str, str]]] = [
    ("search", {"query": ""}, "ERR_INVALID_FLAG", ""),
    ("search", {"query": 42}, "ERR_INVALID_FLAG", ""),
    ("search", {"query": "x", "limit": 500}, "ERR_INVALID_FLAG", ""),
    ("search", {"query": "x", "entity": "ops"}, "ERR_INVALID_FLAG", "search x --entity ops"),
    ("recall", {}, "ERR_MISSING_ARGUMENT", ""),
    ("recall", {"query": "  "}, "ERR_INVALID_FLAG", ""),
    ("read", {"path": NOPE}, "ERR_PATH_NOT_FOUND", f"read {NOPE}"),
    ("read", {"path": OUT}, "ERR_INVALID_FLAG", f"read {OUT}"),
    ("read", {"path": ["a.html"]}, "ERR_INVALID_FLAG", ""),
    ("read", {"path": NOPE, "known_at": "yesterday"}, "ERR_INVALID_FLAG", ""),
    ("list", {"para": "attic"}, "ERR_INVALID_FLAG", ""),
    ("list", {"limit": 0}, "ERR_INVALID_FLAG", ""),
    ("write", {**WRITE, "type": "arc"}, "ERR_INVALID_FLAG", ""),
    ("write", {"type": "semantic", "claim": "c."}, "ERR_MISSING_ARGUMENT", ""),
    ("write", {**WRITE, "importance": 11}, "ERR_INVALID_FLAG", ""),
    ("write", {**WRITE, "article_html": HTML}, "ERR_INVALID_FLAG", BOTH_FLAGS),
    ("apply", {"ops": [{"op": "write", **WRITE}] * 501}, "ERR_INVALID_FLAG", ""),
    ("apply", {"ops": [{"op": "delete", "path": "x.html"}]}, "ERR_INVALID_FLAG", "apply"),
    ("apply", {"ops": [{"op": "write", "type": "semantic"}]}, "ERR_MISSING_ARGUMENT", "apply"),
    ("apply", {"ops": "write"}, "ERR_INVALID_FLAG", ""),
    ("apply", {"ops": [{"op": "write", **WRITE, "tag": DEEP}]}, "ERR_INVALID_FLAG", "apply"),
    ("apply", {"ops": [{"op": "archive", "path": NOPE, "reason": "r"}]}, "ERR_BATCH_ABORTED", "apply"),  # noqa: E501
    ("search", {"query": "q" * 4097}, "ERR_INVALID_FLAG", "search " + "q" * 4097),
    ("recall", {"query": "q" * 4097}, "ERR_INVALID_FLAG", "recall " + "q" * 4097),
    ("correct", {"target": NOPE, **FIX}, "ERR_PATH_NOT_FOUND", f"correct {NOPE} {FIX_FLAGS}"),
    ("correct", {"target": "/../x", **FIX}, "ERR_INVALID_FLAG", f"correct /../x {FIX_FLAGS}"),
    ("archive", {"path": NOPE, "reason": "r"}, "ERR_PATH_NOT_FOUND", f"archive {NOPE} --reason r"),
    ("archive", {"path": OUT, "reason": "r"}, "ERR_INVALID_FLAG", f"archive {OUT} --reason r"),
    ("archive", {"path": NOPE}, "ERR_MISSING_ARGUMENT", ""),
    ("link", {"src": NOPE, "rel": "supports", "dst": NOPE}, "ERR_INVALID_FLAG", f"link {NOPE} supports {NOPE}"),  # noqa: E501
    ("link", {"src": NOPE, "rel": "authored_by", "dst": OUT}, "ERR_INVALID_FLAG", ""),
    ("reinforce", {"paths": [NOPE]}, "ERR_PATH_NOT_FOUND", f"reinforce {NOPE}"),
    ("reinforce", {"paths": [OUT]}, "ERR_INVALID_FLAG", f"reinforce {OUT}"),
    ("reinforce", {"paths": ["a.html"] * 201}, "ERR_INVALID_FLAG", ""),
    ("reinforce", {"paths": [NOPE], "signal": "great"}, "ERR_INVALID_FLAG", ""),
    ("index_status", {"verbose": True}, "ERR_INVALID_FLAG", ""),
    ("doctor", {"fix": "yes"}, "ERR_INVALID_FLAG", ""),
    ("neighbors", {"path": NOPE}, "ERR_PATH_NOT_FOUND", f"neighbors {NOPE}"),
    ("neighbors", {"path": NOPE, "depth": 4}, "ERR_INVALID_FLAG", ""),
    ("resolve", {"path": NOPE}, "ERR_UNKNOWN_COMMAND", ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "cli_args"),
    BAD_INPUT,
    ids=[f"{case[0]}-{n}" for n, case in enumerate(BAD_INPUT)],
)
def test_bad_input_is_a_tool_error_with_the_cli_code(
    stores: Stores, tool: str, arguments: dict[str, Any], code: str, cli_args: str
) -> None:
    """A tool error (never a crash) with the code, and the CLI's own message for the same call."""
    result = stores.mcp.call(tool, arguments)
    failure = result.structured_content
    assert (True, code) == (result.is_error, failure["code"])
    assert f"{code}: {failure['error']}" == result.content[0].text.splitlines()[0]  # type: ignore[union-attr]
    if cli_args:
        stdin = json.dumps(arguments["ops"][0]) if tool == "apply" else ""
        cli = envelope(invoke(["--repo", str(stores.root), *shlex.split(cli_args)], stdin=stdin))
        assert (cli["code"], cli["error"]) == (failure["code"], failure["error"])


def test_an_aborted_batch_carries_every_op_result_as_detail(stores: Stores) -> None:
    """ERR_BATCH_ABORTED names the refused op and its code; detail is batch.applied's data,
    the write before it skipped and nothing committed, as the CLI prints it."""
    ops = [{"op": "write", **WRITE}, {"op": "archive", "path": NOPE, "reason": "r"}]
    result = stores.mcp.call("apply", {"ops": ops})
    failure = result.structured_content
    cli = envelope(
        invoke(["--repo", str(stores.root), "apply"], stdin="\n".join(map(json.dumps, ops)))
    )
    assert (True, "ERR_BATCH_ABORTED") == (result.is_error, failure["code"])
    assert "op index 1 (archive): ERR_PATH_NOT_FOUND" in failure["error"]
    assert [(False, True), (False, False)] == [
        (r["ok"], r["skipped"]) for r in failure["detail"]["results"]
    ]
    assert (True, None) == (failure["detail"]["aborted"], failure["detail"]["commitSha"])
    assert cli == {"apiVersion": "1", **failure}


def test_the_server_outlives_every_bad_call(stores: Stores) -> None:
    """After all the refusals above, the same process still answers."""
    assert "status" == stores.mcp.data("index_status")["mode"]
