"""``memhtml trace scan|list|show`` end to end over the fixtures, with real files, git and SQLite;
session links from write/read/reinforce, ``read``'s sessions, and a rebuild that keeps traces."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Final

import pytest

from tests.integration.test_cli_commands_store import LOCK_WRITE, Store, data, envelope, invoke

FIXTURES: Final = Path(__file__).resolve().parents[1] / "fixtures" / "traces"
CLAUDE_SESSION: Final = "7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f"
CODEX_SESSION: Final = "0199379a-7c2e-7d41-9a5b-3e8f1c2d4b6a"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home folder holding both agents' session folders (copies of the fixtures)."""
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "claude", home / ".claude" / "projects")
    shutil.copytree(FIXTURES / "codex", home / ".codex" / "sessions")
    return home


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A freshly initialized store."""
    root = tmp_path / "store"
    data(invoke(["init", "--repo", str(root)]))
    return Store(root)


def scan(store: Store, home: Path, *dirs: str) -> Any:
    """``trace scan`` with ``HOME`` pointing at ``home`` (never the real one)."""
    env = {"HOME": str(home), "CLAUDE_CONFIG_DIR": None, "CODEX_HOME": None}
    return data(store.run("trace", "scan", *dirs, env=env))


def test_scan_defaults_to_both_agents_folders_and_rescans_nothing(store: Store, home: Path) -> None:
    """Both default folders are scanned; the second scan skips every file."""
    first = scan(store, home)
    second = scan(store, home)
    assert [str(home / ".claude/projects"), str(home / ".codex/sessions")] == first["roots"]
    assert (3, 3, 0, 2, 5, 1, 3) == (
        first["files"],
        first["rescanned"],
        first["skipped"],
        first["sessions"],
        first["promptsWritten"],
        first["records"]["malformed"],
        first["records"]["unknown"],
    )
    assert (3, 0, 0, 0) == (
        second["skipped"],
        second["rescanned"],
        second["tailed"],
        second["bytesRead"],
    )


def test_scan_without_agent_folders_reports_no_roots(store: Store, tmp_path: Path) -> None:
    """No default folder exists: nothing is scanned, and stderr says how to name one."""
    result = store.run("trace", "scan", env={"HOME": str(tmp_path / "empty")})
    assert ([], 0) == (data(result)["roots"], data(result)["files"])
    assert "trace scan DIR" in result.stderr


def test_a_missing_folder_is_reported_as_failed(store: Store, tmp_path: Path) -> None:
    """A named folder that does not exist is listed in failed, not a crash."""
    missing = tmp_path / "nowhere"
    report = scan(store, tmp_path, str(missing))
    assert [str(missing)] == [f["path"] for f in report["failed"]]


def test_list_shows_sessions_newest_first_with_filters(store: Store, home: Path) -> None:
    """Codex (September) before Claude (August); project, source and time filters apply."""
    scan(store, home)

    def ids(*flags: str) -> list[str]:
        return [s["sessionId"] for s in store.ok("trace", "list", *flags)["sessions"]]

    assert [CODEX_SESSION, CLAUDE_SESSION] == ids()
    assert [CLAUDE_SESSION] == ids("--project", "/home/ada/code/shop")
    assert [CLAUDE_SESSION] == ids("--project", "-home-ada-code-shop")
    assert [CODEX_SESSION] == ids("--source", "codex")
    assert [CODEX_SESSION] == ids("--since", "2025-09-01")
    assert [CLAUDE_SESSION] == ids("--until", "2025-09-01", "--limit", "5")
    assert [] == ids("--project", "/home/ada/code/sho")
    tilde = store.run("trace", "list", "--project", "~/shop/", env={"HOME": "/home/ada/code"})
    assert [CLAUDE_SESSION] == [s["sessionId"] for s in data(tilde)["sessions"]]


def test_list_refuses_an_inverted_window(store: Store) -> None:
    """--since after --until is the caller's error."""
    result = store.run("trace", "list", "--since", "2026-02-01", "--until", "2026-01-01")
    assert (2, "ERR_INVALID_FLAG") == (result.exit_code, envelope(result)["code"])


def test_show_lists_prompts_and_the_memories_the_session_touched(store: Store, home: Path) -> None:
    """The session's fields and prompts, and the memory it wrote and read under its id."""
    scan(store, home)
    session_env = {"MEMHTML_SESSION_ID": CLAUDE_SESSION}
    written = data(store.run(*LOCK_WRITE, env=session_env))
    data(store.run("read", written["path"], env=session_env))
    data(store.run("reinforce", written["path"], "--session-id", CLAUDE_SESSION))
    shown = store.ok("trace", "show", CLAUDE_SESSION)
    session = shown["session"]
    assert (
        "claude",
        "/home/ada/code/shop",
        "fix/login-timezone",
        "claude-opus-4-1-20250805",
        "1.0.102",
        "2025-08-30T09:12:00.001Z",
        "2025-08-30T09:23:45.118Z",
        3,
        4,
        1,
        "Fix the flaky login test on CI",
    ) == (
        session["source"],
        session["cwd"],
        session["gitBranch"],
        session["model"],
        session["version"],
        session["startedAt"],
        session["endedAt"],
        session["promptCount"],
        session["turnCount"],
        session["agentCount"],
        session["aiTitle"],
    )
    assert [None, "3f2a9c1d", None] == [p["agentId"] for p in shown["prompts"]]
    assert {
        "wrote": [written["path"]],
        "read": [written["path"]],
        "corrected": [],
        "reinforced": [written["path"]],
    } == shown["memories"]
    detail = store.ok("read", written["path"])
    assert [(CLAUDE_SESSION, ["wrote", "read", "reinforced"])] == [
        (s["sessionId"], s["kinds"]) for s in detail["sessions"]
    ]


def test_show_of_an_unknown_session_is_not_found(store: Store) -> None:
    """ERR_PATH_NOT_FOUND, exit 1, pointing at trace scan."""
    result = store.run("trace", "show", "no-such-session")
    document = envelope(result)
    assert (1, "ERR_PATH_NOT_FOUND") == (result.exit_code, document["code"])
    assert "trace scan" in document["error"]


def test_an_index_rebuild_keeps_the_trace_plane(store: Store, home: Path) -> None:
    """After index rebuild the sessions and their prompts are all still there."""
    scan(store, home)
    before = store.ok("trace", "show", CODEX_SESSION)
    data(store.run("index", "rebuild", "--no-embed"))
    after = store.ok("trace", "show", CODEX_SESSION)
    assert (before, 2) == (after, len(after["prompts"]))
