"""Shared hypothesis strategies. Each area keeps its strategies in its own section below."""

from __future__ import annotations

import datetime as dt
import json

from hypothesis import strategies as st

from memhtml.domain.reinforce import AccessRow

# Text that exercises the awkward corners: astral characters (2 UTF-16 units), combining
# marks, no-break spaces and ASCII whitespace runs. Drawn as one string (hypothesis's native
# text), not a joined list of one-character strings: the same texts for a third of the cost,
# which the query fuzzers pay 10,000 times. The combining mark follows whatever came before.
awkward_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from([" ", "\n", "\t", "\u00a0", "😀", "é", "\u0301", ".", "!", "?"]),
    ),
    max_size=200,
)

# --- ranking: fusion, mmr, polarity, disclosure ---
# Plain data only (no memhtml imports here, so this section never reorders the file's imports);
# each test file builds its own values from these.

# Paths from a tiny alphabet, so arm lists overlap and equal scores need the path tie-break;
# "é" and "B" sit on either side of ASCII lowercase in plain str order.
ranking_paths = st.text(alphabet="abB/é.", min_size=1, max_size=4)


def ranked_lists(names: list[str]) -> st.SearchStrategy[dict[str, list[str]]]:
    """Per arm name (a subset of ``names``), a list of distinct paths, best first."""
    return st.dictionaries(
        st.sampled_from(names),
        st.lists(ranking_paths, unique=True, max_size=12),
        max_size=len(names),
    )


# Three-dimensional vectors; fixed near-parallel directions make cosine-0.9 twins common, and
# the zero vector exercises the "no direction" convention.
small_vectors = st.one_of(
    st.sampled_from(
        [(1.0, 0.0, 0.0), (0.98, 0.15, 0.0), (0.9, 0.3, 0.1), (0.0, 1.0, 0.0), (0.0, 0.0, 0.0)]
    ),
    st.tuples(*[st.floats(-4, 4, allow_nan=False, allow_subnormal=False)] * 3),
)
optional_vectors = st.one_of(st.none(), small_vectors)

# Gist stems with no negation marker; a test appends " not" to negate one.
gist_stems = st.sampled_from(
    ["x merges intervals", "cache warms on boot", "deploys go out on tuesday", "token bucket"]
)

# Entity references that collide: `person:sasha` and `concept:sasha` are two entities.
entity_refs = st.frozensets(
    st.sampled_from(["service:api", "person:sasha", "concept:sasha", "team:core"]), max_size=3
)

# --- query text, chunking, reinforcement, scope ---
# Plain data only, like the ranking section; test files build memhtml values from these.

# Query text assembled from the pieces that break a raw FTS5 MATCH: quotes (balanced or not),
# apostrophes, `type:name`, leading hyphens, uppercase operators, marks, astral characters.
fts_query_text = st.lists(
    st.one_of(
        st.sampled_from(
            ['"', "'", ":", "-", "*", "^", "(", ")", " ", "AND", "OR", "NOT", "NEAR", "and"]
        ),
        st.sampled_from(["déployé", "de\u0301ploye\u0301", "हिन्दी", "İstanbul", "ΣΑΣ", "x2"]),
        st.sampled_from(["the", "how", "is", "cache", "drain", "vip", "2026", "😀", "\u0301"]),
        awkward_text,
    ),
    max_size=12,
).map("".join)

# Sentence-ish prose for chunking: words, sentence ends, whitespace runs, astral characters,
# and a long unbroken run that forces a hard cut.
chunk_prose = st.lists(
    st.one_of(
        st.sampled_from(["word", "a", "Sentence.", "Why?", "Yes!", "😀", "é", "x" * 30]),
        st.sampled_from([" ", "  ", "\n", "\t", ". ", "! ", "? ", ".\n\n", "\u00a0"]),
        awkward_text,
    ),
    max_size=60,
).map("".join)

# Whole-second instants as the writer stamps them (docs/decisions.md §2), as epoch seconds so a test
# can add an exact offset before formatting.
epoch_seconds = st.integers(min_value=0, max_value=4_102_444_800)  # 1970 … 2100

