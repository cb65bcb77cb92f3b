"""Bad input to the store commands: each is refused with its stable code, and nothing is written.

"Nothing written" is checked byte for byte over the work tree and ``.git`` (the databases
aside, which an index pass may touch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_cli_commands_store import (
    EXPORT_WRITE,
    Store,
    envelope,
    invoke,
    snapshot,
)

PLAIN_WRITE = ["write", "--title", "Tiny fact", "--type", "semantic"]


def one_memory_store(root: Path) -> Store:
    """An initialized store at ``root`` holding one memory."""
    assert 0 == invoke(["init", "--repo", str(root)]).exit_code
    made = Store(root)
    assert 0 == made.run(*EXPORT_WRITE).exit_code
    return made


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """One store for the module: every test here is refused, and `refused` checks the tree is
    byte-identical before and after, so no test can leave a change for the next to meet."""
    return one_memory_store(tmp_path_factory.mktemp("refusals") / "store")


def refused(store: Store, args: list[str], code: str, exit_code: int) -> Any:
    """Run ``args``, check the code and exit status, and that the tree did not change."""
    before = snapshot(store.root)
    result = store.run(*args)
    failure = envelope(result)
    assert (exit_code, code) == (result.exit_code, failure["code"])
    assert before == snapshot(store.root)
    assert isinstance(failure, dict)
    return failure


def test_missing_repo_is_repo_required_and_creates_nothing(tmp_path: Path) -> None:
    """A root that is no memhtml store: ERR_REPO_REQUIRED, exit 2, `init` suggested, no files."""
    root = tmp_path / "nowhere"
    result = invoke(["--repo", str(root), *PLAIN_WRITE, "--claim", "A fact."])
    failure = envelope(result)
    assert (2, "ERR_REPO_REQUIRED") == (result.exit_code, failure["code"])
    assert any(s.startswith("memhtml init --repo") for s in failure["suggestions"])
    assert not root.exists()


def test_refuse_env_root_without_repo_is_repo_required(tmp_path: Path) -> None:
    """MEMHTML_REFUSE_ENV_ROOT without --repo: ERR_REPO_REQUIRED even when MEMHTML_ROOT is set."""
    env = {"MEMHTML_ROOT": str(tmp_path), "MEMHTML_REFUSE_ENV_ROOT": "1"}
    result = invoke([*PLAIN_WRITE, "--claim", "A fact."], env=env)
    assert (2, "ERR_REPO_REQUIRED") == (result.exit_code, envelope(result)["code"])


@pytest.mark.parametrize(
    "args",
    [
        ["archive", "areas/inbox/no-such-memory.html", "--reason", "gone"],
        ["correct", "areas/inbox/no-such-memory.html", "--title", "T", "--claim", "A fact."],
        [
            "link",
            "resources/billing/invoice-export-runs-at-03-30-utc.html",
            "supports",
            "areas/inbox/no-such-memory.html",
        ],
    ],
)
def test_unknown_memory_path_is_path_not_found(store: Store, args: list[str]) -> None:
    """A path naming no memory: ERR_PATH_NOT_FOUND, exit 1, tree unchanged."""
    refused(store, args, "ERR_PATH_NOT_FOUND", 1)


@pytest.mark.parametrize(
    "html",
    [
        "<p>An article without its claim mark.</p>",
        "<p><mark>A claim.</mark></p><script>alert(1)</script>",
        "<p><mark>One claim.</mark> <mark>Two claims.</mark></p>",
    ],
)
def test_invalid_article_html_is_invalid_memory(store: Store, html: str) -> None:
    """Article HTML breaking docs/format.md §10: ERR_INVALID_MEMORY, exit 1, tree unchanged."""
    refused(store, [*PLAIN_WRITE, "--article-html", html], "ERR_INVALID_MEMORY", 1)


@pytest.mark.parametrize("memory_type", ["opinion", "arc", "Semantic", ""])
def test_type_outside_the_writable_vocabulary_is_invalid_flag(
    store: Store, memory_type: str
) -> None:
    """A type outside the nine writable ones (arc included): ERR_INVALID_FLAG, exit 2."""
    args = ["write", "--title", "T", "--type", memory_type, "--claim", "A fact."]
    refused(store, args, "ERR_INVALID_FLAG", 2)


def test_claim_beside_article_html_is_invalid_flag(store: Store) -> None:
    """--claim and --article-html together: ERR_INVALID_FLAG, exit 2."""
    args = [*PLAIN_WRITE, "--claim", "A.", "--article-html", "<p><mark>A.</mark></p>"]
    refused(store, args, "ERR_INVALID_FLAG", 2)


def test_neither_claim_nor_article_is_invalid_flag(store: Store) -> None:
    """A write with only --body: ERR_INVALID_FLAG, exit 2."""
    refused(store, [*PLAIN_WRITE, "--body", "Just a paragraph."], "ERR_INVALID_FLAG", 2)


def test_non_iso_event_time_is_invalid_flag(store: Store) -> None:
    """--event-at that is not ISO: ERR_INVALID_FLAG, exit 2."""
    args = [*PLAIN_WRITE, "--claim", "A fact.", "--event-at", "last tuesday"]
    refused(store, args, "ERR_INVALID_FLAG", 2)


@pytest.mark.parametrize("path", ["../escape.html", "resources/../../escape.html", "a\\b.html"])
def test_write_path_escaping_the_root_is_refused(store: Store, path: str) -> None:
    """An explicit --path that could leave the repository: ERR_INVALID_FLAG, nothing written."""
    args = [*PLAIN_WRITE, "--claim", "A fact.", "--path", path]
    refused(store, args, "ERR_INVALID_FLAG", 2)
    assert not (store.root.parent / "escape.html").exists()


@pytest.mark.parametrize("path", ["../store/areas/x.html", "areas/../../x.html"])
def test_archive_path_escaping_the_root_is_refused(store: Store, path: str) -> None:
    """archive of a path with `..` segments: ERR_INVALID_FLAG, nothing moved."""
    refused(store, ["archive", path, "--reason", "r"], "ERR_INVALID_FLAG", 2)


def test_write_through_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    """A folder that is a symlink leaving the store receives nothing: refused, exit 1."""
    store = one_memory_store(tmp_path / "store")  # its own: the symlink changes the tree
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / "resources" / "out").symlink_to(outside, target_is_directory=True)
    args = [*PLAIN_WRITE, "--claim", "A fact.", "--path", "resources/out/fact.html"]
    result = store.run(*args)
    assert 1 == result.exit_code
    assert envelope(result)["code"] in {"ERR_WRITE_CONFLICT", "ERR_INVALID_FLAG"}
    assert [] == list(outside.iterdir())


def test_unknown_flag_suggests_the_nearest(store: Store) -> None:
    """A misspelt flag: ERR_INVALID_FLAG with the nearest real flag suggested."""
    failure = refused(store, [*PLAIN_WRITE, "--clam", "A fact."], "ERR_INVALID_FLAG", 2)
    assert "--claim" in failure["suggestions"]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/etc/passwd", "it must start with a PARA bucket"),
        (".memhtml/x.html", "not .memhtml/"),
        ("areas/inbox/x.txt", "a memory file's name ends in .html"),
        ("areas", "it must name a file inside the bucket"),
    ],
)
def test_an_unusable_path_is_refused_with_its_reason(store: Store, path: str, reason: str) -> None:
    """--path that is no memory path: ERR_INVALID_FLAG naming the rule, nothing written."""
    failure = refused(
        store, [*PLAIN_WRITE, "--claim", "A fact.", "--path", path], "ERR_INVALID_FLAG", 2
    )
    assert failure["error"].startswith(f"--path {path} is not a memory path: ")
    assert reason in failure["error"]


def test_a_refused_article_carries_each_findings_detail(store: Store) -> None:
    """ERR_INVALID_MEMORY names the finding's code and its detail, not the code alone."""
    html = "<p><mark>A claim.</mark></p><script>alert(1)</script>"
    failure = refused(store, [*PLAIN_WRITE, "--article-html", html], "ERR_INVALID_MEMORY", 1)
    code, _, detail = failure["error"].partition(": ")
    assert ("forbidden-element", True) == (code, "script" in detail)


def test_a_near_miss_relation_suggests_the_right_one(store: Store) -> None:
    """`link A related B` is refused with `relates_to` in the message and a runnable line."""
    src = "resources/billing/invoice-export-runs-at-03-30-utc.html"
    failure = refused(store, ["link", src, "related", src], "ERR_INVALID_FLAG", 2)
    assert "did you mean relates_to?" in failure["error"]
    assert [f"memhtml link {src} relates_to {src}"] == failure["suggestions"]


@pytest.mark.parametrize("command", ["search", "recall"])
def test_a_blank_query_is_refused_pointing_at_list(store: Store, command: str) -> None:
    """An empty or blank query is ERR_INVALID_FLAG, as the MCP tools have it."""
    for query in ("", "   "):
        failure = refused(store, [command, query], "ERR_INVALID_FLAG", 2)
        assert "use memhtml list to browse" in failure["error"]


def test_reading_a_missing_memory_prints_only_its_envelope(store: Store) -> None:
    """An expected refusal logs nothing: stderr stays empty."""
    result = store.run("read", "areas/inbox/no-such-memory.html")
    assert ("ERR_PATH_NOT_FOUND", "") == (envelope(result)["code"], result.stderr)
