"""The README's configuration table and troubleshooting list, rendered from the program's own
tables (``ENVIRONMENT`` and ``ERROR_CODES``) so the README cannot drift from what runs.

Each block sits between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->`` in
README.md; ``make docs`` rewrites them and ``tests/unit/test_docs_cli_reference.py`` fails when
they differ. The prose around them is written by hand. ``REMEDIES`` holds what a person should
do about each error code; a code without one is refused, so a new code cannot reach the README
unexplained.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Final

from memhtml.app.cli.environment import ENVIRONMENT
from memhtml.app.cli.errors import ERROR_CODES
from memhtml.app.cli.reference import NO_VALUE, cell

README_PATH: Final = "README.md"
REGENERATE: Final = "make docs  (python -m memhtml.app.cli.readme_tables --output README.md)"

REMEDIES: Final[Mapping[str, str]] = {
    "ERR_UNKNOWN_COMMAND": "Check the suggestions (nearest commands); `memhtml --help` lists "
    "them all. Commands planned for later (`sync`, `sleep`…) are not registered yet.",
    "ERR_MISSING_ARGUMENT": "Add the argument or flag the message names; `memhtml COMMAND "
    "--help` shows which are required.",
    "ERR_INVALID_FLAG": "The message names the flag and the rule (a bad value, an unusable "
    "`--path`, a blank query, a relation outside the vocabulary); fix the call. To browse "
    "without a query, use `memhtml list`.",
    "ERR_REPO_REQUIRED": "Run inside a store, pass `--repo PATH` or set `MEMHTML_ROOT`; the "
    "message lists what was searched. A new store: `memhtml init --repo PATH`.",
    "ERR_PATH_NOT_FOUND": "The path names no memory: `memhtml list` or `memhtml search` finds "
    "the right one (archived ones live under `archive/<year>/`).",
    "ERR_INVALID_MEMORY": "The message gives each finding's code and detail (docs/format.md "
    "§10); fix the article or the file. `memhtml doctor` lists every unparseable file.",
    "ERR_DUPLICATE_CONTENT": "An active memory already says this; `memhtml search` finds it.",
    "ERR_WRITE_CONFLICT": "Another writer moved the file or HEAD, or the path is taken; retry, "
    "or choose another `--path`.",
    "ERR_DIRTY_TREE": "Commit or discard your own edits to the paths named, then retry.",
    "ERR_FACT_CONFLICT": "A live memory states the same relation with another value: "
    "`memhtml correct` it, or write with `--on-conflict report`.",
    "ERR_NEAR_DUPLICATE": "A live memory nearly repeats the written one (first-chunk similarity "
    "at or above the floor): `memhtml correct` or `link` the existing memory, raise "
    "`--near-duplicate-floor`, or write with `--on-near-duplicate report`.",
    "ERR_INDEX_STALE": "A rebuild was interrupted: `memhtml index rebuild`.",
    "ERR_EMBED_MODEL_MISMATCH": "The index holds another model's vectors: `memhtml index "
    "rebuild --embed`, or set `MEMHTML_EMBED_MODEL` back.",
    "ERR_REBUILD_NO_EMBED_REFUSED": "Rebuild with `--embed`, or add `--force` to drop the "
    "vectors on purpose.",
    "ERR_MODEL_UNAVAILABLE": "The model cannot load or answer, or too few chunks have vectors "
    "for a command that needs them: `memhtml index embed`, or run lexical with "
    "`MEMHTML_EMBED=off`.",
    "ERR_STORAGE": "SQLite failed after retries (disk full, a corrupt file): free space, then "
    "`memhtml doctor`; the index is rebuildable with `memhtml index rebuild`.",
    "ERR_GIT_LOCKED": "A git command is running in the store, or one died moments ago: retry "
    "in a few seconds; once its owner is gone, `memhtml doctor --fix` clears it (the message "
    "names the lock).",
    "ERR_STORAGE_CORRUPT": "Run the command again: the damaged database is moved aside and "
    "rebuilt (index) or restored from the committed sidecar (state); `memhtml doctor` says "
    "what was recovered.",
    "ERR_GIT": "The repository cannot be read or written: check it with `git status` and "
    "`git fsck` in the store.",
    "ERR_DISCRIMINATION_FAILED": "The evaluation gate failed; the report names the first "
    "inverted probe.",
    "ERR_BATCH_ABORTED": "Nothing was written: fix the op the message names (its own code "
    "says how), then apply the batch again; `--continue-on-error` commits the ops that succeed.",
    "ERR_STORE_UNHEALTHY": "Run the fixes the suggestions list, most often `memhtml doctor "
    "--fix`; `detail` holds the whole report.",
    "ERR_EXTRA_MISSING": "Install the extra the message names, e.g. `pip install 'memhtml[mcp]'`.",
    "ERR_REMOTE_MISSING": "Name a configured remote with `--remote`, or add one: `memhtml init "
    "--remote URL` (as origin) or `git remote add NAME URL`.",
    "ERR_REMOTE_UNREACHABLE": "Check the URL (shown with secrets hidden) and the credentials git "
    "would use (its config, an ssh agent, the URL itself), then `memhtml sync` again.",
    "ERR_PUSH_REJECTED": "The remote refused the push (a hook or a protected branch) and said "
    "why; your commits are safe locally. Fix the remote's rule, then `memhtml sync`.",
    "ERR_UNKNOWN": "A bug: the traceback is on stderr; please report it with the command line.",
}


class MissingRemedy(ValueError):
    """An error code has no entry in ``REMEDIES``: the README would leave it unexplained."""


def environment_block() -> list[str]:
    """Every variable the program reads: name, what applies when unset, what it does."""
    lines = ["| variable | when unset | what it does |", "|---|---|---|"]
    for variable in ENVIRONMENT:
        fallback = cell(variable.fallback or NO_VALUE)
        lines.append(f"| `{variable.name}` | {fallback} | {cell(variable.description)} |")
    return lines


def troubleshooting_block() -> list[str]:
    """One entry per error code: when it happens, what to do, and the suggestions it carries.

    Raises:
        MissingRemedy: A code has no remedy.
    """
    missing = [entry.code for entry in ERROR_CODES if entry.code not in REMEDIES]
    if missing:
        raise MissingRemedy("no remedy for: " + ", ".join(missing))
    lines = ["| code | exit | when | what to do |", "|---|---|---|---|"]
    for entry in ERROR_CODES:
        remedy = REMEDIES[entry.code]
        if entry.suggestions:
            remedy += " Suggested: " + "; ".join(f"`{s}`" for s in entry.suggestions) + "."
        lines.append(
            f"| `{entry.code}` | {entry.exit_status} | {cell(entry.description)} | {cell(remedy)} |"
        )
    return lines


BLOCKS: Final = {"environment": environment_block, "troubleshooting": troubleshooting_block}


def _markers(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated:{name} -->\n).*?(<!-- /generated:{name} -->)", re.DOTALL)


def _replacement(body: str) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` callback keeping the two markers around ``body`` (no escapes read)."""

    def keep_markers(match: re.Match[str]) -> str:
        return match.group(1) + body + match.group(2)

    return keep_markers


def render_readme(text: str) -> str:
    """``text`` with every generated block replaced by a fresh rendering.

    Raises:
        ValueError: A block's markers are missing.
        MissingRemedy: See ``troubleshooting_block``.
    """
    for name, render in BLOCKS.items():
        pattern = _markers(name)
        if not pattern.search(text):
            raise ValueError(f"{README_PATH} has no <!-- generated:{name} --> block")
        body = "\n".join(render()) + "\n"
        text = pattern.sub(_replacement(body), text)
    return text


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the README's generated blocks (``--output``) or check them (``--check``).

    Returns:
        0 on success; 1 when ``--check`` finds the file out of date.
    """
    parser = argparse.ArgumentParser(
        prog="python -m memhtml.app.cli.readme_tables",
        description="Render the README's configuration and troubleshooting tables.",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--output", type=Path, help="rewrite the blocks in this file")
    target.add_argument("--check", type=Path, help="exit 1 when this file's blocks differ")
    options = parser.parse_args(argv)
    path: Path = options.output or options.check
    current = path.read_text(encoding="utf-8")
    rendered = render_readme(current)
    if options.check is not None:
        if rendered != current:
            print(f"{path} is out of date; regenerate it with: {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    path.write_text(rendered, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
