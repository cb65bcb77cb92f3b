"""The state plane's arithmetic: cooldown, EWMA, reinforce step, salience, merge."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.domain.errors import InvalidInput
from memhtml.domain.reinforce import (
    OUTCOME_EWMA_ALPHA,
    REINFORCE_COOLDOWN_S,
    SALIENCE_EXCLUDED_PREFIX,
    SALIENCE_EXCLUDED_TYPE,
    AccessRow,
    Signal,
    ewma,
    is_cooling_down,
    merge_access,
    reinforce_step,
    salience_applies,
    salience_hours,
    salience_score,
)
from tests.strategies import (
    access_rows,
    epoch_seconds,
    outcome_scores,
)

T0 = "2026-09-14T07:00:00Z"


def _stamp(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _after(stamp: str, seconds: int) -> str:
    start = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return (start + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_seed_constants() -> None:
    """The cooldown, EWMA weight and salience exclusions are the original tool's values."""
    assert (900, 0.3) == (REINFORCE_COOLDOWN_S, OUTCOME_EWMA_ALPHA)
    assert ("task", "resources/people/") == (SALIENCE_EXCLUDED_TYPE, SALIENCE_EXCLUDED_PREFIX)


# --- cooldown -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elapsed", "cooling"), [(0, True), (899, True), (900, False), (901, False), (-60, True)]
)
def test_cooldown_boundary_is_inclusive(elapsed: int, cooling: bool) -> None:
    """An access exactly 900 s old may be bumped again; 899 s is still cooling down."""
    assert cooling == is_cooling_down(T0, _after(T0, elapsed))


def test_no_or_unreadable_last_access_never_cools_down() -> None:
    """A path never accessed, or with a stamp SQL cannot read, is always bumpable."""
    assert (False, False) == (is_cooling_down(None, T0), is_cooling_down("garbage", T0))


def test_an_unreadable_now_is_an_error() -> None:
    """`now` comes from the clock; an unreadable one is a bug, reported as InvalidInput."""
    with pytest.raises(InvalidInput, match="readable instant"):
        is_cooling_down(T0, "yesterday")


@given(epoch_seconds, st.integers(min_value=0, max_value=2 * REINFORCE_COOLDOWN_S))
@example(0, REINFORCE_COOLDOWN_S)
@example(0, REINFORCE_COOLDOWN_S - 1)
def test_cooling_down_exactly_under_the_cooldown(start: int, elapsed: int) -> None:
    """For any stamp and gap, the guard refuses exactly when the gap is under 900 s."""
    assert (elapsed < REINFORCE_COOLDOWN_S) == is_cooling_down(
        _stamp(start), _stamp(start + elapsed)
    )


# --- EWMA ---------------------------------------------------------------------------------


def test_ewma_examples() -> None:
    """First signal sets the value; later ones move 30 % of the way; neutral moves nothing."""
    assert 1.0 == ewma(0.0, Signal.POSITIVE, first=True)
    assert 0.3 == pytest.approx(ewma(0.0, Signal.POSITIVE, first=False))
    assert -0.09 == pytest.approx(ewma(0.3, Signal.NEGATIVE, first=False))
    assert 0.42 == ewma(0.42, Signal.NEUTRAL, first=False)


@given(outcome_scores, st.sampled_from([Signal.POSITIVE, Signal.NEGATIVE]))
@example(1.0, Signal.POSITIVE)
@example(-1.0, Signal.NEGATIVE)
@example(0.9999999999999999, Signal.POSITIVE)
def test_ewma_stays_in_range_and_between_old_and_new(old: float, signal: Signal) -> None:
    """The moved score lies within [-1, 1] and between the old score and the signal's value."""
    value = 1.0 if signal is Signal.POSITIVE else -1.0
    moved = ewma(old, signal, first=False)
    assert -1.0 <= moved <= 1.0
    assert min(old, value) <= moved <= max(old, value)


@given(outcome_scores, st.booleans())
def test_neutral_never_moves_the_score(old: float, first: bool) -> None:
    """A neutral signal returns the old score unchanged."""
    assert old == ewma(old, Signal.NEUTRAL, first=first)


# --- reinforce step -----------------------------------------------------------------------


def test_a_first_positive_bump_creates_the_row() -> None:
    """A new path's row counts one access and one reinforcement and takes the signal's value."""
    expected = AccessRow(
        path="a.html",
        access_count=1,
        reinforcement_count=1,
        outcome_score=1.0,
        last_accessed_at=T0,
        last_reinforced_at=T0,
        updated_at=T0,
    )
    assert expected == reinforce_step("a.html", None, Signal.POSITIVE, T0)


