"""The reinforce upsert against its pure twin, ``domain.reinforce.reinforce_step``."""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memhtml.adapters.sqlite.reinforce_sql import (
    REINFORCE_PATH_BATCH,
    reinforce_paths,
    reinforce_sql,
)
from memhtml.adapters.sqlite.state_sidecar import access_rows
from memhtml.domain.datetimes import utc_stamp
from memhtml.domain.errors import InvalidInput
from memhtml.domain.reinforce import (
    REINFORCE_COOLDOWN_S,
    AccessRow,
    ReinforceResult,
    Signal,
    ewma,
    reinforce_step,
)
from tests.fakes.retrieval_rows import access_write, open_index

PATHS: Final = ("a.html", "b.html", "c/é.html", "d.html")
BASE: Final = dt.datetime(2026, 9, 14, 7, 2, 11, tzinfo=dt.UTC)
# Stamps a seeded row may carry: the writer's shape, others julianday() reads, unreadable ones.
SEED_STAMPS: Final = (
    "2026-09-14T07:02:11Z",
    "2026-09-14T06:47:11Z",
    "2026-09-14T06:47:12Z",
    "2026-09-14 08:50:00.25+02:00",
    "2026-09-14T07:00:00.999Z",
    "2026-09-13",
    "2026-09-14T07:20:00Z",
    "not a time",
    "",
)


def _stamp(offset_s: int) -> str:
    return utc_stamp(BASE + dt.timedelta(seconds=offset_s))


seed_rows = st.lists(
    st.builds(
        AccessRow,
        path=st.sampled_from(PATHS),
        access_count=st.integers(0, 5),
        reinforcement_count=st.integers(0, 5),
        outcome_score=st.one_of(
            st.floats(-1.0, 1.0), st.sampled_from([-1.0, 1.0, 0.9999999999999999])
        ),
        last_accessed_at=st.one_of(st.none(), st.sampled_from(SEED_STAMPS)),
        last_reinforced_at=st.one_of(st.none(), st.sampled_from(SEED_STAMPS)),
        updated_at=st.sampled_from(SEED_STAMPS),
    ),
    unique_by=lambda row: row.path,
)

# One call: which paths (repeats allowed), which signal, and how far the clock moved first;
# the cooldown boundary and its neighbours are drawn often.
steps = st.lists(
    st.tuples(
        st.lists(st.sampled_from(PATHS), min_size=1, max_size=5),
        st.sampled_from(Signal),
        st.sampled_from([0, 1, 899, 900, 901, 3600, 10**6]),
    ),
    max_size=10,
)


@settings(max_examples=300, deadline=None)
@given(seeded=seed_rows, calls=steps)
@example(
    seeded=[
        AccessRow(
            path="a.html",
            outcome_score=0.9999999999999999,
            last_accessed_at="2026-09-14T06:47:11Z",
            updated_at="",
        )
    ],
    calls=[(["a.html"], Signal.POSITIVE, 0)],
)
@example(
    seeded=[AccessRow(path="a.html", last_accessed_at="not a time", updated_at="")],
    calls=[(["a.html"], Signal.NEUTRAL, 0)],
)
def test_upsert_replays_the_twin(
    seeded: list[AccessRow], calls: list[tuple[list[str], Signal, int]]
) -> None:
    """Every call bumps and cools the paths the twin does, leaving the rows the twin leaves."""
    db = open_index()
    db.write_all([access_write(row) for row in seeded])
    plane = {row.path: row for row in seeded}
    offset = 0
    for paths, signal, advance in calls:
        offset += advance
        now = _stamp(offset)
        bumped: list[str] = []
        cooled: list[str] = []
        for path in dict.fromkeys(paths):
            after = reinforce_step(path, plane.get(path), signal, now)
            if after is None:
                cooled.append(path)
            else:
                bumped.append(path)
                plane[path] = after
        expected = ReinforceResult(bumped=tuple(bumped), cooled_down=tuple(cooled))
        assert expected == reinforce_paths(db, paths, signal, now)
        assert tuple(sorted(plane.values(), key=lambda r: r.path)) == access_rows(db)


@pytest.mark.parametrize(("elapsed", "bumps"), [(899, False), (900, True), (901, True)])
def test_the_cooldown_boundary_is_inclusive(elapsed: int, bumps: bool) -> None:
    """Exactly 900 s after the last access a read counts again; one second less cools down."""
    db = open_index()
    reinforce_paths(db, ["a.html"], Signal.NEUTRAL, _stamp(0))
    result = reinforce_paths(db, ["a.html"], Signal.NEUTRAL, _stamp(elapsed))
    expected = (("a.html",), ()) if bumps else ((), ("a.html",))
    assert expected == (result.bumped, result.cooled_down)


def test_the_sql_cooldown_is_the_domain_constant() -> None:
    """The guard's literal is REINFORCE_COOLDOWN_S in milliseconds; one constant, two sides."""
    literal = str(REINFORCE_COOLDOWN_S * 1000)
    assert [literal] == re.findall(r">= (\d+)\) RETURNING", reinforce_sql(1, moves=False))
    assert [literal, literal] == re.findall(r">= (\d+)\) THEN", reinforce_sql(1, moves=True))


def test_a_judgement_inside_the_cooldown_is_kept() -> None:
    """Feedback a minute after a read moves the outcome; the access is not counted twice."""
    db = open_index()
    reinforce_paths(db, ["a.html"], Signal.NEUTRAL, _stamp(0))
    result = reinforce_paths(db, ["a.html"], Signal.NEGATIVE, _stamp(60))
    assert (("a.html",), ()) == (result.bumped, result.cooled_down)
    (row,) = access_rows(db)
    expected = (1, 1, ewma(0.0, Signal.NEGATIVE, first=False))
    assert expected == (row.access_count, row.reinforcement_count, row.outcome_score)


def test_a_large_call_is_split_into_path_batches() -> None:
    """More than one batch of paths is bumped whole, each path once, in call order."""
    db = open_index()
    paths = [f"p{i:04d}.html" for i in range(2 * REINFORCE_PATH_BATCH + 1)]
    result = reinforce_paths(db, [*paths, paths[0]], Signal.NEGATIVE, _stamp(0))
    assert (tuple(paths), ()) == (result.bumped, result.cooled_down)
    assert len(paths) == len(access_rows(db))


def test_without_a_state_plane_nothing_is_bumped() -> None:
    """An index opened without state.db answers an empty split instead of failing."""
    db = open_index(state=False)
    expected = ReinforceResult(bumped=(), cooled_down=())
    assert expected == reinforce_paths(db, ["a.html"], Signal.POSITIVE, _stamp(0))


def test_an_unreadable_instant_is_refused() -> None:
    """The clock never hands over an unreadable stamp; one that does is a bug, not a no-op."""
    with pytest.raises(InvalidInput):
        reinforce_paths(open_index(), ["a.html"], Signal.NEUTRAL, "yesterday")
