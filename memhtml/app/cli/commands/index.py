"""Index commands (docs/cli-contract.md §3.4): ``index rebuild|update|embed|status``, all
``index.report``.

The data carries ``mode`` (the subcommand) first, then the report's fields. A pass that ran
without some vectors says why on stderr; the report itself stays the contract's shape. The
passes report each phase (files parsed and projected, chunks embedded) on stderr: a bar at a
terminal, one line of counts otherwise, nothing under ``--quiet``.
"""

from __future__ import annotations

import logging
from typing import Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.cli.progress import command_progress

logger = logging.getLogger("memhtml")

REPORT_TYPE: Final = "index.report"
REBUILD_KEYS: Final = (
    "headSha",
    "filesIndexed",
    "chunksIndexed",
    "edgesIndexed",
    "embeddingsWritten",
    "embeddingsPreserved",
    "skipped",
    "retokenized",
)
UPDATE_KEYS: Final = (
    "headSha",
    "unchanged",
    "added",
    "modified",
    "removed",
    "renamed",
    "dirty",
    "embeddingsWritten",
    "skipped",
    "retokenized",
)
EMBED_KEYS: Final = ("headSha", "chunks", "embeddings", "embeddingsWritten", "embeddingsRemaining")
STATUS_KEYS: Final = (
    "headSha",
    "embedModel",
    "embedDim",
    "embedModelMatches",
    "configuredEmbedModel",
    "rebuiltAt",
    "updatedAt",
    "files",
    "activeFiles",
    "chunks",
    "embeddings",
    "vectorCoverage",
    "vectorCoverageFloor",
    "edges",
    "derivedEdges",
    "tags",
    "entities",
    "hasState",
    "stale",
    "staleReason",
    "staleFix",
    "historyBuilt",
    "historyCommits",
    "sync",
)
REASON_SEPARATOR: Final = "; "
# Details hold semicolons of their own ("file is … bytes; the limit is …").
DETAIL_SEPARATOR: Final = " | "


def register(group: click.Group) -> None:
    """Add the ``index`` group to ``group``."""
    group.add_command(index)


@click.group("index")
def index() -> None:
    """Build, update, embed and inspect the rebuildable SQLite index."""


def report_data(mode: str, report: object, keys: tuple[str, ...]) -> shaping.Data:
    """``index.report`` data: ``mode``, the report's ``keys``, skipped files as
    ``{path, reason, detail}``; a model that stopped mid-pass is logged to stderr."""
    failure = getattr(report, "model_failure", None)
    if failure:
        logger.warning("some chunks were left without vectors: %s", failure)
    data = {"mode": mode, **shaping.shaped(report, keys)}
    if "skipped" in data:
        data["skipped"] = [
            {
                "path": skipped.path,
                "reason": REASON_SEPARATOR.join(skipped.reasons),
                "detail": skipped_detail(skipped.reasons, skipped.details),
            }
            for skipped in getattr(report, "skipped", ())
        ]
    return data


def skipped_detail(reasons: tuple[str, ...], details: tuple[str, ...]) -> str | None:
    """What to fix in a skipped file: ``code: detail`` per reason the parser explained."""
    explained = [f"{code}: {text}" for code, text in zip(reasons, details, strict=False) if text]
    return DETAIL_SEPARATOR.join(explained) or None


@index.command("rebuild")
@click.option(
    "--embed/--no-embed",
    default=None,
    help="Embed chunks (default: unless MEMHTML_EMBED=off).",
)
@click.option("--force", is_flag=True, help="Rebuild without vectors even if that drops some.")
@emits(REPORT_TYPE, examples=("memhtml index rebuild", "memhtml index rebuild --no-embed"))
def rebuild(embed: bool | None, force: bool) -> CommandResult:
    """Rebuild the whole index from the committed HEAD, keeping vectors of unchanged chunks."""
    # Thorough: a page check finds damage opening does not, and the file is moved aside.
    with open_here(thorough=True) as store, command_progress() as progress:
        report = store.index_rebuild(embed=embed, force=force, progress=progress)
    return REPORT_TYPE, report_data("rebuild", report, REBUILD_KEYS)


@index.command("update")
@click.option(
    "--embed/--no-embed",
    default=None,
    help="Embed new chunks (default: unless MEMHTML_EMBED=off).",
)
@emits(REPORT_TYPE, examples=("memhtml index update",))
def update(embed: bool | None) -> CommandResult:
    """Bring the index level with HEAD and the working tree (a full rebuild the first time).

    With an embedder it also embeds the chunks earlier commands left without a vector (the
    command line's writes index lexically), counted in embeddingsWritten.
    """
    import attrs

    from memhtml.ports.errors import ModelUnavailable

    with open_here() as store, command_progress() as progress:
        report = store.index_update(embed=embed, progress=progress)
        if embed is not False and store.services.embeds:
            try:
                backlog = store.index_embed(progress=progress)
            except ModelUnavailable as stopped:
                # The update itself landed: a model that cannot embed the backlog is a gap to
                # report (logged below, and the next search or index embed retries), as it is
                # for the update's own chunks, not a failed command.
                report = attrs.evolve(report, model_failure=report.model_failure or str(stopped))
            else:
                report = attrs.evolve(
                    report,
                    embeddings_written=report.embeddings_written + backlog.embeddings_written,
                    model_failure=report.model_failure or backlog.model_failure,
                )
    return REPORT_TYPE, report_data("update", report, UPDATE_KEYS)


@index.command("embed")
@click.option("--dry-run", is_flag=True, help="Count what is missing; embed nothing.")
@emits(REPORT_TYPE, examples=("memhtml index embed", "memhtml index embed --dry-run"))
def embed(dry_run: bool) -> CommandResult:
    """Embed every chunk that lacks a vector in the configured space."""
    with open_here() as store, command_progress() as progress:
        report = store.index_embed(dry_run=dry_run, progress=progress)
    return REPORT_TYPE, report_data("embed", report, EMBED_KEYS)


@index.command("status")
@emits(REPORT_TYPE, examples=("memhtml index status",))
def status() -> CommandResult:
    """Show the index's watermark, vector space, coverage and row counts, and where the store
    stands against its sync remote (local refs only)."""
    # Status loads no model: it only compares the configured space with the stored one.
    with open_here(embedder=False) as store:
        report = store.index_status()
    return REPORT_TYPE, report_data("status", report, STATUS_KEYS)