def test_a_first_neutral_bump_records_access_only() -> None:
    """A plain read is evidence of relevance, not correctness: no reinforcement, outcome 0."""
    expected = AccessRow(path="a.html", access_count=1, last_accessed_at=T0, updated_at=T0)
    assert expected == reinforce_step("a.html", None, Signal.NEUTRAL, T0)


def test_a_later_negative_bump_moves_the_average() -> None:
    """Past the cooldown a negative signal counts, stamps and moves the EWMA."""
    row = reinforce_step("a.html", None, Signal.POSITIVE, T0)
    assert row is not None
    later = _after(T0, 900)
    expected = attrs.evolve(
        row,
        access_count=2,
        reinforcement_count=2,
        outcome_score=ewma(1.0, Signal.NEGATIVE, first=False),
        last_accessed_at=later,
        last_reinforced_at=later,
        updated_at=later,
    )
    assert expected == reinforce_step("a.html", row, Signal.NEGATIVE, later)


@given(access_rows, st.integers(min_value=0, max_value=899))
def test_a_neutral_bump_inside_the_cooldown_changes_nothing(row: AccessRow, elapsed: int) -> None:
    """Within 900 s of the last access a plain read is not counted again."""
    accessed = attrs.evolve(row, last_accessed_at=T0)
    assert None is reinforce_step(row.path, accessed, Signal.NEUTRAL, _after(T0, elapsed))


@given(
    access_rows,
    st.sampled_from([Signal.POSITIVE, Signal.NEGATIVE]),
    st.integers(min_value=0, max_value=899),
)
def test_a_judgement_inside_the_cooldown_moves_the_outcome_but_not_the_access(
    row: AccessRow, signal: Signal, elapsed: int
) -> None:
    """Feedback right after a read is kept: outcome and reinforcement move, access stays."""
    accessed = attrs.evolve(row, last_accessed_at=T0)
    now = _after(T0, elapsed)
    after = reinforce_step(row.path, accessed, signal, now)
    assert after is not None
    assert (accessed.access_count, T0) == (after.access_count, after.last_accessed_at)
    assert (accessed.reinforcement_count + 1, now, now) == (
        after.reinforcement_count,
        after.last_reinforced_at,
        after.updated_at,
    )
    assert ewma(accessed.outcome_score, signal, first=False) == after.outcome_score


@given(access_rows, st.sampled_from(Signal))
def test_a_bump_counts_once_and_moves_outcome_only_when_not_neutral(
    row: AccessRow, signal: Signal
) -> None:
    """Past the cooldown: access +1 always; reinforcement +1 and a new outcome iff non-neutral."""
    now = "2030-01-01T00:00:00Z"
    bumped = reinforce_step(row.path, row, signal, now)
    assert bumped is not None
    moves = signal is not Signal.NEUTRAL
    assert (row.access_count + 1, now, now) == (
        bumped.access_count,
        bumped.last_accessed_at,
        bumped.updated_at,
    )
    assert row.reinforcement_count + int(moves) == bumped.reinforcement_count
    assert (now if moves else row.last_reinforced_at) == bumped.last_reinforced_at
    assert ewma(row.outcome_score, signal, first=False) == bumped.outcome_score


# --- salience -----------------------------------------------------------------------------


def test_salience_terms() -> None:
    """exp(-0.01·h) + ln(1 + count) + max(outcome, 0), with the negative outcome ignored."""
    assert 1.0 == salience_score(0.0, 0, -0.7)
    assert math.exp(-0.24) + math.log(4) + 0.5 == salience_score(24.0, 3, 0.5)
    assert 0.0 == salience_score(math.inf, 0, 0.0)


def test_a_far_future_stamp_does_not_crash_salience() -> None:
    """A stamp far ahead of now gives +inf decay, as SQLite's exp() would, not an error."""
    assert math.inf == salience_score(-1e9, 0, 0.0)


def test_salience_hours_prefers_last_access_then_update() -> None:
    """Hours run to the last access when present, else to the last update."""
    assert 24.0 == salience_hours(_after(T0, 86_400), T0, "2000-01-01")
    assert 1.5 == salience_hours(_after(T0, 5_400), None, T0)


def test_an_unreadable_stamp_is_infinitely_old() -> None:
    """A stamp julianday() cannot read decays to 0, never an error, even with a good fallback."""
    assert math.inf == salience_hours(T0, "not a date", T0)
    assert math.inf == salience_hours(T0, None, "")


