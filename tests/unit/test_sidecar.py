"""The access sidecar: byte-stable rendering, the 4-place grid, torn-line tolerant parsing."""

from __future__ import annotations

import json
import math
from random import Random

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhtml.domain.reinforce import AccessRow
from memhtml.domain.sidecar import parse_sidecar, render_sidecar, round4, sidecar_number
from tests.strategies import access_rows

T0 = "2026-09-14T07:00:00Z"


def test_sidecar_line_bytes() -> None:
    """One compact object per line, docs/index-schema.md §4 key order, raw UTF-8, integral
    floats bare."""
    rows = [
        AccessRow(path="b.html", outcome_score=1.0, updated_at=T0),
        AccessRow(
            path="é.html",
            access_count=2,
            reinforcement_count=1,
            outcome_score=-0.091234,
            last_accessed_at=T0,
            updated_at=T0,
        ),
    ]
    expected = (
        '{"path":"b.html","accessCount":0,"reinforcementCount":0,"outcomeScore":1,'
        '"lastAccessedAt":null,"lastReinforcedAt":null,"updatedAt":"2026-09-14T07:00:00Z"}\n'
        '{"path":"é.html","accessCount":2,"reinforcementCount":1,"outcomeScore":-0.0912,'
        '"lastAccessedAt":"2026-09-14T07:00:00Z","lastReinforcedAt":null,'
        '"updatedAt":"2026-09-14T07:00:00Z"}\n'
    )
    assert expected == render_sidecar(reversed(rows))


def test_an_empty_plane_renders_no_bytes() -> None:
    """No rows, no lines: the empty string, not a lone newline."""
    assert "" == render_sidecar([])


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1 / 3, 0.3333), (0.99996, 1.0), (-0.00004, 0.0), (-0.00005, 0.0), (0.00005, 0.0001)],
)
def test_round4_grid(value: float, expected: float) -> None:
    """Four decimals, halves toward +inf, and never a negative zero."""
    rounded = round4(value)
    assert (expected, 1.0) == (rounded, math.copysign(1.0, rounded))


def test_sidecar_numbers_drop_the_trailing_zero() -> None:
    """An integral score renders as an int (`1`, `0`), a fraction as a float."""
    assert [1, 0, 0, -1, 0.25] == [sidecar_number(v) for v in (1.0, 0.0, -0.0, -1.0, 0.25)]
    assert [int, int, int, int, float] == [
        type(sidecar_number(v)) for v in (1.0, 0.0, -0.0, -1.0, 0.25)
    ]


def test_parse_skips_and_counts_torn_lines() -> None:
    """Bad lines are counted and skipped; blank lines are neither rows nor damage."""
    good = render_sidecar([AccessRow(path="a.html", access_count=3, updated_at=T0)])
    text = "\n".join(
        [
            good.strip(),
            "",
            good.strip()[:40],  # torn mid-write
            "[1, 2]",  # not an object
            good.strip().replace('"accessCount":3', '"accessCount":-1'),
            good.strip().replace('"accessCount":3', '"accessCount":true'),
            good.strip().replace('"outcomeScore":0', '"outcomeScore":1.5'),
            good.strip().replace('"outcomeScore":0', '"outcomeScore":NaN'),
            good.strip().replace('"path":"a.html"', '"path":""'),
            good.strip().replace("}", ',"extra":1}'),
            good.strip().replace(',"updatedAt":"2026-09-14T07:00:00Z"', ""),
            good.strip().replace('"lastAccessedAt":null', '"lastAccessedAt":5'),
            "[" * 100_000,
            "   ",
        ]
    )
    parsed = parse_sidecar(text)
    assert (1, 11) == (len(parsed.rows), parsed.skipped)


def test_an_integral_float_count_is_accepted() -> None:
    """A count written as 3.0 by another writer still restores as 3."""
    line = render_sidecar([AccessRow(path="a", access_count=3, updated_at=T0)])
    parsed = parse_sidecar(line.replace('"accessCount":3', '"accessCount":3.0'))
    assert (3, 0) == (parsed.rows[0].access_count, parsed.skipped)


@given(st.lists(access_rows, max_size=6, unique_by=lambda r: r.path))
def test_render_then_parse_round_trips_on_the_grid(rows: list[AccessRow]) -> None:
    """Parsing a rendered sidecar gives the rows back, path-sorted, outcomes on the 4-place grid."""
    expected = tuple(
        attrs.evolve(r, outcome_score=round4(r.outcome_score))
        for r in sorted(rows, key=lambda r: r.path)
    )
    parsed = parse_sidecar(render_sidecar(rows))
    assert (expected, 0) == (parsed.rows, parsed.skipped)


@given(st.lists(access_rows, max_size=6, unique_by=lambda r: r.path), st.randoms())
def test_rendering_is_byte_stable_and_order_free(rows: list[AccessRow], rng: Random) -> None:
    """Any input order renders the same bytes, and re-rendering a parsed sidecar changes none."""
    text = render_sidecar(rows)
    shuffled = list(rows)
    rng.shuffle(shuffled)
    assert text == render_sidecar(shuffled)
    assert text == render_sidecar(parse_sidecar(text).rows)
    lines = text.splitlines()
    assert sorted(lines, key=lambda line: json.loads(line)["path"]) == lines


@given(st.lists(access_rows, min_size=1, max_size=4, unique_by=lambda r: r.path), st.data())
def test_a_truncated_sidecar_keeps_every_whole_line(
    rows: list[AccessRow], data: st.DataObject
) -> None:
    """Cut anywhere, the file restores each complete line and counts at most one torn one."""
    text = render_sidecar(rows)
    cut = data.draw(st.integers(min_value=0, max_value=len(text)))
    parsed = parse_sidecar(text[:cut])
    whole = text[:cut].count("\n")
    assert parsed.skipped <= 1
    assert whole <= len(parsed.rows) <= whole + 1
