"""One naming rule for envelope keys (issue 18): every key at every depth of every command's
envelope is camelCase. Each shipped command runs once against one store; a command added
later fails here until it is run here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from dulwich.repo import Repo

from memhtml.app.cli import cli
from memhtml.app.cli.manifest import leaf_contexts
from tests.integration.test_cli_commands_store import (
    APPLY_BATCH,
    EXPORT_PATH,
    EXPORT_WRITE,
    LOCK_PATH,
    LOCK_WRITE,
    Store,
    data,
    envelope,
    invoke,
)

CAMEL: Final = re.compile(r"^[a-z][a-zA-Z0-9]*$")
# Objects whose keys are data rather than names: a JSON Schema's property names are the MCP
# tools' argument names (snake_case, as MCP clients expect them), listed by the manifest; the
# LoCoMo report's byCategory is keyed by the dataset's category numbers.
DATA_KEYED: Final = frozenset({"properties", "byCategory"})
# Commands whose stdout is not an envelope: the shell sources completion's script, and `mcp`
# hands stdout to the protocol (its tools return the CLI's data: test_mcp_tools.py).
NOT_ENVELOPES: Final = frozenset({"completion", "mcp"})
NOTE: Final = "{written}"
ABORTING_BATCH: Final = json.dumps({"op": "archive", "path": "areas/none.html", "reason": "r"})
FIXTURES: Final = Path(__file__).parent.parent / "fixtures"
LOCOMO_SHAPE: Final = FIXTURES / "locomo_shape.json"
TRANSCRIPTS: Final = FIXTURES / "traces" / "claude"
REMOTE: Final = "remote.git"
TRACED_SESSION: Final = "7f3c2a9e-5b1d-4c8e-9f00-1a2b3c4d5e6f"


def bad_keys(value: Any, where: str = "") -> Iterator[str]:
    """Every key under ``value`` that breaks the rule, as a dotted path."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not CAMEL.match(key):
                yield f"{where}.{key}"
            if key not in DATA_KEYED:
                yield from bad_keys(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from bad_keys(item, f"{where}[{index}]")


def test_bad_keys_finds_snake_case_at_any_depth_but_not_in_schemas() -> None:
    """The checker itself: nested snake_case is caught, schema property names are not."""
    document = {"a": [{"okKey": {"commit_sha": 1}}], "properties": {"include_archived": {}}}
    assert [".a[0].okKey.commit_sha"] == list(bad_keys(document))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """One store with two memories, an edge and an applied batch; shared, commands append."""
    root = tmp_path_factory.mktemp("naming") / "store"
    data(invoke(["init", "--repo", str(root)]))
    (root.parent / REMOTE).mkdir()
    Repo.init_bare(str(root.parent / REMOTE)).close()  # `init --remote`, `sync` and `clone`
    made = Store(root)
    made.ok(*EXPORT_WRITE)
    made.ok(*LOCK_WRITE)
    made.ok("link", EXPORT_PATH, "caused_by", LOCK_PATH)
    return made


def invocations(scratch: Path) -> dict[str, list[str]]:
    """One command line per shipped command, in an order where each one's input exists;
    ``scratch`` is a folder outside the store for files a command writes."""
    runs = scratch / "locomo-runs"
    run = str(runs / "locomo-lexical-turn.json")
    note = NOTE  # replaced by the path `write` returns
    return {
        "init": ["init", "--remote", str(scratch / REMOTE)],
        "write": ["write", "--title", "Ledger lock moved to 02:00", "--type", "semantic",
                  "--claim", "The ledger lock now starts at 02:00 UTC.", "--tag", "billing"],
        "read": ["read", EXPORT_PATH],
        "list": ["list"],
        "search": ["search", "invoice export", "--arms", "fts,entity,graph", "--authority"],
        "recall": ["recall", "invoice export"],
        "reinforce": ["reinforce", EXPORT_PATH, "--signal", "positive"],
        "link": ["link", note, "relates_to", LOCK_PATH],
        "neighbors": ["neighbors", EXPORT_PATH, "--depth", "2"],
        "correct": ["correct", LOCK_PATH, "--title", "Ledger lock holds for 45 minutes",
                    "--claim", "The nightly ledger lock is held for about 45 minutes."],
        "archive": ["archive", note, "--reason", "superseded"],
        "apply": ["apply"],
        "index rebuild": ["index", "rebuild", "--no-embed"],
        "index update": ["index", "update"],
        "index embed": ["index", "embed", "--dry-run"],
        "index status": ["index", "status"],
        "doctor": ["doctor", "--fix"],
        "state export": ["state", "export"],
        "state import": ["state", "import"],
        "sync": ["sync"],
        "clone": ["clone", str(scratch / REMOTE), str(scratch / "cloned")],
        "manifest": ["manifest"],
        "help": ["help", "index", "rebuild"],
        "eval discriminate": ["eval", "discriminate", "--size", "60", "--probes", "12"],
        "eval locomo": ["eval", "locomo", "--data", str(LOCOMO_SHAPE), "--conversations", "1",
                        "--mode", "lexical", "--out", str(runs)],
        "eval compare": ["eval", "compare", run, run],
        "trace scan": ["trace", "scan", str(TRANSCRIPTS)],
        "trace list": ["trace", "list"],
        "trace show": ["trace", "show", TRACED_SESSION],
        "helper status": ["helper", "status"],
        "helper stop": ["helper", "stop"],
    }  # fmt: skip


def test_every_shipped_command_is_run_here() -> None:
    """The table covers the command tree: a new command must be added to it."""
    shipped = {context.command_path.removeprefix("memhtml ") for context in leaf_contexts(cli)}
    assert shipped - NOT_ENVELOPES == set(invocations(Path("unused")))


def test_every_key_of_every_envelope_is_camel_case(store: Store) -> None:
    """Success envelopes of every command, and failure envelopes (an aborted batch's detail
    included), hold camelCase keys only."""
    offenders: dict[str, list[str]] = {}
    written = ""
    for name, args in invocations(store.root.parent).items():
        stdin = APPLY_BATCH if name == "apply" else ""
        line = [written if arg == NOTE else arg for arg in args]
        document = envelope(store.run(*line, stdin=stdin))
        assert "data" in document, (name, document)
        offenders[name] = list(bad_keys(document))
        written = document["data"]["path"] if name == "write" else written
    offenders["failure"] = list(bad_keys(envelope(store.run("read", "areas/none.html"))))
    # A failure whose detail is a command's whole data (issue 14): an aborted atomic batch.
    aborted = envelope(store.run("apply", stdin=ABORTING_BATCH))
    assert "ERR_BATCH_ABORTED" == aborted["code"], aborted
    offenders["aborted apply"] = list(bad_keys(aborted))
    offenders["--version"] = list(bad_keys(envelope(store.run("--version"))))
    offenders["--help"] = list(bad_keys(envelope(store.run("--help"))))
    assert {} == {name: keys for name, keys in offenders.items() if keys}
