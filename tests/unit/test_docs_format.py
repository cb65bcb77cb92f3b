"""docs/format.md's examples are true of the code: the hash table, the datetime table, and the
§12 files with the values the page says they yield."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

from memhtml.adapters.html import content_hash_of, parse_memory, render_memory
from memhtml.domain.datetimes import is_valid_datetime
from memhtml.domain.errors import InvalidMemory
from memhtml.domain.model import EntityRef, Facet, Link, MemoryDoc, RenderInputs

PAGE: Final = Path(__file__).resolve().parents[2] / "docs" / "format.md"
HASH_ROW: Final = re.compile(r"^\| `(<article>.*</article>)` \| .* \| `(sha256:[0-9a-f]+)` \|$")
DATETIME_ROW: Final = re.compile(r"^\|(.*)\|(.*)\|$")
BACKTICKED: Final = re.compile(r"`([^`]+)`")


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def _section(number: str) -> str:
    """The text of ``§number`` up to the next heading of the same or a higher level."""
    text = _page()
    start = re.search(rf"^(#+) §{re.escape(number)} .*$", text, re.MULTILINE)
    assert start is not None, f"no §{number} in {PAGE.name}"
    level = len(start.group(1))
    end = re.compile(rf"^#{{1,{level}}} ", re.MULTILINE).search(text, start.end())
    return text[start.end() : end.start() if end else len(text)]


def _html_blocks(number: str) -> list[str]:
    return re.findall(r"```html\n(.*?)```", _section(number), re.DOTALL)


def _example(number: str) -> str:
    blocks = _html_blocks(number)
    assert 1 == len(blocks)
    return blocks[0]


def _hash_rows() -> list[tuple[str, str]]:
    rows = [HASH_ROW.match(line) for line in _section("7").splitlines()]
    return [(m.group(1), m.group(2)) for m in rows if m is not None]


def _datetime_columns() -> tuple[list[str], list[str]]:
    accepted: list[str] = []
    refused: list[str] = []
    for line in _section("5").splitlines():
        row = DATETIME_ROW.match(line)
        if row is None or line.startswith(("| accepted", "|---")):
            continue
        accepted += BACKTICKED.findall(row.group(1))
        refused += BACKTICKED.findall(row.group(2))
    return accepted, refused


def test_the_hash_table_holds_four_examples() -> None:
    """The §7 table is read as four (article, hash prefix) rows, so the next test checks some."""
    assert 4 == len(_hash_rows())


@pytest.mark.parametrize(("article", "prefix"), _hash_rows())
def test_each_hash_example_hashes_as_stated(article: str, prefix: str) -> None:
    """Every §7 row's article hashes to the prefix the page prints."""
    assert prefix == content_hash_of(article)[: len(prefix)]


def test_the_first_hash_example_survives_indentation() -> None:
    """§7: the list spread over indented lines hashes like the one-line list."""
    spread = "<article>\n  <ol>\n    <li>drain</li>\n    <li>deploy</li>\n  </ol>\n</article>"
    assert content_hash_of(_hash_rows()[0][0]) == content_hash_of(spread)


def test_datetime_table_examples_are_judged_as_the_page_says() -> None:
    """Every §5 accepted value passes the rule and every refused one fails it."""
    accepted, refused = _datetime_columns()
    assert 4 == len(accepted)
    assert 8 == len(refused)
    assert all(is_valid_datetime(value) for value in accepted)
    assert not any(is_valid_datetime(value) for value in refused)


def _semantic() -> MemoryDoc:
    return parse_memory(_example("12.1"))


