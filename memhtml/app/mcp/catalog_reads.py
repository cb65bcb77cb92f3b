"""The tools that find and show memories: search, recall, read, neighbors, list, index_status,
doctor.

Argument names are the command line's flag names with ``_`` for ``-``; limits and choices come
from the same constants the CLI's flags use.
"""

from __future__ import annotations

from typing import Final

from memhtml.app.cli.commands import shaping
from memhtml.app.cli.commands.index import STATUS_KEYS
from memhtml.app.cli.commands.maintenance import DOCTOR_KEYS
from memhtml.app.cli.commands.retrieval import DEFAULT_BUDGET, DEFAULT_LIMIT, MAX_LIMIT
from memhtml.app.cli.commands.store_reads import DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT
from memhtml.app.mcp.params import Param
from memhtml.app.mcp.tool_spec import ToolSpec
from memhtml.domain.query_bounds import MAX_QUERY_CHARS
from memhtml.domain.vocabulary import ALL_RELS, MEMORY_TYPES, PARA_BUCKETS

SESSION_ID: Final = Param(
    name="session_id",
    kind="string",
    description="Your conversation's id, if you have one: files a session link for provenance.",
)
SCOPE: Final = (
    Param(
        name="type",
        kind="strings",
        choices=MEMORY_TYPES,
        description="Only these memory types. Default: every type except task.",
    ),
    Param(
        name="workspace",
        kind="string",
        description="Only memories filed under projects/<workspace>/ (a project's own notes).",
    ),
    Param(name="tag", kind="strings", description="Only memories carrying any of these tags."),
    Param(
        name="entity",
        kind="string",
        description='Only memories about this entity, as type:name, e.g. "service:checkout-api".',
    ),
    Param(
        name="facet",
        kind="strings",
        description='name=value filters, e.g. "env=prod"; the same name ORs, different names AND.',
    ),
    Param(
        name="include_archived",
        kind="boolean",
        default=False,
        description="Also return archived (superseded or retired) memories.",
    ),
)
AS_OF: Final = Param(
    name="as_of",
    kind="string",
    description="Only facts that were valid at this ISO date or date-time, e.g. 2026-03-01.",
)
KNOWN_AT: Final = Param(
    name="known_at",
    kind="string",
    description=(
        "Answer with what the store knew at this ISO date or date-time (its memories as last "
        "committed by then, even if since changed or removed), e.g. 2026-03-01."
    ),
)
BLANK_QUERY_HINT: Final = "use the list tool to browse"
QUERY_TEXT: Final = "What you want to know, in plain words"

SEARCH: Final = ToolSpec(
    name="search",
    title="Search memories",
    description=(
        "Search the long-term memory (a store of short facts, one per memory) and get the "
        "best-ranked memories for a query: path, title, gist (the one-sentence claim), "
        "snippet, type, confidence and the rank each retrieval arm gave it (full text, full "
        "text with context, vector similarity, recency, salience). Use it when you need a "
        "specific fact you or "
        "another agent may have stored before, e.g. a decision, a setting, an error's cause. "
        "Hits do not count as use; call read on a hit to see all of it. `degraded` is true "
        "when the vector arm could not run (lexical search only) and `degradedReason` says "
        "why; `pendingVectors` counts memories still waiting for a vector. "
        'Example: {"query": "when does the invoice export run", "limit": 5}'
    ),
    params=(
        Param(
            name="query",
            kind="string",
            required=True,
            non_blank=True,
            blank_hint=BLANK_QUERY_HINT,
            max_length=MAX_QUERY_CHARS,
            description=f'{QUERY_TEXT}; a "quoted phrase" must match as a phrase.',
        ),
        Param(
            name="limit",
            kind="integer",
            default=DEFAULT_LIMIT,
            minimum=1,
            maximum=MAX_LIMIT,
            description="How many hits to return.",
        ),
        *SCOPE,
        AS_OF,
        KNOWN_AT,
    ),
    response_type="memory.hits",
    output_keys=shaping.HITS_KEYS,
    read_only=True,
    idempotent=True,
)

RECALL: Final = ToolSpec(
    name="recall",
    title="Recall what a task needs",
    description=(
        "Pack the memories relevant to what you are about to do into a character budget: the "
        "best ones quoted in full (title, claim, body), the rest as one-line index entries "
        "with their paths. Use it once at the start of a task or topic, to load what the "
        "memory already knows, instead of several searches. "
        'Example: {"query": "migrating the checkout database", "budget": 6000}'
    ),
    params=(
        Param(
            name="query",
            kind="string",
            required=True,
            non_blank=True,
            blank_hint=BLANK_QUERY_HINT,
            max_length=MAX_QUERY_CHARS,
            description=f"{QUERY_TEXT}: the task or topic at hand.",
        ),
        Param(
            name="budget",
            kind="integer",
            default=DEFAULT_BUDGET,
            minimum=0,
            description="Characters of quoted memories (index lines come on top).",
        ),
        *SCOPE,
        AS_OF,
        KNOWN_AT,
    ),
    response_type="recall.pack",
    output_keys=shaping.RECALL_KEYS,
    read_only=True,
    idempotent=True,
)

