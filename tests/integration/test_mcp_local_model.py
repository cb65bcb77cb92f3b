"""A hybrid search through the MCP server with the bundled local model, against the CLI's.

The one MCP test that loads the model: the warm server embeds the query itself, and the
vector arm must rank next to full text, with the same data the command line prints.
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
