"""Maintenance commands (docs/cli-contract.md §3.5): ``doctor``, ``state export`` and
``state import``."""

from __future__ import annotations

import os
from typing import Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.output import CommandResult, emits

DOCTOR_KEYS: Final = (
    "root",
    "healthy",
    "dangling",
    "orphanAccessRows",
    "inboxDepth",
    "inboxCrowded",
    "inboxTaskDepth",
    "inboxTasksCrowded",
    "unparseable",
    "frameConflicts",
    "contradictions",
    "indexFresh",
    "indexHeadSha",
    "headSha",
    "embedModelMatches",
    "storedEmbedModel",
    "configuredEmbedModel",
    "vectorCoverage",
    "vectorCoverageFloor",
    "vectorCoverageLow",
    "chunks",
    "embeddings",
    "dirty",
    "sync",
    "warnings",
    "recovery",
)
REPAIRED_KEY: Final = "repaired"
EXPORT_KEYS: Final = ("path", "rows", "bytes", "written", "commitSha")
IMPORT_KEYS: Final = ("path", "rows", "restored", "skipped", "hasState")


def register(group: click.Group) -> None:
    """Add ``doctor`` and the ``state`` group to ``group``."""
    group.add_command(doctor)
    group.add_command(state)


@click.command("doctor")
@click.option(
    "--fix",
    is_flag=True,
    help=(
        "Repair what a killed command or a damaged database left, dangling links (one "
        "commit) and orphan access rows, then check."
    ),
)
@emits("doctor.report", examples=("memhtml doctor", "memhtml doctor --fix"))
def doctor(fix: bool) -> CommandResult:
    """Check the store: file format, links, inbox depth, index freshness and vector coverage.

    ``sync`` says where the store stands against its sync remote (ahead, behind, the last
    sync), from local refs only; it never counts against ``healthy``.

    A healthy store exits 0 with the report. Anything to act on fails with
    ERR_STORE_UNHEALTHY (exit 1): the message lists it, the suggestions fix it, and the
    report is the failure's detail. With ``--fix`` the repairs run first and ``repaired``
    says what they changed.
    """
    from memhtml.app.use_cases.doctor_verdict import refuse_unhealthy

    # The plain doctor compares spaces and counts vectors; it never embeds, so it never loads
    # a model. A Bedrock embedder is still built (it touches neither boto3 nor AWS until it
    # embeds), because its space, unlike the local default's, is not known without it. --fix
    # commits and updates the index like every mutating command, with its embedder (loaded
    # only if the update finds chunks to embed).
    # Plain doctor repairs nothing, not even what every other command would (a killed
    # commit, a damaged database): it reports it under `recovery`. Both look thoroughly.
    with open_here(embedder=fix or _bedrock_configured(), heal=fix, thorough=True) as store:
        report = store.doctor(fix=fix)
    data = doctor_data(report, fix=fix)
    refuse_unhealthy(report, data)
    return "doctor.report", data


def doctor_data(report: object, *, fix: bool) -> shaping.Data:
    """``doctor.report`` data; ``repaired`` comes last, and only after ``fix``."""
    return shaping.shaped(report, (*DOCTOR_KEYS, REPAIRED_KEY) if fix else DOCTOR_KEYS)


def _bedrock_configured() -> bool:
    from memhtml.app.bootstrap.config import read_embed_settings

    return read_embed_settings(os.environ).backend == "bedrock"


@click.group("state")
def state() -> None:
    """Persist the state plane (access counts, outcomes) to git and restore it."""


@state.command("export")
@emits("state.export", examples=("memhtml state export",))
def export() -> CommandResult:
    """Write the access rows to .memhtml/state/access.jsonl and commit it when it changed."""
    with open_here(embedder=False) as store:
        result = store.state_export()
    return "state.export", shaping.shaped(result, EXPORT_KEYS)


@state.command("import")
@emits("state.import", examples=("memhtml state import",))
def import_() -> CommandResult:
    """Replay the committed sidecar into state.db, merging with the rows already there."""
    with open_here(embedder=False) as store:
        result = store.state_import()
    return "state.import", shaping.shaped(result, IMPORT_KEYS)
