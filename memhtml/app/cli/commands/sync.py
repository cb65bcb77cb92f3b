"""Many machines, one memory (docs/sync.md): ``sync`` and ``clone``.

``init --remote URL`` (the first machine) lives with ``init`` in ``store.py``. Credentials
come from the URL, the environment and git's configuration, never from a flag, and every URL a
result or an error shows has its secrets hidden.
"""

from __future__ import annotations

import os
from typing import Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.cli.progress import command_progress

SYNC_KEYS: Final = (
    "remote",
    "url",
    "dryRun",
    "action",
    "headBefore",
    "headAfter",
    "remoteHead",
    "ahead",
    "behind",
    "cases",
    "attempts",
    "exported",
    "indexed",
    "stateRows",
    "skippedEdits",
)
CASE_KEYS: Final = ("kind", "path", "otherPath", "kept")
CLONE_KEYS: Final = ("root", "remote", "url", "headSha", "fetched", "indexed", "stateRows")


def register(group: click.Group) -> None:
    """Add ``sync`` and ``clone`` to ``group``."""
    group.add_command(sync)
    group.add_command(clone)


@click.command("sync")
@click.option(
    "--remote",
    "remote",
    default="origin",
    show_default=True,
    metavar="NAME",
    help="The configured remote to exchange commits with.",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Fetch and report what would move and which merge cases would arise; change nothing.",
)
@emits("sync.report", examples=("memhtml sync", "memhtml sync --remote backup --dry-run"))
def sync(remote: str, dry_run: bool) -> CommandResult:
    """Fetch the remote's memories, merge them with ours losing nothing, and push.

    Both sides' changes to one memory are both kept (the later at its path, the other beside
    it, linked contradicts) and listed under cases. The index catches up from the diff and
    the access rows of both sides merge. A push refused because someone pushed first is
    retried after a new merge.
    """
    # Sync indexes lexically like the committing commands (no model load); the next search
    # embeds what is pending.
    with open_here(embedder=False) as store, command_progress() as progress:
        result = store.sync(remote=remote, dry_run=dry_run, progress=progress)
    data = shaping.shaped(result, SYNC_KEYS)
    cases = data["cases"]
    if isinstance(cases, list):
        data["cases"] = [
            shaping.ordered(case, CASE_KEYS) for case in cases if isinstance(case, dict)
        ]
    return "sync.report", data


@click.command("clone")
@click.argument(
    "url", help="Any git URL: a path, file://, ssh://, user@host:path, http(s):// or git://."
)
@click.argument(
    "directory", type=click.Path(file_okay=False), help="A new or empty folder for the store."
)
@emits("repo.cloned", examples=("memhtml clone /srv/memory.git ~/memhtml",))
def clone(url: str, directory: str) -> CommandResult:
    """Make DIRECTORY a store holding the memory at URL: check it out, build the index and
    import the access rows; later `memhtml sync --repo DIRECTORY` keeps it level."""
    from memhtml.app.store import clone_store_at

    with command_progress() as progress:
        result = clone_store_at(
            url, directory, environ=os.environ, embedder=False, progress=progress
        )
    return "repo.cloned", shaping.shaped(result, CLONE_KEYS)