# Optional stamps from a tiny set so equal and ordered values both occur.
small_stamps = st.sampled_from(
    ["2026-01-01T00:00:00Z", "2026-03-01T12:00:00Z", "2026-09-14T07:02:11Z", "2027-01-01"]
)
optional_stamps = st.one_of(st.none(), small_stamps)

# Outcome scores on the sidecar grid and off it, including the signed zero.
outcome_scores = st.one_of(
    st.floats(min_value=-1.0, max_value=1.0, allow_nan=False),
    st.sampled_from([-1.0, -0.0, 0.0, 1.0, 0.3, -0.09, 0.00005, -0.00005]),
)

# Access-row paths from a small alphabet (repeats happen); "é" checks ensure_ascii=False.
access_paths = st.text(alphabet="ab/é.", min_size=1, max_size=5)

# Whole access rows, shared by the reinforcement and sidecar suites.
access_rows = st.builds(
    AccessRow,
    path=access_paths,
    access_count=st.integers(min_value=0, max_value=10**6),
    reinforcement_count=st.integers(min_value=0, max_value=10**6),
    outcome_score=outcome_scores,
    last_accessed_at=optional_stamps,
    last_reinforced_at=optional_stamps,
    updated_at=st.sampled_from(["2026-01-01T00:00:00Z", "2026-09-14T07:02:11Z"]),
)

# Scope vocabulary small enough that scopes and files overlap often.
scope_tags = st.sampled_from(["billing", "ops", "Billing", " ops "])
scope_entity_pairs = st.sampled_from(
    [
        ("person", "Sasha"),
        ("person", "sasha"),
        ("concept", "sasha"),
        ("place", "CAFÉ"),
        ("a", "b:c"),
    ]
)
scope_facet_pairs = st.sampled_from(
    [("doc-type", "runbook"), ("doc-type", "guide"), ("tier", "1"), ("tier", "2")]
)
facet_specs = st.one_of(
    st.text(alphabet="ab= \t", max_size=6),
    st.sampled_from(["doc-type=runbook", " tier = 1 ", "query=a=b", "=x", "x=", "x"]),
)

# --- format: paths, vocabulary, memory documents ---
# Plain data only, like the sections above; the html tests build RenderInputs from these.

# Characters an HTML file can carry: no NUL, no surrogates, no C0/C1 controls other than ASCII
# whitespace; plus U+00A0, astral characters and markup characters that must be escaped.
format_text = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=("Cs", "Cc", "Cn")),
        st.sampled_from(
            [" ", "\t", "\n", "\r", "\f", "\u00a0", "😀", "<", ">", "&", '"', "'", "`"]
        ),
    ),
    max_size=40,
)
format_words = st.lists(
    st.text(alphabet="abcxyzé😀0<&>'\"", min_size=1, max_size=8), min_size=1, max_size=8
)


@st.composite
def format_datetimes(draw: st.DrawFn) -> str:
    """A string that satisfies docs/format.md §5, in every shape the rule admits."""
    day = draw(st.dates())
    text = f"{day.year:04d}-{day.month:02d}-{day.day:02d}"
    if not draw(st.booleans()):
        return text
    text += draw(st.sampled_from("T "))
    text += f"{draw(st.integers(0, 23)):02d}:{draw(st.integers(0, 59)):02d}"
    if draw(st.booleans()):
        text += f":{draw(st.integers(0, 60)):02d}"
        if draw(st.booleans()):
            text += "." + draw(st.text(alphabet="0123456789", min_size=1, max_size=6))
    zone = draw(st.sampled_from(["", "Z", "+hh:mm", "-hhmm"]))
    hours, minutes = draw(st.integers(0, 23)), draw(st.integers(0, 59))
    return text + zone.replace("hh", f"{hours:02d}", 1).replace("mm", f"{minutes:02d}", 1)


# Near misses of the datetime rule: right shape, any digits, optional odd zones and letters.
format_datetime_like = st.from_regex(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,3})?)?)?"
    r"([Zz]|[+-][0-9]{2}:?[0-9]{2})?",
    fullmatch=True,
)

