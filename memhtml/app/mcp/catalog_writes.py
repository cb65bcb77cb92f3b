"""The tools that change the store: write, apply, correct, archive, link, reinforce.

Every write is one git commit in the store; nothing is ever deleted (archive and correct move
the old file under ``archive/<year>/``). Field names are the ``apply`` JSONL format's, so a
model that learned ``write`` can fill a batch.
"""

from __future__ import annotations

from typing import Final

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.store_reads import SIGNALS
from memhtml.app.mcp.catalog_reads import SESSION_ID
from memhtml.app.mcp.params import Param
from memhtml.app.mcp.tool_spec import ToolSpec
from memhtml.app.use_cases.conflicts import ON_CONFLICT_MODES, ON_CONFLICT_REPORT
from memhtml.app.use_cases.near_duplicates import ON_NEAR_DUPLICATE_MODES, ON_NEAR_REPORT
from memhtml.domain.near_duplicates import DEFAULT_NEAR_FLOOR, DEFAULT_NEAR_LIMIT
from memhtml.domain.vocabulary import LINKABLE_RELS, WRITABLE_TYPES

MAX_APPLY_OPS: Final = 500
MAX_REINFORCE_PATHS: Final = 200
ISO: Final = "ISO date or date-time, e.g. 2026-08-30 or 2026-08-30T14:05:00Z"

TITLE: Final = Param(
    name="title",
    kind="string",
    required=True,
    non_blank=True,
    description="A short, specific title stating the fact; it also names the file.",
)
CLAIM: Final = Param(
    name="claim",
    kind="string",
    description="The one sentence the memory asserts. Give claim or article_html, not both.",
)
ARTICLE_HTML: Final = Param(
    name="article_html",
    kind="string",
    description="The memory's article as HTML with exactly one <mark> claim, instead of claim.",
)
BODY: Final = Param(
    name="body", kind="strings", description="Paragraphs of detail after the claim."
)
TAG: Final = Param(name="tag", kind="strings", description='Tags, e.g. ["billing"].')
ENTITY: Final = Param(
    name="entity",
    kind="strings",
    description='What it is about, as type:name, e.g. ["service:invoice-exporter"].',
)
WORKSPACE: Final = Param(
    name="workspace", kind="string", description="File it under projects/<workspace>/."
)
EVENT_AT: Final = Param(name="event_at", kind="string", description=f"When it happened: {ISO}.")
VALID_FROM: Final = Param(
    name="valid_from", kind="string", description=f"When the fact starts to hold: {ISO}."
)
PROMPT_ID: Final = Param(name="prompt_id", kind="string", description="Prompt that wrote it.")
TURN_UUID: Final = Param(name="turn_uuid", kind="string", description="Turn that wrote it.")


ON_CONFLICT: Final = Param(
    name="on_conflict",
    kind="string",
    choices=ON_CONFLICT_MODES,
    default=ON_CONFLICT_REPORT,
    description=(
        "When a written memory states a live memory's relation with other values (the pool "
        "is 80, a live memory says 50): report lists it in conflicts; fail writes nothing "
        "(ERR_FACT_CONFLICT); supersede archives the older memory and links the new one to "
        "it (supersedes), in the same commit."
    ),
)


ON_NEAR_DUPLICATE: Final = Param(
    name="on_near_duplicate",
    kind="string",
    choices=ON_NEAR_DUPLICATE_MODES,
    default=ON_NEAR_REPORT,
    description=(
        "When a written memory nearly repeats a live one (first-chunk cosine similarity at or "
        "above near_duplicate_floor): report lists it in nearDuplicates with its similarity; "
        "skip writes nothing for it (nearDuplicateSkipped, path is the live memory); fail "
        "writes nothing (ERR_NEAR_DUPLICATE). A store without an embedder never checks and "
        "says so in nearDuplicateNote."
    ),
)
NEAR_DUPLICATE_FLOOR: Final = Param(
    name="near_duplicate_floor",
    kind="number",
    minimum=-1,
    maximum=1,
    default=DEFAULT_NEAR_FLOOR,
    description="The cosine similarity at or above which a live memory counts as near.",
)
NEAR_DUPLICATE_LIMIT: Final = Param(
    name="near_duplicate_limit",
    kind="integer",
    minimum=1,
    default=DEFAULT_NEAR_LIMIT,
    description="Near-duplicates listed per written memory, most similar first.",
)
NEAR_PARAMS: Final = (ON_NEAR_DUPLICATE, NEAR_DUPLICATE_FLOOR, NEAR_DUPLICATE_LIMIT)


