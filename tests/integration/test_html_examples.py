"""The format's reference files (12.1 semantic, 12.2 task, 12.3 invalid variants), verbatim, with
their derived values; docs/format.md §12 has examples of its own."""

from __future__ import annotations

import pytest

from memhtml.adapters.html.parser import parse_memory
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import Citation, EntityRef, Facet, Link
from memhtml.domain.vocabulary import edge_class_of

SEMANTIC_EXAMPLE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Search API rate limit is 300 requests per minute per key</title>
<meta name="memhtml-type" content="semantic">
<meta name="memhtml-status" content="active">
<meta name="memhtml-created" content="2026-09-10T08:15:00Z">
<meta name="memhtml-updated" content="2026-09-12T17:40:22Z">
<meta name="memhtml-confidence" content="0.85">
<meta name="memhtml-importance" content="7">
<meta name="memhtml-content-hash" content="sha256:4c044f8da29f16ccd8e9632e3aaa87ae4346ed02b726c4cc34cba0d495a6368a">
<meta name="memhtml-author" content="agent:claude">
<meta name="memhtml-valid-from" content="2026-09-01">
<meta name="memhtml-entity" content="service:search-api">
<meta name="memhtml-entity" content="team:platform">
<meta name="memhtml-tag" content="rate-limits">
<meta name="memhtml-tag" content="search">
<link rel="memhtml-supports" href="/resources/rate-limits/gateway-quota-policy.html">
<link rel="memhtml-laterally-related" href="/areas/inbox/export-client-aborts-on-429.html">
</head>
<body>
<article>
<p><mark>The search API allows 300 requests per minute for each API key; request 301 inside the window gets <abbr title="Too Many Requests">HTTP 429</abbr>.</mark> Measured on <time datetime="2026-09-09T14:30Z">9 September</time> and recorded in the <cite>gateway config review</cite>.</p>
<dl>
<dt>Limit</dt><dd><data value="300">300</data> requests per minute</dd>
<dt>Scope</dt><dd>per API key</dd><dd>not per client IP</dd>
<dt>Window</dt><dd>sliding, <data value="60">one minute</data></dd>
</dl>
<p>The gateway enforces the limit with a <dfn>token bucket</dfn>: each key holds up to 300 tokens and regains 5 every second. Its owners put it plainly: <q cite="https://wiki.example.com/gateway/limits">limits follow the key, never the address</q>.</p>
<figure>
<pre><code data-lang="python">for attempt in range(5):
    resp = client.get("/search", params=query)
    if resp.status_code != 429:
        break
    time.sleep(float(resp.headers["Retry-After"]))</code></pre>
<figcaption>A client loop that honours Retry-After.</figcaption>
</figure>
<details>
<summary>How the number was found</summary>
<p>A load test ramped one key from 100 to 400 requests per minute; 429 responses began at exactly 301.</p>
</details>
<aside>
<p>Internal service keys are exempt from this limit.</p>
</aside>
</article>
</body>
</html>
"""  # noqa: E501 - reference file 12.1, verbatim

TASK_EXAMPLE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Make the nightly export client honour Retry-After</title>
<meta name="memhtml-type" content="task">
<meta name="memhtml-status" content="active">
<meta name="memhtml-created" content="2026-09-12T18:02:10Z">
<meta name="memhtml-updated" content="2026-09-13T09:11:47Z">
<meta name="memhtml-importance" content="6">
<meta name="memhtml-content-hash" content="sha256:35d8b810f7bbc763fc8a5d48de194cea263d69ac481ee88ba288dc71afb532ae">
<meta name="memhtml-task-status" content="blocked">
<meta name="memhtml-due" content="2026-09-30">
<meta name="memhtml-entity" content="service:export-worker">
<meta name="memhtml-tag" content="search">
<link rel="memhtml-subtask-of" href="/projects/export-hardening/tasks/harden-the-nightly-export-against-throttling.html">
</head>
<body>
<article>
<p><mark>The nightly export client waits for Retry-After and retries when the search API answers 429.</mark> Today it aborts the whole export on the first 429.</p>
<dl>
<dt>Blocked on</dt><dd>a staging key with production limits</dd>
<dt>Estimate</dt><dd><data value="3">three hours</data></dd>
</dl>
<details>
<summary>Notes</summary>
<p>Reuse the retry loop from the rate-limit memory and cap total waiting at ten minutes.</p>
</details>
</article>
</body>
</html>
"""  # noqa: E501 - reference file 12.2, verbatim