# Repo paths a link may target, and hrefs that break docs/format.md §3.
format_link_targets = st.lists(
    st.text(alphabet="abc-_.0é", min_size=1, max_size=6).filter(lambda s: s not in (".", "..")),
    min_size=1,
    max_size=4,
).map(lambda segs: "/".join(segs) + ".html")
format_bad_hrefs = st.sampled_from(
    ["", "a.html", "//host/a.html", "/", "/a//b.html", "/a/./b.html", "/../a.html", "/a/"]
)
format_rels = st.sampled_from(
    [
        "supersedes",
        "contradicts",
        "caused_by",
        "leads_to",
        "part_of",
        "relates_to",
        "example_of",
        "supports",
        "laterally_related",
        "blocks",
        "subtask_of",
        "about_person",
        "authored_by",
        "from_session",
    ]
)

# Body paragraphs as specs: ("prose", text) or ("code", info string, code lines).
format_code_lines = st.lists(
    st.text(
        alphabet=st.one_of(
            st.characters(exclude_categories=("Cs", "Cc", "Cn")), st.sampled_from(" \t<&`")
        ),
        max_size=20,
    ).filter(lambda line: set(line.strip(" ")) != {"`"}),
    max_size=4,
)
format_paragraph_specs = st.one_of(
    st.tuples(st.just("prose"), format_text),
    st.tuples(
        st.just("code"),
        st.sampled_from(["", "python", "TypeScript x", "c++", "bad!lang", "sh"]),
        format_code_lines,
    ),
)


@st.composite
def format_render_kwargs(draw: st.DrawFn) -> dict[str, object]:
    """Keyword arguments for a valid ``RenderInputs``, paragraphs still as specs."""
    non_blank = format_text.filter(lambda s: s.strip(" \t\n\r\f"))
    memory_type = draw(
        st.sampled_from(["episodic", "semantic", "procedural", "agent_insight", "task"])
    )
    optional_datetime = st.one_of(st.none(), format_datetimes())
    optional_text = st.one_of(st.none(), non_blank)
    return {
        "title": draw(non_blank),
        "memory_type": memory_type,
        "created_at": draw(format_datetimes()),
        "updated_at": draw(format_datetimes()),
        "claim": draw(non_blank),
        "paragraphs": draw(st.lists(format_paragraph_specs, max_size=4)),
        "tags": tuple(draw(st.lists(format_text, max_size=3))),
        "entities": tuple(draw(st.lists(format_text, max_size=3))),
        "aliases": tuple(draw(st.lists(format_text, max_size=2))),
        "links": tuple(draw(st.lists(st.tuples(format_rels, format_link_targets), max_size=3))),
        "importance": draw(st.one_of(st.none(), st.integers(1, 10))),
        "confidence": draw(st.one_of(st.none(), st.floats(0, 1))),
        "author": draw(st.sampled_from([None, "agent", "agent:claude", "human:sasha"])),
        "session_id": draw(optional_text),
        "prompt_id": draw(optional_text),
        "turn_uuid": draw(optional_text),
        "event_at": draw(optional_datetime),
        "valid_from": draw(optional_datetime),
        "valid_until": draw(optional_datetime),
        "due_at": draw(optional_datetime),
        "task_status": draw(st.sampled_from([None, "todo", "doing", "blocked", "done"]))
        if memory_type == "task"
        else None,
    }