def _path_param(name: str, description: str) -> Param:
    return Param(name=name, kind="string", required=True, non_blank=True, description=description)


WRITE: Final = ToolSpec(
    name="write",
    title="Write a memory",
    description=(
        "Store one fact as a new memory (one git commit). Keep it to one fact: a specific "
        "title, one-sentence claim, optional body paragraphs, tags and entities so it can be "
        "found later. If an active memory already holds the same content, nothing is written "
        "and `deduped` is true with `existingPath`. The store picks the folder (areas/inbox/ "
        "unless a workspace or type routes it). To change an existing fact use correct, not "
        'write. Example: {"title": "Invoice export runs at 03:30 UTC", "type": "procedural", '
        '"claim": "The invoice export job starts at 03:30 UTC every night.", "tag": ["billing"]}'
    ),
    params=(
        TITLE,
        Param(
            name="type",
            kind="string",
            required=True,
            choices=WRITABLE_TYPES,
            description=(
                "episodic (what happened), semantic (a fact), procedural (how to), "
                "agent_insight, user_preference, error_pattern, verdict, precedent or task."
            ),
        ),
        CLAIM,
        ARTICLE_HTML,
        BODY,
        TAG,
        ENTITY,
        WORKSPACE,
        Param(name="importance", kind="integer", minimum=1, maximum=10, description="1–10."),
        Param(name="confidence", kind="number", minimum=0, maximum=1, description="0–1 belief."),
        EVENT_AT,
        VALID_FROM,
        Param(
            name="path",
            kind="string",
            description="An explicit path (a PARA bucket, a folder, a .html name); an unusable "
            "one is refused with the reason.",
        ),
        Param(
            name="strict_path",
            kind="boolean",
            default=False,
            description="Kept for compatibility: an unusable path is always refused.",
        ),
        SESSION_ID,
        PROMPT_ID,
        TURN_UUID,
        ON_CONFLICT,
        *NEAR_PARAMS,
    ),
    response_type="memory.written",
    output_keys=shaping.WRITTEN_KEYS,
    read_only=False,
    destructive=False,
    idempotent=True,
)

APPLY: Final = ToolSpec(
    name="apply",
    title="Apply a batch",
    description=(
        "Run many writes, links and archives as one git commit, all or nothing: if one op "
        "fails, nothing is written (unless continue_on_error). Each op is an object with "
        '"op": "write" (the write tool\'s fields), "link" (src, rel, dst) or "archive" (path, '
        "reason). Use it to store several related facts at once. Example: "
        '{"ops": [{"op": "write", "title": "Ledger lock holds 40 minutes", "type": "semantic", '
        '"claim": "The nightly ledger lock is held for about 40 minutes."}]}'
    ),
    params=(
        Param(
            name="ops",
            kind="objects",
            required=True,
            max_items=MAX_APPLY_OPS,
            description="The operations, in order.",
        ),
        Param(
            name="continue_on_error",
            kind="boolean",
            default=False,
            description="Commit the ops that succeed instead of none.",
        ),
        SESSION_ID,
        PROMPT_ID,
        TURN_UUID,
        ON_CONFLICT,
        *NEAR_PARAMS,
    ),
    response_type="batch.applied",
    output_keys=shaping.APPLY_KEYS,
    read_only=False,
)