READ: Final = ToolSpec(
    name="read",
    title="Read one memory",
    description=(
        "Read one memory in full by its path (as search, recall or list returned it): title, "
        "metadata (type, status, dates, confidence, importance), entities, tags, links to "
        "other memories, claim, body text and the article's HTML. Archived paths work too. "
        "Reading counts as use: it raises the memory's salience for later searches. "
        'Example: {"path": "resources/billing/invoice-export-runs-at-03-30-utc.html"}'
    ),
    params=(
        Param(
            name="path",
            kind="string",
            required=True,
            non_blank=True,
            description="The memory's path inside the store, e.g. areas/inbox/some-fact.html.",
        ),
        SESSION_ID,
        Param(
            name="known_at",
            kind="string",
            description=(
                "Read it as the store knew it at this ISO date or date-time (the file as last "
                "committed by then, even if since changed or removed); no salience raise."
            ),
        ),
    ),
    response_type="memory.detail",
    output_keys=shaping.DETAIL_KEYS,
    read_only=False,
    idempotent=True,
)

NEIGHBORS: Final = ToolSpec(
    name="neighbors",
    title="Follow a memory's links",
    description=(
        "List the links around one memory: its own links to other memories (outbound) and "
        "other memories' links to it (inbound), each with its relation (fixes, caused_by, "
        "contradicts, supports…), class, direction and the linked memory's title. Use it to "
        "find the fix for a failure, the cause of an incident, or what contradicts a fact. "
        "depth walks further out; a memory met at one hop is not listed again. "
        'Example: {"path": "areas/inbox/linker-fails-on-stale-objects.html", "depth": 2}'
    ),
    params=(
        Param(
            name="path",
            kind="string",
            required=True,
            non_blank=True,
            description="The memory's path inside the store, e.g. areas/inbox/some-fact.html.",
        ),
        Param(
            name="depth",
            kind="integer",
            default=1,
            minimum=1,
            maximum=3,
            description="Hops to walk out from the memory.",
        ),
        Param(
            name="relation",
            kind="strings",
            choices=ALL_RELS,
            description="Follow only these relations. Default: every relation.",
        ),
    ),
    response_type="memory.neighbors",
    output_keys=shaping.NEIGHBORS_KEYS,
    read_only=True,
    idempotent=True,
)

LIST: Final = ToolSpec(
    name="list",
    title="List memories",
    description=(
        "List memories in path order, one page at a time, with title, gist, type and folder; "
        "no ranking. Use it to browse a folder, tag, entity or workspace, or to enumerate "
        "everything; pass the returned nextCursor as cursor for the next page (null: done). "
        'Example: {"tag": ["billing"], "limit": 20}'
    ),
    params=(
        *SCOPE,
        Param(
            name="para",
            kind="string",
            choices=PARA_BUCKETS,
            description="Only this top-level folder (archive lists archived memories).",
        ),
        Param(
            name="limit",
            kind="integer",
            default=DEFAULT_LIST_LIMIT,
            minimum=1,
            maximum=MAX_LIST_LIMIT,
            description="Page size.",
        ),
        Param(name="cursor", kind="string", description="nextCursor from the previous page."),
        KNOWN_AT,
    ),
    response_type="memory.list",
    output_keys=shaping.LIST_KEYS,
    read_only=True,
    idempotent=True,
)

INDEX_STATUS: Final = ToolSpec(
    name="index_status",
    title="Index status",
    description=(
        "Report the search index's state: the commit it reflects, counts of memories, chunks, "
        "vectors, links, tags and entities, and vector coverage. Use it to check that the "
        "memory is indexed and that vector search can run (vectorCoverage near 1). "
        "Example: {}"
    ),
    params=(),
    response_type="index.report",
    output_keys=("mode", *STATUS_KEYS),
    read_only=True,
    idempotent=True,
)

DOCTOR: Final = ToolSpec(
    name="doctor",
    title="Check the store's health",
    description=(
        "Check the memory store: unparseable files, links pointing nowhere, inbox depth, "
        "index freshness and vector coverage; `healthy` sums it up. With fix=true it also "
        "repairs dangling links (one commit) and prunes orphan access rows, then checks. "
        "Use it when results look wrong or a tool reported a storage problem. "
        'Example: {"fix": false}'
    ),
    params=(
        Param(
            name="fix",
            kind="boolean",
            default=False,
            description="Repair what can be repaired before checking.",
        ),
    ),
    response_type="doctor.report",
    output_keys=DOCTOR_KEYS,
    read_only=False,
)

READ_TOOLS: Final = (SEARCH, RECALL, READ, NEIGHBORS, LIST, INDEX_STATUS, DOCTOR)
