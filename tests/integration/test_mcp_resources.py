"""Memory files as MCP resources, through the SDK's stdio client: a listing that pages, the file
now and at a commit, and protocol errors that carry the CLI's code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import attrs
import pytest
from dulwich.repo import Repo
from mcp import MCPError
from mcp.types import TextResourceContents

from memhtml.app.mcp.resources import PAGE_SIZE
from tests.integration.mcp_session import McpSession
from tests.integration.test_cli_commands_store import data, invoke

FILLERS: Final = PAGE_SIZE + 5
RESOURCE_NOT_FOUND: Final = -32002
INVALID_PARAMS: Final = -32602


@attrs.frozen(kw_only=True)
class Served:
    """The store, the path that was corrected, the commit before it, and the session."""

    root: Path
    old_path: str
    old_commit: str
    mcp: McpSession


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """More memories than one page, one of them corrected after the commit we remember."""
    base = tmp_path_factory.mktemp("mcp-resources")
    root = base / "store"
    data(invoke(["init", "--repo", str(root)]))
    ops = [
        {"op": "write", "title": f"Filler {n}", "type": "semantic", "claim": f"Filler {n} holds."}
        for n in range(FILLERS)
    ]
    applied = data(invoke(["--repo", str(root), "apply"], stdin="\n".join(map(json.dumps, ops))))
    old_path = applied["results"][0]["path"]
    old_commit = applied["commitSha"]
    fix = ["correct", old_path, "--title", "Filler zero, revised", "--claim", "Zero changed."]
    data(invoke(["--repo", str(root), *fix]))
    session = McpSession(root, base / "server.stderr")
    try:
        yield Served(root=root, old_path=old_path, old_commit=old_commit, mcp=session)
    finally:
        session.close()


def _text(contents: object) -> str:
    assert isinstance(contents, TextResourceContents)
    assert "text/html" == contents.mime_type
    return contents.text


def test_the_listing_pages_through_every_active_memory(served: Served) -> None:
    """Two pages (100 + the rest), the cursor between them, the same paths `memhtml list` has."""
    mcp = served.mcp
    first = mcp.portal.call(mcp.client.list_resources)
    assert PAGE_SIZE == len(first.resources)
    assert first.next_cursor is not None
    second = mcp.portal.call(lambda: mcp.client.list_resources(cursor=first.next_cursor))
    assert second.next_cursor is None
    listed = [resource.name for resource in (*first.resources, *second.resources)]
    every = data(invoke(["--repo", str(served.root), "list", "--limit", "500"]))["files"]
    assert [item["path"] for item in every] == listed
    assert f"memhtml://memory/{listed[0]}" == first.resources[0].uri


def test_both_uri_templates_are_listed(served: Served) -> None:
    """The file now and the file at a commit, both text/html."""
    mcp = served.mcp
    templates = mcp.portal.call(mcp.client.list_resource_templates).resource_templates
    assert ["memhtml://memory/{+path}", "memhtml://at/{commit}/{+path}"] == [
        template.uri_template for template in templates
    ]


def test_a_memory_resource_is_the_file_on_disk(served: Served) -> None:
    """memhtml://memory/<path> returns the working-tree file, byte for byte."""
    listed = served.mcp.portal.call(served.mcp.client.list_resources).resources[3]
    (contents,) = served.mcp.read(listed.uri).contents
    on_disk = (served.root / listed.name).read_text(encoding="utf-8")
    assert on_disk == _text(contents)


def test_a_past_version_is_read_at_its_commit(served: Served) -> None:
    """memhtml://at/<sha>/<path> returns the blob of that commit, even after the file moved."""
    with Repo(str(served.root)) as repo:
        commit: Any = repo[served.old_commit.encode()]
        tree: Any = repo[commit.tree]
        _, blob = tree.lookup_path(repo.__getitem__, served.old_path.encode())
        expected = repo[blob].as_raw_string().decode("utf-8")
    assert not (served.root / served.old_path).exists()
    for commit in (served.old_commit, served.old_commit[:12]):
        uri = f"memhtml://at/{commit}/{served.old_path}"
        (contents,) = served.mcp.read(uri).contents
        assert expected == _text(contents)


@pytest.mark.parametrize(
    ("uri", "rpc_code", "code"),
    [
        ("memhtml://memory/areas/inbox/nope.html", RESOURCE_NOT_FOUND, "ERR_PATH_NOT_FOUND"),
        ("memhtml://memory/../outside.html", INVALID_PARAMS, "ERR_INVALID_FLAG"),
        ("memhtml://memory/%2E%2E/outside.html", INVALID_PARAMS, "ERR_INVALID_FLAG"),
        ("memhtml://at/zzzz/areas/inbox/a.html", INVALID_PARAMS, "ERR_INVALID_FLAG"),
        (f"memhtml://at/{'0' * 40}/areas/inbox/a.html", RESOURCE_NOT_FOUND, "ERR_PATH_NOT_FOUND"),
        ("memhtml://elsewhere/a.html", INVALID_PARAMS, "ERR_INVALID_FLAG"),
    ],
)
def test_bad_resource_uris_are_protocol_errors_with_the_cli_code(
    served: Served, uri: str, rpc_code: int, code: str
) -> None:
    """Unknown files are −32002, bad URIs and escaping paths −32602; data names the ERR_* code."""
    with pytest.raises(MCPError) as raised:
        served.mcp.read(uri)
    assert (rpc_code, code) == (raised.value.code, raised.value.data["code"])
    assert raised.value.message.startswith(f"{code}: ")