# HTML-ish soup: fragments of the memory vocabulary, broken markup and plain text.
format_html_ish = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "<!doctype html>",
                "<html>",
                "<head>",
                "</head>",
                "<body>",
                "<article>",
                "</article>",
                "<p>",
                "</p>",
                "<mark>",
                "</mark>",
                "<li>",
                "<pre>",
                "</pre>",
                "<aside>",
                "<details>",
                "<summary>",
                "<dl>",
                "<dt>",
                "<dd>",
                "<figure>",
                '<time datetime="2026-01-01">',
                "<time>",
                '<data value="1e3">',
                "<dfn>",
                '<code data-lang="py">',
                '<code data-lang="!">',
                '<q cite="u">',
                "<cite>",
                "<title>",
                "</title>",
                '<meta name="memhtml-type" content="semantic">',
                '<meta name="memhtml-status" content="active">',
                '<meta name="memhtml-x">',
                '<meta name="memhtml-created" content="2026-01-01">',
                '<link rel="memhtml-">',
                '<link rel="memhtml-supports" href="/a.html">',
                "<script>",
                "<svg>",
                "<math>",
                '<p class="x" onclick="y">',
                "<table>",
                "<td>",
                "<select>",
                "<template>",
                "<!--",
                "-->",
                "<![CDATA[",
                "&amp;",
                "&nbsp;",
                "&#0;",
                "&#xD800;",
                "<",
                ">",
                "<b>",
                "</b>",
                "<a href=x>",
                "</a>",
                "<div>",
                "<frameset>",
                "<plaintext>",
            ]
        ),
        format_text,
    ),
    max_size=40,
).map("".join)

# --- indexer: projection, update plans, corpora ---
# Plain data only, like the sections above; the indexer tests build MemoryDoc values and memory
# files from these.

# Repo paths of indexed memories, plus the near misses the indexer must leave alone. A tiny
# alphabet so that renames, re-creations and archive moves hit the same paths often.
indexer_paths = st.builds(
    lambda bucket, name: f"{bucket}/{name}.html",
    st.sampled_from(["areas/inbox", "projects/ws", "resources/t", "archive/2026/areas/inbox"]),
    st.sampled_from(["a", "b", "c", "d"]),
)
indexer_any_paths = st.one_of(
    indexer_paths,
    st.sampled_from(["README.md", ".memhtml/index.db", "areas/index.html", "notes/x.html"]),
)
# Child values with repeats, so deduplication by primary key is exercised.
indexer_tags = st.lists(st.sampled_from(["ops", "billing", "Ops", "ops "]), max_size=5)
indexer_entities = st.lists(
    st.tuples(st.sampled_from(["service", "person", "concept"]), st.sampled_from(["a", "b"])),
    max_size=5,
)
indexer_facets = st.lists(
    st.tuples(
        st.sampled_from(["tier", "owner"]),
        st.sampled_from(["1", "2", "x"]),
        st.one_of(st.none(), st.sampled_from([1.0, 2.0])),
    ),
    max_size=5,
)
indexer_citations = st.lists(
    st.tuples(st.sampled_from(["review", "wiki"]), st.one_of(st.none(), st.just("https://e.x/"))),
    max_size=4,
)
indexer_links = st.lists(
    st.tuples(st.sampled_from(["supports", "relates_to", "blocks"]), indexer_paths), max_size=4
)
# Statement groups for batching: sizes only, rendered into distinct statements by the test.
indexer_group_sizes = st.lists(st.integers(min_value=0, max_value=9), max_size=30)

# --- write path: commit subjects, placement, batches, session links ---
# Plain data only, like the sections above.

# Session links with a small alphabet so exact repeats are common.
write_session_links = st.lists(
    st.tuples(
        st.sampled_from(["a.html", "b.html"]),
        st.sampled_from(["s1", "s2"]),
        st.sampled_from(["wrote", "read", "corrected", "reinforced"]),
        st.sampled_from(["2026-09-14T07:02:11Z", "2026-09-15T00:00:00Z"]),
    ),
    max_size=8,
)

# --- memory parser contract: hostile snippets, mutations, vocabulary soup ---
# Plain data only, like the sections above; the contract suite renders and mutates files.