SEMANTIC_GIST = (
    "The search API allows 300 requests per minute for each API key; request 301 inside the "
    "window gets HTTP 429."
)


def test_semantic_example_has_no_violations_and_no_warnings() -> None:
    """12.1 parses cleanly: no warnings."""
    assert () == parse_memory(SEMANTIC_EXAMPLE).warnings


def test_semantic_example_head_values() -> None:
    """12.1's metas come back typed, defaults where absent."""
    doc = parse_memory(SEMANTIC_EXAMPLE.encode("utf-8"))
    assert "Search API rate limit is 300 requests per minute per key" == doc.title
    assert ("semantic", "active") == (doc.memory_type, doc.status)
    assert ("2026-09-10T08:15:00Z", "2026-09-12T17:40:22Z") == (doc.created_at, doc.updated_at)
    assert (0.85, 7, "agent:claude") == (doc.confidence, doc.importance, doc.author)
    assert ("2026-09-01", None) == (doc.valid_from, doc.valid_until)
    assert (0, False, None, None) == (
        doc.reprieves,
        doc.needs_revision,
        doc.task_status,
        doc.due_at,
    )
    assert ("rate-limits", "search") == doc.tags


def test_semantic_example_gist_and_event_time() -> None:
    """The gist is the whole <mark> sentence, "HTTP 429" included; event_at is the first <time>."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    assert SEMANTIC_GIST == doc.gist
    assert "2026-09-09T14:30Z" == doc.event_at


def test_semantic_example_word_count_is_133() -> None:
    """Word count over the whole article text, code, details and aside included."""
    assert 133 == parse_memory(SEMANTIC_EXAMPLE).word_count


def test_semantic_example_content_hash_matches_the_stated_one() -> None:
    """The recomputed hash equals the value the example states."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    expected = "sha256:4c044f8da29f16ccd8e9632e3aaa87ae4346ed02b726c4cc34cba0d495a6368a"
    assert (expected, expected) == (doc.content_hash, doc.stated_content_hash)


def test_semantic_example_facets() -> None:
    """Four facet rows; the first numeric <data value> of each <dd> is its number."""
    expected = (
        Facet("Limit", "300 requests per minute", 300.0),
        Facet("Scope", "per API key", None),
        Facet("Scope", "not per client IP", None),
        Facet("Window", "sliding, one minute", 60.0),
    )
    assert expected == parse_memory(SEMANTIC_EXAMPLE).facets


def test_semantic_example_citations() -> None:
    """The <cite> without href, then the <q> with its wiki href."""
    expected = (
        Citation("gateway config review", None),
        Citation(
            "limits follow the key, never the address", "https://wiki.example.com/gateway/limits"
        ),
    )
    assert expected == parse_memory(SEMANTIC_EXAMPLE).citations


def test_semantic_example_entities() -> None:
    """Meta entities, then the <dfn> concept, then the code language."""
    expected = (
        EntityRef("service", "search-api"),
        EntityRef("team", "platform"),
        EntityRef("concept", "token bucket"),
        EntityRef("lang", "python"),
    )
    assert expected == parse_memory(SEMANTIC_EXAMPLE).entities