def test_semantic_example_is_what_the_renderer_writes() -> None:
    """§12.1 says render_memory wrote it; rendering the same inputs gives the same bytes."""
    text = _example("12.1")
    article = text.split("<article>\n", 1)[1].split("</article>", 1)[0]
    inputs = RenderInputs(
        title="Checkout API connection pool is 50 per pod",
        memory_type="semantic",
        created_at="2026-03-12T09:20:00Z",
        updated_at="2026-03-14T16:05:41Z",
        article_html=article,
        tags=("checkout", "postgres"),
        entities=("service:checkout-api", "team:payments"),
        links=(
            Link("supports", "resources/postgres/primary-connection-limit-is-800.html"),
            Link(
                "laterally_related",
                "areas/inbox/econnreset-from-the-ledger-under-pool-exhaustion.html",
            ),
        ),
        importance=8,
        confidence=0.9,
        author="agent:claude",
        valid_from="2026-03-01",
    )
    assert text == render_memory(inputs)


def test_semantic_example_derived_values() -> None:
    """§12.1's table: gist, event time, word count, facets, entities, abbreviation, no warning."""
    doc = _semantic()
    assert doc.gist.startswith("Each checkout API pod opens at most 50 Postgres connections;")
    assert ("2026-03-12", 121, ()) == (doc.event_at, doc.word_count, doc.warnings)
    assert (
        Facet("Pool size", "50 connections per pod", 50.0),
        Facet("Queue timeout", "2.5 seconds", 2.5),
        Facet("Applies to", "checkout-api", None),
        Facet("Applies to", "checkout-worker", None),
    ) == doc.facets
    assert (
        EntityRef("service", "checkout-api"),
        EntityRef("team", "payments"),
        EntityRef("concept", "bounded connection pool"),
        EntityRef("lang", "yaml"),
    ) == doc.entities
    assert ("PostgreSQL",) == doc.abbreviations
    assert doc.stated_content_hash == doc.content_hash


def test_semantic_example_discloses_the_eight_listed_lines() -> None:
    """§12.1's disclosure lines, in order; the details and aside prose are not among them."""
    expected = [
        _semantic().gist,
        "Why 50 and not more",
        "Pool size: 50 connections per pod",
        "Queue timeout: 2.5 seconds",
        "Applies to: checkout-api",
        "Applies to: checkout-worker",
        "March capacity review",
        "size the pool to the cores, not to the traffic",
    ]
    assert expected == _semantic().disclosure_text.split("\n")


def test_task_example_yields_its_status_due_date_and_edge() -> None:
    """§12.2: a valid task, status doing, due 2026-04-01, one subtask_of edge, no event time."""
    doc = parse_memory(_example("12.2"))
    target = (
        "projects/checkout-hardening/tasks/survive-a-postgres-failover-without-dropped-orders.html"
    )
    assert ("task", "doing", "2026-04-01", None) == (
        doc.memory_type,
        doc.task_status,
        doc.due_at,
        doc.event_at,
    )
    assert (Link("subtask_of", target),) == doc.links
    assert ((), doc.content_hash) == (doc.warnings, doc.stated_content_hash)


def _codes(text: str) -> str:
    with pytest.raises(InvalidMemory) as raised:
        parse_memory(text)
    return "; ".join(v.code for v in raised.value.violations)


def test_invalid_variants_give_the_listed_codes() -> None:
    """§12.3's three invalid variants of §12.1, and the fourth that only warns."""
    text = _example("12.1")
    first = text.replace("<article>\n<p><mark>", "<article>\n<p>Context first.</p>\n<p><mark>")
    second = text.replace("</head>", '<meta name="memhtml-task-status" content="todo">\n</head>')
    third = text.replace(
        "</aside>", '</aside>\n<p><time datetime="2026-03">March</time></p>'
    ).replace("</head>", '<link rel="memhtml-depends-on" href="resources/x.html">\n</head>')
    assert "mark-position" == _codes(first)
    assert "task-status-forbidden" == _codes(second)
    assert "time-datetime; link-rel; link-href" == _codes(third)
    lenient = parse_memory(text.replace('content="0.90"', 'content="1.5"'))
    assert (1.0, ("meta-malformed",)) == (
        lenient.confidence,
        tuple(w.code for w in lenient.warnings),
    )