# Markup a memory must never carry, and markup the two parsers could build differently.
parser_hostile_snippets = st.sampled_from(
    [
        "<script>x()</script>",
        "<style>p{}</style>",
        '<iframe src="https://e.x/"></iframe>',
        "<object data=x></object>",
        "<embed src=x>",
        '<form action="https://e.x/"><input name=q></form>',
        '<meta http-equiv="refresh" content="0;url=https://e.x/">',
        '<base href="https://e.x/">',
        '<link rel="stylesheet" href="s.css">',
        '<p class="c">x</p>',
        '<p style="color:red">x</p>',
        '<p onclick="x()">x</p>',
        '<a href="javascript:alert(1)">x</a>',
        '<a href="jav&#x61;script:alert(1)">x</a>',
        '<a href="java\tscript:x">x</a>',
        '<a href="JAVASCRIPT:x">x</a>',
        '<a href=" data:text/html,x">x</a>',
        '<a href="https://e.x/">ok</a>',
        '<a href="mailto:a@e.x">ok</a>',
        '<q cite="vbscript:x">q</q>',
        '<img src="x" onerror="y">',
        "<svg><script>x</script></svg>",
        "<math><mi>x</mi><mark>m</mark></math>",
        "<template><p><mark>t</mark></p></template>",
        "<select><option>x<mark>y</mark></select>",
        "<table><p>x</p><td>y</table>",
        "<b><p>x</b></p>",
        "<p><a href=/a>x<div>y</div>z</a></p>",
        "<mark>second</mark>",
        "<title>two</title>",
        "<time>x</time>",
        "<!-- comment -->",
        "<!-->",
        "<!-- a --!> b -->",
        "<![CDATA[x]]>",
        "<?php x ?>",
        "<p>\x00</p>",
        "&#0;&#x1b;&#128;",
        "<pre>\n\nx</pre>",
        "<textarea>\nx</textarea>",
        "<plaintext>",
        "</br>",
        "</p>",
        "<frameset>",
        "\x1b[31m",
        "<li>x",
        "<dd>y",
        "<div>",
        "</div>",
        "<details open><summary>s</summary>x</details>",
        "<p title='a>b'>x</p>",
        "<p a=1 a=2>x</p>",
        "<P>upper</P>",
    ]
)
parser_mutations = st.sampled_from(
    ["drop", "duplicate", "swap", "inject", "unclose", "misnest", "uppercase"]
)
parser_encodings = st.sampled_from(["text", "utf-8", "bom", "latin-1", "cut", "pad"])

# Tokens of the element vocabulary only, nested or not: the soup lexbor may meet. Table
# elements are left out: content foster-parented out of a table is built differently by the
# two parsers (each against the standard somewhere), and the pre-scan keeps it from lexbor.
parser_vocabulary_tokens = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "p",
                "li",
                "ul",
                "ol",
                "dl",
                "dt",
                "dd",
                "a",
                "em",
                "strong",
                "code",
                "pre",
                "div",
                "span",
                "figure",
                "figcaption",
                "details",
                "summary",
                "aside",
                "section",
                "mark",
                "time",
            ]
        ).flatmap(
            lambda name: st.sampled_from(
                [f"<{name}>", f"</{name}>", f'<{name} title="t">', f"<{name} id=x>"]
            )
        ),
        st.sampled_from([" ", "\n", "x", "y z", "&amp;", "&nbsp;", "&lt;b&gt;", "\u00a0"]),
        st.sampled_from(['<data value="3">', '<code data-lang="py">', '<time datetime="2026">']),
        # Tags the body ignores or merges, line breaks the input stream rewrites, and
        # references with and without their semicolon.
        st.sampled_from(
            [
                *("<head>", "</head>", "<html lang=x>", "<body>", "</body>", "</html>"),
                *("<title>t", "\r\n", "\r", "\t", "&", "&amp", "&notin;", "&#x0;"),
                *("&#128;", "<!---->"),
            ]
        ),
    ),
    max_size=30,
).map("".join)

# Strictly nested trees of vocabulary elements in any arrangement (tables anywhere, lists in
# captions, formatting inside blocks): well-formed markup whose meaning can still surprise a
# parser, which is exactly what the pre-scan lets through to lexbor.
_PARSER_TREE_NAMES = (
    *("p", "li", "ul", "ol", "dl", "dt", "dd", "a", "em", "strong", "code", "pre", "div"),
    *("span", "figure", "figcaption", "details", "summary", "aside", "section", "mark"),
    *("table", "caption", "thead", "tbody", "tr", "td", "th", "title", "address", "q"),
)
parser_nested_markup = st.recursive(
    st.sampled_from(["", "x", " ", "\n", "a b", "&amp;", "<meta name=a>", "<link rel=b>"]),
    lambda inner: st.tuples(st.sampled_from(_PARSER_TREE_NAMES), st.lists(inner, max_size=3)).map(
        lambda pair: f"<{pair[0]}>{''.join(pair[1])}</{pair[0]}>"
    ),
    max_leaves=12,
)

