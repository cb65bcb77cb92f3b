"""The renderer: canonical bytes, fenced code, refusals, and the render → parse round trip."""

from __future__ import annotations

import math
import re
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.html.content_hash import content_hash_of
from memhtml.adapters.html.parser import parse_memory, parse_memory_reference
from memhtml.adapters.html.renderer import render_memory, render_parsed
from memhtml.domain.datetimes import event_label
from memhtml.domain.errors import InvalidInput, InvalidMemory
from memhtml.domain.model import (
    EntityRef,
    Link,
    RenderInputs,
    collapse_whitespace,
    split_entity_ref,
)
from tests.strategies import format_html_ish, format_render_kwargs

WRITE_EXAMPLE = RenderInputs(
    title="Invoice export runs at 03:30 UTC",
    memory_type="procedural",
    created_at="2026-09-14T07:02:11Z",
    updated_at="2026-09-14T07:02:11Z",
    claim="The invoice export job starts at 03:30 UTC every night.",
    body=("Moved from 01:00 after the ledger lock contention.",),
    tags=("billing",),
    entities=("service:invoice-exporter",),
    importance=7,
)

EXPECTED_WRITE_EXAMPLE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Invoice export runs at 03:30 UTC</title>
<meta name="memhtml-type" content="procedural">
<meta name="memhtml-status" content="active">
<meta name="memhtml-created" content="2026-09-14T07:02:11Z">
<meta name="memhtml-updated" content="2026-09-14T07:02:11Z">
<meta name="memhtml-importance" content="7">
<meta name="memhtml-content-hash" content="sha256:41390c72342fdcd4bf13952f25cd7df622db9e113df88545e3202b9e8f0b55bc">
<meta name="memhtml-entity" content="service:invoice-exporter">
<meta name="memhtml-tag" content="billing">
</head>
<body>
<article>
<p><mark>The invoice export job starts at 03:30 UTC every night.</mark> Moved from 01:00 after the ledger lock contention.</p>
</article>
</body>
</html>
"""  # noqa: E501 - one element per line, as written


def test_write_example_renders_to_the_canonical_bytes() -> None:
    """The write example of docs/cli-contract.md §6 renders line for line, with the hash that
    example prints."""
    assert EXPECTED_WRITE_EXAMPLE == render_memory(WRITE_EXAMPLE)


def test_rendering_is_stable() -> None:
    """The same inputs always give the same bytes."""
    assert render_memory(WRITE_EXAMPLE) == render_memory(attrs.evolve(WRITE_EXAMPLE))


def test_metas_follow_the_emission_order_and_links_their_authored_order() -> None:
    """Every optional meta in §2 order, then repeatables, then links as given."""
    inputs = attrs.evolve(
        WRITE_EXAMPLE,
        memory_type="task",
        confidence=0.853,
        author="agent:claude",
        session_id="s",
        prompt_id="p",
        turn_uuid="t",
        valid_from="2026-09-01",
        valid_until="2027-01-01",
        due_at="2026-10-01",
        aliases=("Export",),
        links=(Link("subtask_of", "b.html"), Link("blocks", "a.html")),
    )
    html = render_memory(inputs)
    names = re.findall(r'<meta name="memhtml-([a-z-]+)"', html)
    expected = ["type", "status", "created", "updated", "confidence", "importance"]
    expected += ["content-hash", "author", "session", "prompt", "turn", "valid-from"]
    expected += ["valid-until", "task-status", "due", "entity", "tag", "alias"]
    assert expected == names
    assert '<meta name="memhtml-confidence" content="0.85">' in html
    assert '<meta name="memhtml-task-status" content="todo">' in html
    assert ["subtask-of", "blocks"] == re.findall(r'<link rel="memhtml-([a-z-]+)"', html)


def test_values_are_html_escaped() -> None:
    """Markup characters in values and prose arrive as text, not markup."""
    inputs = attrs.evolve(
        WRITE_EXAMPLE, title='<b>"T" & co</b>', claim="a < b & c", tags=('say "hi"',)
    )
    doc = parse_memory(render_memory(inputs))
    assert ('<b>"T" & co</b>', "a < b & c", ('say "hi"',)) == (doc.title, doc.gist, doc.tags)


def test_fenced_paragraph_becomes_a_code_figure() -> None:
    """A fence with an info string gives figure/pre/code with the lowercased language."""
    inputs = attrs.evolve(
        WRITE_EXAMPLE, body=("Intro.", "```Python extra\nif a < b:\n    go()\n```")
    )
    html = render_memory(inputs)
    expected = '<figure><pre><code data-lang="python">if a &lt; b:\n    go()</code></pre></figure>'
    assert expected in html.split("<article>\n", 1)[1]
    assert ("python",) == parse_memory(html).code_langs


def test_a_leading_fence_leaves_the_claim_alone_in_its_paragraph() -> None:
    """If the first paragraph is a fence, the claim's <p> stands alone."""
    html = render_memory(attrs.evolve(WRITE_EXAMPLE, body=("```\nx\n```", "After.")))
    article = html.split("<article>\n", 1)[1].split("</article>", 1)[0]
    expected = (
        "<p><mark>The invoice export job starts at 03:30 UTC every night.</mark></p>\n"
        "<figure><pre><code>x</code></pre></figure>\n<p>After.</p>\n"
    )
    assert expected == article


