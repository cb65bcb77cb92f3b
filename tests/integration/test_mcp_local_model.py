"""The MCP server with the bundled local model: a hybrid search against the CLI's, and the
write tools' near-duplicate assist.

The MCP tests that load the model: the warm server embeds the query itself, and the vector arm
must rank next to full text, with the same data the command line prints; its writes embed, so
the near-duplicate assist checks by default.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from tests.integration.mcp_session import McpSession
from tests.integration.test_cli_commands_store import data, invoke

LOCAL: Final = {"MEMHTML_EMBED": "local"}
FACTS: Final = (
    ("Ledger lock holds for 40 minutes", "The nightly ledger lock is held for about 40 minutes."),
    ("Invoice export runs at 03:30 UTC", "The invoice export job starts at 03:30 UTC every night."),
    ("Pager rota lives in the ops wiki", "The on-call pager rota is kept on the ops wiki."),
)
QUERY: Final = "how long is the nightly lock held"


def test_a_hybrid_search_matches_the_cli_with_the_local_model(tmp_path: Path) -> None:
    """Not degraded, the vector arm ran, and the hits equal `memhtml search` on the same store."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)], env=LOCAL))
    for title, claim in FACTS:
        write = ["write", "--title", title, "--type", "semantic", "--claim", claim]
        data(invoke(["--repo", str(root), *write], env=LOCAL))
    session = McpSession(root, tmp_path / "server.stderr", env=LOCAL)
    try:
        hits = session.data("search", {"query": QUERY, "limit": 3})
    finally:
        session.close()
    cli = data(invoke(["--repo", str(root), "search", QUERY, "--limit", "3"], env=LOCAL))
    assert (False, 1.0) == (hits["degraded"], hits["vectorCoverage"])
    assert "vector" in hits["arms"]
    assert "vector" in hits["hits"][0]["ranks"]
    assert {**cli, "indexUpdateMs": 0} == {**hits, "indexUpdateMs": 0}


def test_the_write_tools_carry_the_near_duplicate_assist(tmp_path: Path) -> None:
    """The warm server embeds, so ``report`` checks: write lists the live restatement with
    its similarity, ``skip`` writes nothing, and apply carries the same fields."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)], env=LOCAL))
    title, claim = FACTS[1]
    write = ["write", "--title", title, "--type", "semantic", "--claim", claim]
    older = data(invoke(["--repo", str(root), *write], env=LOCAL))["path"]
    again = "Every night the invoice export job starts at 03:30 UTC."
    session = McpSession(root, tmp_path / "server.stderr", env=LOCAL)
    try:
        reported = session.data("write", {"title": "Export", "type": "semantic", "claim": again})
        skipped = session.data(
            "write",
            {
                "title": "Export again",
                "type": "semantic",
                "claim": "The invoice export job begins at 03:30 UTC each night.",
                "on_near_duplicate": "skip",
            },
        )
        op = {"op": "write", "title": "Pager", "type": "semantic", "claim": FACTS[2][1]}
        applied = session.data("apply", {"ops": [op], "near_duplicate_floor": 0.5})
    finally:
        session.close()
    near = reported["nearDuplicates"]
    assert ([older], None) == ([n["path"] for n in near], reported["nearDuplicateNote"])
    assert 0.935 <= near[0]["similarity"] <= 1.0
    assert (False, True) == (skipped["created"], skipped["nearDuplicateSkipped"])
    assert (1, None) == (applied["summary"]["written"], applied["nearDuplicateNote"])