# --- the trace plane: transcript lines in Claude Code's and the Codex CLI's formats ---
# Small pools so ids repeat (prompt dedup), values change mid-file (first/last-wins fields) and
# timestamps go backwards now and then (min/max, never "first/last line").

_trace_ids = st.sampled_from(["u-1", "u-2", "u-3", "u-4", "u-5"])
_trace_sessions = st.sampled_from(["s-a", "s-b"])
_trace_stamps = st.integers(min_value=1_700_000_000_000, max_value=1_700_000_999_999).map(
    lambda ms: (
        dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")
        + f".{ms % 1000:03d}Z"
    )
)
_trace_words = st.text(alphabet="abc é😀\t", min_size=1, max_size=12)


def _json_line(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8") + b"\n"


@st.composite
def claude_lines(draw: st.DrawFn) -> bytes:
    """One Claude Code line: a prompt, a tool result, an assistant turn, a summary, a skipped
    or unknown type."""
    envelope = {
        "parentUuid": None,
        "isSidechain": draw(st.booleans()),
        "userType": "external",
        "cwd": draw(st.sampled_from(["/home/ada/shop", "/home/ada/bill"])),
        "sessionId": draw(_trace_sessions),
        "version": draw(st.sampled_from(["1.0.98", "2.0.14"])),
        "gitBranch": draw(st.sampled_from(["main", "fix/tz"])),
        "uuid": draw(_trace_ids),
        "timestamp": draw(_trace_stamps),
    }
    if envelope["isSidechain"] and draw(st.booleans()):
        envelope["agentId"] = draw(st.sampled_from(["ag1", "ag2"]))
    kind = draw(
        st.sampled_from(["prompt", "result", "assistant", "tool", "summary", "system", "odd"])
    )
    if kind == "prompt":
        text = draw(_trace_words)
        content: object = text if draw(st.booleans()) else [{"type": "text", "text": text}]
        return _json_line(
            {**envelope, "type": "user", "message": {"role": "user", "content": content}}
        )
    if kind == "result":
        block = {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}
        return _json_line(
            {**envelope, "type": "user", "message": {"role": "user", "content": [block]}}
        )
    if kind in ("assistant", "tool"):
        said: dict[str, object] = (
            {"type": "text", "text": draw(_trace_words)}
            if kind == "assistant"
            else {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}
        )
        model = draw(st.sampled_from(["claude-sonnet-4-20250514", "<synthetic>"]))
        message = {"role": "assistant", "model": model, "content": [said]}
        return _json_line({**envelope, "type": "assistant", "message": message})
    if kind == "summary":
        return _json_line({"type": "summary", "summary": draw(_trace_words), "leafUuid": "x"})
    if kind == "system":
        return _json_line({**envelope, "type": "system", "content": "compacted"})
    return _json_line({**envelope, "type": "never-seen-before"})


@st.composite
def codex_lines(draw: st.DrawFn) -> bytes:
    """One Codex CLI line: session meta, turn context, a prompt event, a response item, an
    echo event or an unknown type."""
    stamp = draw(_trace_stamps)
    kind = draw(st.sampled_from(["meta", "context", "prompt", "assistant", "call", "echo", "odd"]))
    payload: dict[str, object]
    if kind == "meta":
        line_type = "session_meta"
        payload = {
            "id": draw(_trace_sessions),
            "timestamp": stamp,
            "cwd": "/home/ada/bill",
            "originator": "codex_cli_rs",
            "cli_version": draw(st.sampled_from(["0.36.0", "0.40.1"])),
            "git": {"branch": draw(st.sampled_from(["main", "dev"]))},
        }
    elif kind == "context":
        line_type = "turn_context"
        payload = {
            "cwd": "/home/ada/bill",
            "model": draw(st.sampled_from(["gpt-5", "gpt-5-codex"])),
        }
    elif kind == "prompt":
        line_type = "event_msg"
        payload = {"type": "user_message", "message": draw(_trace_words), "kind": "plain"}
    elif kind == "assistant":
        line_type = "response_item"
        payload = {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "ok"}],
        }
    elif kind == "call":
        line_type = "response_item"
        payload = {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c"}
    elif kind == "echo":
        line_type = "event_msg"
        payload = {"type": "token_count", "info": None}
    else:
        line_type = "never_seen_before"
        payload = {}
    return _json_line({"timestamp": stamp, "type": line_type, "payload": payload})


# Lines that are not records: not JSON, JSON that is not an object, bad UTF-8, blank.
junk_lines = st.sampled_from(
    [b"not json at all\n", b"[1, 2, 3]\n", b"\xff\xfe\x00garbage\n", b"\n", b"   \r\n", b'"text"\n']
)
transcript_lines = st.lists(st.one_of(claude_lines(), codex_lines(), junk_lines), max_size=25)


# --- sync: three trees of a merge (base, ours, theirs) ---
# Plain data: each test builds `Version`s from these (see tests/unit/test_sync_merge.py). The
# universe is tiny so that both sides touch the same paths, archive copies share content with
# what they left, and slugs collide.

SYNC_ACTIVE = ("areas/inbox/a.html", "areas/inbox/b.html", "resources/r/a.html")
SYNC_ARCHIVED = ("archive/2026/areas/inbox/a.html", "archive/2026/areas/inbox/a-2.html")
SYNC_OTHER = ("README.html", "projects/p/index.html", ".memhtml/state/access.jsonl")
SYNC_PATHS = SYNC_ACTIVE + SYNC_ARCHIVED + SYNC_OTHER
SYNC_RELS = ("relates_to", "supports", "supersedes")

# One file as plain data: ("memory", content, links, superseded_by, is_task, salt) or
# ("file", salt). The salt stands for everything else that makes two files differ (metas,
# stamps), so equal facts can still be different blobs.
sync_files = st.one_of(
    st.tuples(
        st.just("memory"),
        st.sampled_from(["h1", "h2", "h3"]),
        st.frozensets(
            st.tuples(st.sampled_from(SYNC_RELS), st.sampled_from(SYNC_ACTIVE + SYNC_ARCHIVED)),
            max_size=2,
        ),
        st.one_of(st.none(), st.sampled_from(SYNC_ACTIVE)),
        st.sampled_from([False, False, False, True]),
        st.integers(min_value=0, max_value=2),
    ),
    st.tuples(st.just("file"), st.integers(min_value=0, max_value=3)),
)


def _sync_file(path: str) -> st.SearchStrategy[tuple[object, ...]]:
    """Memories only where memories live; the other paths hold plain files."""
    return sync_files if path not in SYNC_OTHER else sync_files.filter(lambda f: f[0] == "file")


@st.composite
def sync_trees(draw: st.DrawFn) -> tuple[dict[str, tuple[object, ...]], ...]:
    """Base, ours and theirs as path → plain file; each side keeps, removes, edits (a new
    file), or edits only the head (same content, new links) each base file, and may add."""
    base = {
        path: draw(_sync_file(path))
        for path in draw(st.sets(st.sampled_from(SYNC_PATHS), max_size=4))
    }
    sides = []
    for _ in range(2):
        tree: dict[str, tuple[object, ...]] = {}
        for path in SYNC_PATHS:
            action = draw(st.sampled_from(["keep", "keep", "remove", "edit", "head", "add"]))
            if path in base and action == "keep":
                tree[path] = base[path]
            elif path in base and action == "head" and base[path][0] == "memory":
                kind, content, links, superseded, task, salt = base[path]
                extra = draw(st.sampled_from(SYNC_RELS)), draw(st.sampled_from(SYNC_ACTIVE))
                assert isinstance(links, frozenset)
                assert isinstance(salt, int)
                tree[path] = (kind, content, links | {extra}, superseded, task, salt + 10)
            elif action in {"edit", "add"} and (path in base) == (action == "edit"):
                tree[path] = draw(_sync_file(path))
        sides.append(tree)
    return base, sides[0], sides[1]
