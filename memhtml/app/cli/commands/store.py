"""Store lifecycle commands (docs/cli-contract.md §3.2): init, write, correct, archive, link, apply.

Every body opens the store through ``opening.open_here``, hands a request to its use case
and returns the shaped result; the use cases decide, commit and re-index (lexically: see
``FAST_WRITES_EMBED``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Final

import click

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.near_options import near_duplicate_options
from memhtml.app.cli.commands.opening import open_here
from memhtml.app.cli.commands.write_checks import (
    check_article,
    checked_relation,
    checked_write_path,
)
from memhtml.app.cli.config_root import repo_root
from memhtml.app.cli.environment import ENV_SESSION_ID
from memhtml.app.cli.output import CommandResult, emits
from memhtml.app.use_cases.conflicts import ON_CONFLICT_MODES, ON_CONFLICT_REPORT
from memhtml.domain.errors import InvalidInput
from memhtml.domain.vocabulary import WRITABLE_TYPES

STDIN_NAME: Final = "-"

ISO_HELP: Final = "ISO date or date-time, e.g. 2026-08-30 or 2026-08-30T14:05:00Z."
FAST_WRITES_EMBED: Final = False
"""Committing commands index lexically and never load the model (issue 18: a write cost
1.3–2.5 s of model loading). Their chunks get vectors from the next search that loads the model
anyway (bounded, ``use_cases/pending_vectors.py``) or from ``memhtml index embed``; search and
recall report what is still pending."""


def register(group: click.Group) -> None:
    """Add the store commands to ``group``."""
    for command in (init, write, correct, archive, link, apply):
        group.add_command(command)


@click.command("init")
@click.option(
    "--remote",
    "remote_url",
    metavar="URL",
    help=(
        "Also point the remote 'origin' at URL (any git URL; credentials from git's config "
        "or the URL, shown hidden); `memhtml sync` then pushes."
    ),
)
@emits(
    "repo.init",
    examples=("memhtml init --repo ~/memhtml", "memhtml init --remote /srv/memory.git"),
)
def init(remote_url: str | None) -> CommandResult:
    """Create the memory repository, its folders and databases; re-running changes nothing."""
    from memhtml.app.store import init_store_at, open_store

    root = repo_root(initialized=False)
    result = init_store_at(root, environ=os.environ)
    data = shaping.shaped(result, shaping.INIT_KEYS)
    if remote_url is not None:
        with open_store(root, environ=os.environ, embedder=False) as store:
            store.set_remote(remote_url)
            data["remote"] = store.remote_url()
    return "repo.init", data


@click.command("write")
@click.option("--title", required=True, help="The memory's <title>; also its file name's slug.")
@click.option(
    "--type",
    "memory_type",
    required=True,
    type=click.Choice(WRITABLE_TYPES),
    help="The memory type (arc is written by sleep only).",
)
@click.option("--claim", help="The one sentence the memory asserts (its <mark>).")
@click.option("--article-html", help="The article's inner HTML instead of --claim.")
@click.option("--body", multiple=True, help="A paragraph after the claim; repeatable.")
@click.option(
    "--path",
    help="An explicit repo path (a PARA bucket, a folder, a .html name); an unusable one is "
    "refused with the reason.",
)
@click.option(
    "--strict-path",
    is_flag=True,
    help="Kept for scripts that pass it: an unusable --path is always refused now.",
)
@click.option("--workspace", help="Place under projects/<workspace>/.")
@click.option("--tag", multiple=True, help="A tag; repeatable.")
@click.option("--entity", multiple=True, help="An entity as type:name; repeatable.")
@click.option("--importance", type=click.IntRange(1, 10), help="1–10; readers default to 5.")
@click.option("--confidence", type=click.FloatRange(0, 1), help="0–1; readers default to 1.")
@click.option("--event-at", help=f"When the fact happened. {ISO_HELP}")
@click.option("--valid-from", help=f"When the fact starts to hold. {ISO_HELP}")
@click.option(
    "--session-id", envvar=ENV_SESSION_ID, help="Session that wrote it (meta and commit trailer)."
)
@click.option("--prompt-id", help="Prompt that wrote it (meta and commit trailer).")
@click.option("--turn-uuid", help="Conversation turn that wrote it (meta).")
@click.option(
    "--on-conflict",
    type=click.Choice(ON_CONFLICT_MODES),
    default=ON_CONFLICT_REPORT,
    show_default=True,
    help="When a written memory states a live memory's relation with other values: report it "
    "in conflicts, fail (ERR_FACT_CONFLICT, nothing written), or supersede (archive the older "
    "one, linked by supersedes, in the same commit).",
)
@near_duplicate_options
@click.option("--pin", is_flag=True, help="Pin it: search favours it in a close contest.")
@emits(
    "memory.written",
    examples=(
        'memhtml write --title "Invoice export runs at 03:30 UTC" --type procedural '
        '--claim "The invoice export job starts at 03:30 UTC every night." --tag billing',
    ),
)
def write(
    title: str,
    memory_type: str,
    claim: str | None,
    article_html: str | None,
    body: tuple[str, ...],
    path: str | None,
    strict_path: bool,
    workspace: str | None,
    tag: tuple[str, ...],
    entity: tuple[str, ...],
    importance: int | None,
    confidence: float | None,
    event_at: str | None,
    valid_from: str | None,
    session_id: str | None,
    prompt_id: str | None,
    turn_uuid: str | None,
    on_conflict: str,
    on_near_duplicate: str,
    near_duplicate_floor: float,
    near_duplicate_limit: int,
    pin: bool,
) -> CommandResult:
    """Write one memory as one commit, or report the active memory that already holds it."""
    from memhtml.domain.write_requests import WriteRequest, checked

    check_article(claim, article_html)
    request = checked(
        WriteRequest(
            title=title,
            memory_type=memory_type,
            claim=claim,
            body=body,
            article_html=article_html,
            path=checked_write_path(path),
            strict_path=strict_path,
            workspace=workspace,
            tags=tag,
            entities=entity,
            importance=importance,
            confidence=confidence,
            event_at=event_at,
            valid_from=valid_from,
            session_id=session_id,
            prompt_id=prompt_id,
            turn_uuid=turn_uuid,
            pinned=pin,
        )
    )
    with open_here() as store:
        result = store.write(
            request,
            embed=FAST_WRITES_EMBED,
            on_conflict=on_conflict,
            on_near_duplicate=on_near_duplicate,
            near_floor=near_duplicate_floor,
            near_limit=near_duplicate_limit,
        )
    return "memory.written", shaping.shaped(result, shaping.WRITTEN_KEYS)


@click.command("correct")
@click.argument("target", help="The memory to replace.")
@click.option("--title", required=True, help="The replacement's title.")
@click.option("--claim", help="The replacement's claim.")
@click.option("--article-html", help="The replacement's article HTML instead of --claim.")
@click.option("--body", multiple=True, help="A paragraph after the claim; repeatable.")
@click.option(
    "--type", "memory_type", type=click.Choice(WRITABLE_TYPES), help="Default: the target's."
)
@click.option("--reason", help="Why; recorded in the commit message.")
@click.option("--event-at", help=f"When the new fact happened. {ISO_HELP}")
@click.option("--valid-from", help=f"When the new fact starts to hold. {ISO_HELP}")
@click.option("--session-id", envvar=ENV_SESSION_ID, help="Session that made the correction.")
@click.option("--tag", multiple=True, help="Tags of the replacement; default: the target's.")
@click.option("--entity", multiple=True, help="Entities (type:name); default: the target's.")
@click.option("--workspace", help="Workspace of the replacement; default: the target's.")
@click.option(
    "--on-conflict",
    type=click.Choice(ON_CONFLICT_MODES),
    default=ON_CONFLICT_REPORT,
    show_default=True,
    help="When a written memory states a live memory's relation with other values: report it "
    "in conflicts, or fail (ERR_FACT_CONFLICT, nothing written).",
)
@near_duplicate_options
@emits(
    "memory.corrected",
    examples=(
        "memhtml correct resources/billing/invoice-export-runs-at-03-30-utc.html "
        '--title "Invoice export runs at 04:00 UTC" '
        '--claim "The invoice export job starts at 04:00 UTC every night." --reason "moved"',
    ),
)
def correct(
    target: str,
    title: str,
    claim: str | None,
    article_html: str | None,
    body: tuple[str, ...],
    memory_type: str | None,
    reason: str | None,
    event_at: str | None,
    valid_from: str | None,
    session_id: str | None,
    tag: tuple[str, ...],
    entity: tuple[str, ...],
    workspace: str | None,
    on_conflict: str,
    on_near_duplicate: str,
    near_duplicate_floor: float,
    near_duplicate_limit: int,
) -> CommandResult:
    """Archive a memory and write its replacement, linked both ways, in one commit."""
    from memhtml.app.use_cases.correct import CorrectRequest

    check_article(claim, article_html)
    request = CorrectRequest(
        title=title,
        claim=claim,
        body=body,
        article_html=article_html,
        memory_type=memory_type,
        # An empty repeatable flag means "not given": the target's own values then apply.
        tags=tag or None,
        entities=entity or None,
        workspace=workspace,
        reason=reason,
        event_at=event_at,
        valid_from=valid_from,
        session_id=session_id,
    )
    with open_here() as store:
        result = store.correct(
            target,
            request,
            embed=FAST_WRITES_EMBED,
            on_conflict=on_conflict,
            on_near_duplicate=on_near_duplicate,
            near_floor=near_duplicate_floor,
            near_limit=near_duplicate_limit,
        )
    return "memory.corrected", shaping.shaped(result, shaping.CORRECTED_KEYS)


@click.command("archive")
@click.argument("path", help="The memory to archive.")
@click.option("--reason", required=True, help="Why it is archived; goes into the commit subject.")
@emits(
    "memory.archived",
    examples=('memhtml archive areas/inbox/old-fact.html --reason "no longer true"',),
)
def archive(path: str, reason: str) -> CommandResult:
    """Move a memory to archive/<YYYY>/ and stamp it archived, as one commit."""
    with open_here() as store:
        result = store.archive(path, reason, embed=FAST_WRITES_EMBED)
    return "memory.archived", shaping.shaped(result, shaping.ARCHIVED_KEYS)


@click.command("link")
@click.argument("src", help="The memory the edge starts at.")
@click.argument("rel", help="The relation (a memory relation, or blocks/subtask_of for tasks).")
@click.argument("dst", help="The memory the edge points to.")
@emits(
    "memory.linked",
    examples=("memhtml link resources/billing/a.html caused_by resources/billing/b.html",),
)
def link(src: str, rel: str, dst: str) -> CommandResult:
    """Add one edge to the source's head; an existing edge changes nothing."""
    from memhtml.domain.vocabulary import edge_class_of

    if edge_class_of(rel) is None:  # system-only relations keep the use case's own refusal
        checked_relation(src, rel, dst)
    with open_here() as store:
        result = store.link(src, rel, dst, embed=FAST_WRITES_EMBED)
    return "memory.linked", shaping.shaped(result, shaping.LINKED_KEYS)