@pytest.mark.parametrize(
    "paragraph",
    ["```\nunclosed", "``\nx\n``", "```\na\n```\nb\n```", "text\n```\nx\n```"],
)
def test_paragraphs_that_are_not_one_whole_fence_stay_prose(paragraph: str) -> None:
    """Unclosed, too short, double or embedded fences are ordinary paragraphs."""
    html = render_memory(attrs.evolve(WRITE_EXAMPLE, body=(paragraph,)))
    assert "<figure>" not in html


def test_invalid_fence_language_is_left_unlabelled() -> None:
    """An info string that is not a language token sets no data-lang."""
    html = render_memory(attrs.evolve(WRITE_EXAMPLE, body=("```no!\nx\n```",)))
    assert "<figure><pre><code>x</code></pre></figure>" in html


def test_event_time_is_appended_as_a_dated_paragraph() -> None:
    """`event_at` becomes a final <p><time datetime> showing the time of day to the second,
    and the parsed event_at."""
    html = render_memory(attrs.evolve(WRITE_EXAMPLE, event_at="2026-09-09T14:30:05Z"))
    shown = '<time datetime="2026-09-09T14:30:05Z">2026-09-09 14:30:05 UTC</time>'
    assert f"<p>{shown}</p>\n</article>" in html
    assert "2026-09-09T14:30:05Z" == parse_memory(html).event_at


@pytest.mark.parametrize("event_at", ["2026-09-09", "2026-09-09T00:00:00Z"])
def test_a_day_event_shows_the_day_alone(event_at: str) -> None:
    """A date, or a stamp at midnight UTC, shows only the day: what every event showed
    before times of day did, so those memories keep their content hash."""
    html = render_memory(attrs.evolve(WRITE_EXAMPLE, event_at=event_at))
    assert f'<p><time datetime="{event_at}">2026-09-09</time></p>\n</article>' in html


def test_events_a_second_apart_hash_apart() -> None:
    """Same words, event times one second apart: two content hashes (issue 14: the day-only
    label folded distinct episodes into one memory)."""
    first, second = (
        parse_memory(render_memory(attrs.evolve(WRITE_EXAMPLE, event_at=stamp))).content_hash
        for stamp in ("2023-05-08T13:56:07Z", "2023-05-08T13:56:08Z")
    )
    assert first != second


def test_article_html_is_used_as_given() -> None:
    """A caller's own article markup is placed verbatim and validated like any file."""
    inner = "<p><mark>Own claim.</mark></p>\n<dl><dt>k</dt><dd>v</dd></dl>"
    html = render_memory(attrs.evolve(WRITE_EXAMPLE, claim="", body=(), article_html=inner))
    assert f"<article>\n{inner}\n</article>" in html
    assert ("k", "v", None) == parse_memory(html).facets[0]