def test_semantic_example_edges_are_memory_class() -> None:
    """`supports` and `laterally_related`, both of class memory, slash stripped."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    expected = (
        Link("supports", "resources/rate-limits/gateway-quota-policy.html"),
        Link("laterally_related", "areas/inbox/export-client-aborts-on-429.html"),
    )
    assert expected == doc.links
    assert ["memory", "memory"] == [edge_class_of(link.rel) for link in doc.links]


def test_semantic_example_disclosure_lines() -> None:
    """Gist, headline, four facets, two citations: no paragraph, details body or aside prose."""
    expected = [
        SEMANTIC_GIST,
        "How the number was found",
        "Limit: 300 requests per minute",
        "Scope: per API key",
        "Scope: not per client IP",
        "Window: sliding, one minute",
        "gateway config review",
        "limits follow the key, never the address",
    ]
    assert expected == parse_memory(SEMANTIC_EXAMPLE).disclosure_text.split("\n")


def test_semantic_example_searchable_only_texts() -> None:
    """Caption, aside, abbreviation title and defined term are reported apart."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    assert ("A client loop that honours Retry-After.",) == doc.captions
    assert ("Internal service keys are exempt from this limit.",) == doc.aside_texts
    assert ("Too Many Requests",) == doc.abbreviations
    assert ("token bucket",) == doc.defined_terms
    assert ("python",) == doc.code_langs


def test_semantic_example_fts_text_is_title_gist_body() -> None:
    """The FTS column is title, gist and body on three lines."""
    doc = parse_memory(SEMANTIC_EXAMPLE)
    assert [doc.title, doc.gist, doc.body_text] == doc.fts_text.split("\n")
    assert doc.body_text.startswith(SEMANTIC_GIST + " Measured on 9 September")
    assert 'time.sleep(float(resp.headers["Retry-After"]))' in doc.body_text


def test_task_example_values() -> None:
    """12.2: task status, due date, one task-class `subtask_of` edge, hash as stated."""
    doc = parse_memory(TASK_EXAMPLE)
    target = "projects/export-hardening/tasks/harden-the-nightly-export-against-throttling.html"
    assert ("task", "blocked", "2026-09-30") == (doc.memory_type, doc.task_status, doc.due_at)
    assert (Link("subtask_of", target),) == doc.links
    assert "task" == edge_class_of(doc.links[0].rel)
    assert doc.stated_content_hash == doc.content_hash
    expected = "sha256:35d8b810f7bbc763fc8a5d48de194cea263d69ac481ee88ba288dc71afb532ae"
    assert expected == doc.content_hash
    assert (1.0, 6) == (doc.confidence, doc.importance)


def _codes(html: str) -> list[str]:
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(html)
    return [finding.code for finding in caught.value.violations]


def test_invalid_example_claim_in_second_paragraph() -> None:
    """12.3.1: the claim in the article's second <p> is a mark-position violation."""
    html = SEMANTIC_EXAMPLE.replace(
        "<p><mark>The search API", "<p>Background first.</p><p><mark>The search API"
    )
    assert ["mark-position"] == _codes(html)


def test_invalid_example_task_status_on_a_semantic_memory() -> None:
    """12.3.2: a task-status meta on a non-task is forbidden."""
    html = SEMANTIC_EXAMPLE.replace(
        "</head>", '<meta name="memhtml-task-status" content="todo">\n</head>'
    )
    assert ["task-status-forbidden"] == _codes(html)


def test_invalid_example_three_violations_collected_in_order() -> None:
    """12.3.3: a bad <time> and a bad link give time-datetime; link-rel; link-href."""
    html = SEMANTIC_EXAMPLE.replace(
        "</article>", '<p><time datetime="2026-08">August</time></p>\n</article>'
    ).replace("</head>", '<link rel="memhtml-related-to" href="notes/x.html">\n</head>')
    with pytest.raises(InvalidMemory) as caught:
        parse_memory(html)
    codes = "; ".join(v.code for v in caught.value.violations)
    assert "time-datetime; link-rel; link-href" == codes
    assert str(caught.value).startswith("time-datetime: ")  # each code with its detail