def _batch_lines(file: str | None, source: str | None) -> list[str]:
    """The batch's lines from ``--file``, from ``-`` or from stdin when nothing is named."""
    if source is not None and source != STDIN_NAME:
        raise InvalidInput(f"unexpected argument {source!r}; name a file with --file PATH")
    if file is not None and file != STDIN_NAME:
        if source == STDIN_NAME:
            raise InvalidInput("read the batch from --file or from stdin, not both")
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise InvalidInput(f"cannot read --file {file}: {type(e).__name__}") from e
        return text.splitlines()
    return sys.stdin.read().splitlines()


@click.command("apply")
@click.argument("source", required=False, help="`-` reads the batch from stdin (the default).")
@click.option("--file", "file", help="JSONL batch file; `-` is stdin.")
@click.option("--continue-on-error", is_flag=True, help="Commit the ops that succeed.")
@click.option(
    "--session-id", envvar=ENV_SESSION_ID, help="Batch default for ops that name no session."
)
@click.option("--prompt-id", help="Batch default for ops that name no prompt.")
@click.option("--turn-uuid", help="Batch default for ops that name no turn.")
@click.option(
    "--on-conflict",
    type=click.Choice(ON_CONFLICT_MODES),
    default=ON_CONFLICT_REPORT,
    show_default=True,
    help="When a written memory states a live memory's relation with other values: report it "
    "in conflicts, or fail (ERR_FACT_CONFLICT, nothing written).",
)
@near_duplicate_options
@emits("batch.applied", examples=("memhtml apply --file ops.jsonl", "memhtml apply - < ops.jsonl"))
def apply(
    source: str | None,
    file: str | None,
    continue_on_error: bool,
    session_id: str | None,
    prompt_id: str | None,
    turn_uuid: str | None,
    on_conflict: str,
    on_near_duplicate: str,
    near_duplicate_floor: float,
    near_duplicate_limit: int,
) -> CommandResult:
    """Run a JSONL batch of write, link and archive ops as one commit (atomic by default).

    An atomic batch that stops at a refused op writes nothing and fails with
    ERR_BATCH_ABORTED (exit 1); the per-op results are the failure's detail.
    """
    from memhtml.app.apply_ops import SessionDefaults, parse_apply_lines
    from memhtml.app.cli.progress import command_progress
    from memhtml.app.use_cases.apply import refuse_aborted

    defaults = SessionDefaults(session_id=session_id, prompt_id=prompt_id, turn_uuid=turn_uuid)
    # Root checked before stdin is read: a wrong --repo must not swallow a piped batch first.
    repo_root()
    ops = parse_apply_lines(_batch_lines(file, source), defaults)
    with open_here() as store, command_progress() as progress:
        result = store.apply(
            ops,
            continue_on_error=continue_on_error,
            defaults=defaults,
            progress=progress,
            embed=FAST_WRITES_EMBED,
            on_conflict=on_conflict,
            on_near_duplicate=on_near_duplicate,
            near_floor=near_duplicate_floor,
            near_limit=near_duplicate_limit,
        )
    data = shaping.apply_data(result)
    refuse_aborted(result, data)
    return "batch.applied", data