@pytest.mark.parametrize(
    "change",
    [
        {"confidence": 1.5},
        {"confidence": math.nan},
        {"importance": 0},
        {"importance": 11},
        {"created_at": "today"},
        {"valid_from": "2026-02-30"},
        {"due_at": "2026-08"},
        {"event_at": "9 Sept"},
        {"claim": "nul\x00here"},
        {"article_html": "<p><mark>x</mark></p>"},
    ],
)
def test_inputs_the_format_cannot_carry_are_invalid_input(change: dict[str, Any]) -> None:
    """Out-of-range numbers, malformed instants, NUL, and claim plus article_html refuse."""
    with pytest.raises(InvalidInput):
        render_memory(attrs.evolve(WRITE_EXAMPLE, **change))


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"claim": "  \n "}, "mark-empty"),
        ({"memory_type": "fact"}, "type-invalid"),
        ({"title": " "}, "title-empty"),
        ({"links": (Link("supports", "a//b.html"),)}, "link-href"),
        ({"links": (Link("related", "a.html"),)}, "link-rel"),
        ({"task_status": "todo"}, "task-status-forbidden"),
        ({"claim": "", "body": (), "article_html": "<p>no claim</p>"}, "mark-count"),
    ],
)
def test_rendered_violations_are_invalid_memory(change: dict[str, Any], code: str) -> None:
    """The renderer refuses with the same violation the reader would report."""
    with pytest.raises(InvalidMemory) as caught:
        render_memory(attrs.evolve(WRITE_EXAMPLE, **change))
    assert [code] == [finding.code for finding in caught.value.violations]


def _inputs(kwargs: dict[str, Any]) -> RenderInputs:
    specs = kwargs.pop("paragraphs")
    body = [
        spec[1] if spec[0] == "prose" else "```" + spec[1] + "\n" + "\n".join(spec[2]) + "\n```"
        for spec in specs
    ]
    return RenderInputs(body=tuple(body), **kwargs)


def _expected_body(inputs: RenderInputs, kwargs_specs: list[tuple[Any, ...]]) -> str:
    parts = [inputs.claim]
    parts += [spec[1] if spec[0] == "prose" else "\n".join(spec[2]) for spec in kwargs_specs]
    parts += [event_label(inputs.event_at)] if inputs.event_at else []
    return collapse_whitespace(" ".join(parts))


def _values(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in map(collapse_whitespace, values) if v))


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(format_render_kwargs())
def test_render_then_parse_round_trips(kwargs: dict[str, Any]) -> None:
    """Every field comes back as given (after the writer's whitespace normalisation)."""
    specs = list(kwargs["paragraphs"])
    inputs = _inputs(dict(kwargs))
    doc = parse_memory(render_memory(inputs))
    langs = [spec[1].split()[0].lower() for spec in specs if spec[0] == "code" and spec[1]]
    langs = [lang for lang in langs if re.fullmatch(r"[a-z0-9][a-z0-9_+#.-]*", lang)]
    entities = [split_entity_ref(e) for e in _values(inputs.entities)]
    entities += [EntityRef("lang", lang) for lang in langs]
    confidence = 1.0 if inputs.confidence is None else float(f"{inputs.confidence:.2f}")
    default_task = "todo" if inputs.memory_type == "task" else None
    expected = {
        "title": collapse_whitespace(inputs.title),
        "memory_type": inputs.memory_type,
        "status": "active",
        "created_at": inputs.created_at,
        "updated_at": inputs.updated_at,
        "confidence": confidence,
        "importance": 5 if inputs.importance is None else inputs.importance,
        "author": inputs.author or "agent",
        "session_id": inputs.session_id and collapse_whitespace(inputs.session_id),
        "prompt_id": inputs.prompt_id and collapse_whitespace(inputs.prompt_id),
        "turn_uuid": inputs.turn_uuid and collapse_whitespace(inputs.turn_uuid),
        "valid_from": inputs.valid_from,
        "valid_until": inputs.valid_until,
        "due_at": inputs.due_at,
        "event_at": inputs.event_at,
        "task_status": inputs.task_status or default_task,
        "tags": _values(inputs.tags),
        "aliases": _values(inputs.aliases),
        "entities": tuple(dict.fromkeys(entities)),
        "links": tuple(dict.fromkeys(inputs.links)),
        "gist": collapse_whitespace(inputs.claim),
        "body_text": _expected_body(inputs, specs),
        "code_langs": tuple(langs),
        "warnings": (),
    }
    actual = {name: getattr(doc, name) for name in expected}
    assert expected == actual


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(format_render_kwargs())
def test_stated_hash_equals_the_computed_one(kwargs: dict[str, Any]) -> None:
    """The hash the renderer stamps is the hash any reader recomputes."""
    html = render_memory(_inputs(dict(kwargs)))
    doc = parse_memory(html)
    assert doc.content_hash == doc.stated_content_hash
    assert doc.content_hash == content_hash_of(html)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(format_render_kwargs(), st.sampled_from(["\n", "\n\n", "\n  \t", "\r\n "]))