CORRECT: Final = ToolSpec(
    name="correct",
    title="Correct a memory",
    description=(
        "Replace a memory whose fact changed or was wrong: the old file is archived, the "
        "replacement is written beside it, and the two are linked (supersedes), in one commit. "
        "Type, tags, entities and workspace default to the old memory's. Use it instead of "
        'writing a second, contradicting memory. Example: {"target": '
        '"resources/billing/invoice-export-runs-at-03-30-utc.html", "title": "Invoice export '
        'runs at 04:00 UTC", "claim": "The invoice export job starts at 04:00 UTC every '
        'night.", "reason": "schedule moved"}'
    ),
    params=(
        _path_param("target", "Path of the memory to replace."),
        TITLE,
        CLAIM,
        ARTICLE_HTML,
        BODY,
        Param(
            name="type",
            kind="string",
            choices=WRITABLE_TYPES,
            description="The replacement's type; default the old one's.",
        ),
        Param(name="reason", kind="string", description="Why; goes into the commit message."),
        TAG,
        ENTITY,
        WORKSPACE,
        EVENT_AT,
        VALID_FROM,
        SESSION_ID,
        ON_CONFLICT,
        *NEAR_PARAMS,
    ),
    response_type="memory.corrected",
    output_keys=shaping.CORRECTED_KEYS,
    read_only=False,
    destructive=True,
)

ARCHIVE: Final = ToolSpec(
    name="archive",
    title="Archive a memory",
    description=(
        "Retire a memory that is no longer true or useful: it moves under archive/<year>/ "
        "(still readable, no longer searched by default), one commit. To replace a fact with "
        'a new one use correct instead. Example: {"path": "areas/inbox/old-fact.html", '
        '"reason": "service decommissioned"}'
    ),
    params=(
        _path_param("path", "Path of the memory to archive."),
        Param(
            name="reason",
            kind="string",
            required=True,
            non_blank=True,
            description="Why it is archived.",
        ),
    ),
    response_type="memory.archived",
    output_keys=shaping.ARCHIVED_KEYS,
    read_only=False,
    destructive=True,
)

LINK: Final = ToolSpec(
    name="link",
    title="Link two memories",
    description=(
        "Record a typed relation from one memory to another (e.g. caused_by, supports, "
        "contradicts, part_of); blocks and subtask_of join two tasks. An existing link "
        'changes nothing. Example: {"src": "areas/inbox/checkout-timeouts.html", '
        '"rel": "caused_by", "dst": "areas/inbox/pool-exhaustion.html"}'
    ),
    params=(
        _path_param("src", "Path of the memory the link starts at."),
        Param(
            name="rel",
            kind="string",
            required=True,
            choices=LINKABLE_RELS,
            description="The relation.",
        ),
        _path_param("dst", "Path of the memory it points to."),
    ),
    response_type="memory.linked",
    output_keys=shaping.LINKED_KEYS,
    read_only=False,
    idempotent=True,
)

REINFORCE: Final = ToolSpec(
    name="reinforce",
    title="Reinforce memories",
    description=(
        "Tell the memory which memories proved useful (signal positive) or misleading "
        "(negative) after you used them; this raises or lowers them in later searches. "
        "Repeats within 15 minutes per path are ignored. No commit. "
        'Example: {"paths": ["areas/inbox/pool-exhaustion.html"], "signal": "positive"}'
    ),
    params=(
        Param(
            name="paths",
            kind="strings",
            required=True,
            non_blank=True,
            max_items=MAX_REINFORCE_PATHS,
            description="Paths of the memories.",
        ),
        Param(
            name="signal",
            kind="string",
            default="neutral",
            choices=SIGNALS,
            description="positive, negative or neutral (a plain use count).",
        ),
        SESSION_ID,
    ),
    response_type="memory.reinforced",
    output_keys=shaping.REINFORCED_KEYS,
    read_only=False,
)

WRITE_TOOLS: Final = (WRITE, APPLY, CORRECT, ARCHIVE, LINK, REINFORCE)