@pytest.mark.parametrize(
    ("path", "memory_type", "applies"),
    [
        ("resources/billing/x.html", "semantic", True),
        ("projects/p/tasks/x.html", "task", False),
        ("resources/people/sasha.html", "semantic", False),
        ("resources/peoples/x.html", "semantic", True),
        ("areas/people/x.html", "semantic", True),
        ("projects/p/resources/people/x.html", "semantic", True),  # a prefix, not a substring
    ],
)
def test_salience_skips_tasks_and_person_records(
    path: str, memory_type: str, applies: bool
) -> None:
    """Only tasks and files under resources/people/ are left out of the salience arm."""
    assert applies == salience_applies(path, memory_type)


@given(st.floats(0, 1e4), st.integers(0, 10**6), outcome_scores, st.integers(1, 100))
def test_salience_rewards_use_and_penalises_age(
    hours: float, count: int, outcome: float, more: int
) -> None:
    """More accesses never lower salience; more hours never raise it; negatives add nothing."""
    base = salience_score(hours, count, outcome)
    assert base <= salience_score(hours, count + more, outcome)
    assert base >= salience_score(hours + more, count, outcome)
    assert salience_score(hours, count, min(outcome, 0.0)) == salience_score(hours, count, 0.0)


# --- import merge -------------------------------------------------------------------------


def test_merge_takes_maxima_and_the_later_reinforced_outcome() -> None:
    """Counts and stamps take the larger side; the outcome follows the later reinforcement."""
    here = AccessRow(
        path="a.html",
        access_count=5,
        reinforcement_count=1,
        outcome_score=0.9,
        last_accessed_at="2026-09-01T00:00:00Z",
        last_reinforced_at="2026-03-01T00:00:00Z",
        updated_at="2026-09-01T00:00:00Z",
    )
    there = AccessRow(
        path="a.html",
        access_count=2,
        reinforcement_count=3,
        outcome_score=-0.4,
        last_accessed_at="2026-04-01T00:00:00Z",
        last_reinforced_at="2026-04-01T00:00:00Z",
        updated_at="2026-04-01T00:00:00Z",
    )
    expected = attrs.evolve(
        here, reinforcement_count=3, outcome_score=-0.4, last_reinforced_at="2026-04-01T00:00:00Z"
    )
    assert expected == merge_access(here, there)


def test_merge_onto_nothing_is_the_import() -> None:
    """A path with no row yet takes the imported row as it is."""
    row = AccessRow(path="a.html", updated_at=T0)
    assert row == merge_access(None, row)


def test_merge_refuses_two_paths() -> None:
    """Merging rows of different paths is a caller bug."""
    with pytest.raises(InvalidInput, match="different paths"):
        merge_access(AccessRow(path="a", updated_at=T0), AccessRow(path="b", updated_at=T0))


@given(access_rows, access_rows)
@example(
    AccessRow(path="a", outcome_score=0.5, last_reinforced_at=T0, updated_at=T0),
    AccessRow(path="a", outcome_score=-0.5, last_reinforced_at=T0, updated_at=T0),
)
def test_merge_outcome_comes_from_a_side_never_a_max(
    existing: AccessRow, imported: AccessRow
) -> None:
    """The merged outcome is one side's, the later-reinforced one, imported on a tie."""
    imported = attrs.evolve(imported, path=existing.path)
    merged = merge_access(existing, imported)
    existing_later = existing.last_reinforced_at is not None and (
        imported.last_reinforced_at is None
        or existing.last_reinforced_at > imported.last_reinforced_at
    )
    assert (existing if existing_later else imported).outcome_score == merged.outcome_score
    assert max(existing.access_count, imported.access_count) == merged.access_count
    assert max(existing.updated_at, imported.updated_at) == merged.updated_at


@given(access_rows)
@example(AccessRow(path="a", outcome_score=-1.0, last_reinforced_at=None, updated_at=T0))
def test_a_round_trip_keeps_a_negative_outcome(row: AccessRow) -> None:
    """Importing a plane's own export over it changes nothing, negative outcomes included."""
    assert row == merge_access(row, row)


@given(access_rows, st.floats(min_value=-1.0, max_value=-0.0001))
def test_import_restores_a_negative_outcome_over_a_fresh_row(
    row: AccessRow, negative: float
) -> None:
    """A row rebuilt by plain reads (outcome 0, never reinforced) yields to an imported negative."""
    fresh = AccessRow(path=row.path, access_count=1, last_accessed_at=T0, updated_at=T0)
    imported = attrs.evolve(row, outcome_score=negative, last_reinforced_at=T0)
    assert negative == merge_access(fresh, imported).outcome_score