@example(
    {
        "title": "0",
        "memory_type": "episodic",
        "created_at": "2000-01-01",
        "updated_at": "2000-01-01",
        "claim": "0",
        "paragraphs": [("code", "", ["", ""])],
    },
    "\n\n",
)
def test_re_indenting_the_rendered_article_keeps_the_hash(
    kwargs: dict[str, Any], indent: str
) -> None:
    """Whitespace before each article line (never inside <pre>) leaves the hash alone."""
    html = render_memory(_inputs(dict(kwargs)))
    start, end = html.index("<article>"), html.index("</article>")
    article = html[start:end].replace("<p><mark>", "<p>\n <mark>")
    # Escaped code holds no "<", so these only match the starts of the renderer's lines.
    for line_start in ("\n<p>", "\n<figure>"):
        article = article.replace(line_start, indent + line_start[1:])
    pretty = html[:start] + article + html[end:]
    assert parse_memory(html).content_hash == parse_memory(pretty).content_hash


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(format_render_kwargs())
def test_the_rendered_document_is_a_fresh_parse(kwargs: dict[str, Any]) -> None:
    """``render_parsed`` hands back exactly what parsing its text gives, and that text."""
    inputs = _inputs(dict(kwargs))
    rendered = render_parsed(inputs)
    assert render_memory(inputs) == rendered.text
    assert parse_memory(rendered.text) == rendered.doc
    assert parse_memory_reference(rendered.text) == rendered.doc


_BARE_KWARGS: dict[str, Any] = {
    "title": "t",
    "memory_type": "semantic",
    "created_at": "2026-01-01",
    "updated_at": "2026-01-01",
    "claim": "",
    "paragraphs": [],
}


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None, max_examples=300)
@given(format_render_kwargs(), format_html_ish)
@example(
    _BARE_KWARGS,
    '<svg></svg><p><code data-lang="!">x</code></p><foo></foo><data value="1e3">x</data>',
)
@example(
    _BARE_KWARGS,
    '</article></body></html><meta name="memhtml-content-hash" content="sha256:'
    + "0" * 64
    + '"><p>',
)
def test_a_caller_article_renders_to_its_fresh_parse_or_refuses(
    kwargs: dict[str, Any], soup: str
) -> None:
    """With any article markup (warnings included), the handed-back document is the parse."""
    inputs = attrs.evolve(
        _inputs(dict(kwargs)),
        claim="",
        body=(),
        event_at=None,
        article_html="<p><mark>claim</mark></p>" + soup,
    )
    try:
        rendered = render_parsed(inputs)
    except (InvalidMemory, InvalidInput):
        return  # refused whole; most soups are accepted, a sixth of them with warnings
    assert parse_memory(rendered.text) == rendered.doc
    assert parse_memory_reference(rendered.text) == rendered.doc
