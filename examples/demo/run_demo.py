"""The quick-start demo: build a memory store from the bundled corpus and query it.

Every step runs the installed ``memhtml`` console script in a subprocess, exactly as a person
or an agent would, and prints the command line before its output. Any failed step stops the
demo with a non-zero exit status. The store lives in a temporary folder that is removed at the
end (set ``MEMHTML_DEMO_KEEP=1`` to keep it and print its path).

Run it with ``make demo``, or ``.venv/bin/python examples/demo/run_demo.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

HERE: Final = Path(__file__).resolve().parent
CORPUS: Final = HERE / "corpus.jsonl"
# The console script installed beside this interpreter (the project's .venv).
MEMHTML: Final = Path(sys.executable).with_name("memhtml")
EXPECTED_SUMMARY: Final = {"written": 43, "linked": 4, "archived": 1, "failed": 0, "skipped": 0}
CORRECTED: Final = "resources/environments/staging-data-is-refreshed-every-monday.html"
SCOPE_ENTITY: Final = "service:checkout-api"
RULE: Final = "-" * 100


class DemoFailed(RuntimeError):
    """A step exited non-zero or printed something other than what the demo expects."""


def run(store: Path, *args: str, show: bool = True) -> Any:
    """Run one ``memhtml`` command against ``store``.

    With ``show``, print the command line and its ``--pretty`` rendering and return ``None``;
    otherwise return the JSON envelope's data for the demo to check.

    Raises:
        DemoFailed: The command exited non-zero.
    """
    line = ["memhtml", *args, "--repo", str(store)]
    if show:
        print(f"\n$ {shlex.join(line)} --pretty\n{RULE}", flush=True)
        pretty = subprocess.run(
            [str(MEMHTML), *line[1:], "--pretty"], capture_output=True, text=True, check=False
        )
        print(pretty.stdout, end="", flush=True)
        if pretty.returncode != 0:
            raise DemoFailed(f"{shlex.join(line)} exited {pretty.returncode}: {pretty.stderr}")
        return None
    done = subprocess.run([str(MEMHTML), *line[1:]], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise DemoFailed(f"{shlex.join(line)} exited {done.returncode}: {done.stdout}{done.stderr}")
    envelope = json.loads(done.stdout)
    return envelope["data"]


def announce(text: str) -> None:
    """Print a step heading."""
    print(f"\n== {text}", flush=True)


def build(store: Path) -> str:
    """Create the store, apply the corpus, correct one memory and index with the embedder."""
    announce("create a store")
    init = run(store, "init", show=False)
    print(f"$ memhtml init --repo {store}\n  created={init['created']} head={init['headSha']}")

    announce(f"apply the bundled corpus ({CORPUS.name}: 43 writes, 4 links, 1 archive)")
    applied = run(store, "apply", "--file", str(CORPUS), show=False)
    summary = applied["summary"]
    print(f"$ memhtml apply --file {CORPUS.name}\n  summary={json.dumps(summary)}")
    wrong = {k: summary[k] for k in EXPECTED_SUMMARY if summary[k] != EXPECTED_SUMMARY[k]}
    if applied["aborted"] or wrong:
        raise DemoFailed(f"the corpus did not land whole: {wrong or 'aborted'}")

    announce("correct one memory (archives the old file, writes its successor, links both)")
    corrected = run(
        store,
        "correct",
        CORRECTED,
        "--title",
        "Staging data is refreshed every Tuesday",
        "--claim",
        "Staging databases are refreshed from an anonymised production copy every Tuesday "
        "at 06:00 UTC.",
        "--reason",
        "the refresh moved off Monday to clear the weekly data audit",
        show=False,
    )
    print(
        f"$ memhtml correct {CORRECTED} --title ... --claim ...\n"
        f"  path={corrected['path']}\n  archivedPath={corrected['archivedPath']}"
    )

    announce("index with the local embedder (MiniLM, offline)")
    update = run(store, "index", "update", show=False)
    status = run(store, "index", "status", show=False)
    print(
        "$ memhtml index update && memhtml index status\n"
        f"  embeddingsWritten={update['embeddingsWritten']} files={status['files']} "
        f"chunks={status['chunks']} embeddings={status['embeddings']} "
        f"vectorCoverage={status['vectorCoverage']}"
    )
    return str(corrected["path"])


def query(store: Path, corrected_path: str) -> None:
    """The four reads the quick start shows."""
    announce("search")
    run(store, "search", "when does the invoice export start", "--limit", "3")
    announce(f"scoped search (--entity {SCOPE_ENTITY})")
    run(store, "search", "connection pool", "--entity", SCOPE_ENTITY, "--limit", "3")
    announce("recall (a character-budgeted pack for an agent's context)")
    run(store, "recall", "why did checkout fail under load", "--budget", "1200")
    announce("read (the corrected memory: note validFrom and the supersedes link)")
    run(store, "read", corrected_path)


def helper(store: Path) -> None:
    """The warm helper the first embedding command started; stopped, as the demo's store is
    about to go (the next command that embeds starts another)."""
    announce("the warm helper (keeps the model loaded between commands)")
    status = run(store, "helper", "status", show=False)
    print(
        f"$ memhtml helper status\n  enabled={status['enabled']} running={status['running']} "
        f"idleSeconds={status['idleSeconds']}"
    )
    stopped = run(store, "helper", "stop", show=False)
    print(f"$ memhtml helper stop\n  running={stopped['running']} (as found)")


def main() -> int:
    """Run the demo; 0 when every step succeeded."""
    if not MEMHTML.exists():
        print(f"memhtml is not installed beside {sys.executable}; run `make demo`", file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="memhtml-demo-"))
    store = folder / "store"
    keep = os.environ.get("MEMHTML_DEMO_KEEP", "") not in ("", "0")
    try:
        corrected_path = build(store)
        query(store, corrected_path)
        helper(store)
    except (DemoFailed, json.JSONDecodeError, KeyError) as error:
        print(f"\ndemo failed: {error}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"\nthe store is kept at {store}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    print("\ndemo finished: every step succeeded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
