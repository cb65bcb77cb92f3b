"""The SQLITE_BUSY backoff schedule and retry loop (docs/index-schema.md §1), with fake clocks: no
sleeping."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlean
from hypothesis import example, given
from hypothesis import strategies as st

from memhtml.adapters.sqlite import retry
from memhtml.adapters.sqlite.retry import (
    BACKOFF_START_S,
    JITTER_MAX,
    JITTER_MIN,
    RETRY_BUDGET_S,
    backoff_delay,
    is_busy,
    next_delay,
    with_busy_retry,
)

jitters = st.floats(min_value=JITTER_MIN, max_value=JITTER_MAX)
retry_indexes = st.integers(min_value=0, max_value=2_000)
elapsed = st.floats(min_value=0.0, max_value=2 * RETRY_BUDGET_S)


def busy_error() -> sqlean.OperationalError:
    """A driver error as SQLite raises it when a lock stays held."""
    error = sqlean.OperationalError("database is locked")
    error.sqlite_errorcode = 5
    return error


@pytest.fixture
def production_mode() -> Iterator[None]:
    """Runs a test with the testing switch off, restoring whatever was set before."""
    before = (retry._Testing.enabled, retry._Testing.attempts)
    retry.set_testing(False)
    yield
    retry.set_testing(before[0], attempts=before[1])


@pytest.fixture
def testing_mode() -> Iterator[None]:
    """Runs a test with the testing switch on (3 attempts), restoring the previous setting."""
    before = (retry._Testing.enabled, retry._Testing.attempts)
    retry.set_testing(True, attempts=3)
    yield
    retry.set_testing(before[0], attempts=before[1])


def test_first_delay_is_15_ms_and_doubles() -> None:
    """Without jitter the schedule is 15, 30, 60, 120 ms."""
    assert [0.015, 0.03, 0.06, 0.12] == [backoff_delay(i, 1.0) for i in range(4)]


@given(index=st.integers(min_value=0, max_value=10), jitter=jitters)
def test_delay_is_the_nominal_delay_scaled_by_jitter(index: int, jitter: float) -> None:
    """Every delay lies within 0.8–1.2 × 15 ms × 2^index."""
    nominal = BACKOFF_START_S * 2**index
    assert JITTER_MIN * nominal <= backoff_delay(index, jitter) <= JITTER_MAX * nominal


@given(index=st.integers(min_value=0, max_value=9), jitter=jitters)
def test_delay_doubles_per_retry(index: int, jitter: float) -> None:
    """With the same jitter, each retry waits twice as long as the one before."""
    assert backoff_delay(index + 1, jitter) == pytest.approx(2 * backoff_delay(index, jitter))


@given(index=retry_indexes, spent=elapsed, jitter=jitters)
@example(index=2_000, spent=0.0, jitter=JITTER_MAX)
def test_next_delay_never_overruns_the_budget(index: int, spent: float, jitter: float) -> None:
    """A delay is positive and ends no later than 20 s after the first attempt."""
    delay = next_delay(index, spent, jitter)
    if delay is not None:
        assert (True, True) == (delay > 0, spent + delay <= RETRY_BUDGET_S)


@given(index=retry_indexes, spent=elapsed, jitter=jitters)
@example(index=0, spent=RETRY_BUDGET_S, jitter=1.0)
def test_next_delay_stops_exactly_when_the_budget_is_spent(
    index: int, spent: float, jitter: float
) -> None:
    """next_delay answers None iff 20 s have already passed."""
    assert (spent >= RETRY_BUDGET_S) == (next_delay(index, spent, jitter) is None)


@pytest.mark.parametrize(("index", "jitter"), [(-1, 1.0), (0, 0.79), (0, 1.21)])
def test_backoff_refuses_values_outside_its_domain(index: int, jitter: float) -> None:
    """A negative retry index or a jitter outside [0.8, 1.2] is a caller bug."""
    with pytest.raises(ValueError, match="must"):
        backoff_delay(index, jitter)


@pytest.mark.parametrize(
    ("code", "expected"),
    [(5, True), (517, True), (261, True), (6, False), (19, False), (None, False)],
    ids=["busy", "busy-snapshot", "busy-recovery", "locked", "constraint", "no-code"],
)
def test_is_busy_reads_the_primary_error_code(code: int | None, expected: bool) -> None:
    """SQLITE_BUSY and its extended codes count as busy; nothing else does."""
    error = sqlean.OperationalError("x")
    error.sqlite_errorcode = code
    assert expected == is_busy(error)


def test_set_testing_refuses_zero_attempts() -> None:
    """The testing switch needs at least one attempt."""
    with pytest.raises(ValueError, match="at least 1"):
        retry.set_testing(True, attempts=0)


@pytest.mark.usefixtures("production_mode")
def test_retries_on_a_fake_clock_until_twenty_seconds() -> None:
    """Always busy: the waits follow the schedule, add up to exactly 20 s, then the error rises."""
    now = [0.0]
    waits: list[float] = []
    calls = [0]

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    def attempt() -> None:
        calls[0] += 1
        raise busy_error()

    with pytest.raises(sqlean.OperationalError):
        with_busy_retry(attempt, sleep=sleep, clock=lambda: now[0], jitter=lambda: 1.0)
    full = [BACKOFF_START_S * 2**i for i in range(10)]  # 15 ms … 7.68 s: 15.345 s in total
    assert full == pytest.approx(waits[:10])
    assert (11, len(waits) + 1) == (len(waits), calls[0])
    assert RETRY_BUDGET_S == pytest.approx(sum(waits))


@pytest.mark.usefixtures("production_mode")
def test_success_after_busy_returns_the_value() -> None:
    """A transaction that is busy twice and then succeeds returns its value after two waits."""
    outcomes: list[BaseException | str] = [busy_error(), busy_error(), "done"]
    waits: list[float] = []

    def attempt() -> str:
        outcome = outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    result = with_busy_retry(attempt, sleep=waits.append, clock=lambda: 0.0, jitter=lambda: 1.0)
    assert ("done", [0.015, 0.03]) == (result, waits)


@pytest.mark.parametrize("testing", [False, True])
def test_other_errors_are_never_retried(testing: bool) -> None:
    """A constraint failure propagates from the first attempt, with no wait."""
    before = (retry._Testing.enabled, retry._Testing.attempts)
    retry.set_testing(testing)
    calls: list[int] = []

    def attempt() -> None:
        calls.append(1)
        raise sqlean.IntegrityError("UNIQUE constraint failed")

    try:
        with pytest.raises(sqlean.IntegrityError):
            with_busy_retry(attempt, sleep=lambda s: calls.append(100))
    finally:
        retry.set_testing(before[0], attempts=before[1])
    assert [1] == calls


@pytest.mark.usefixtures("testing_mode")
def test_testing_switch_retries_without_sleeping() -> None:
    """With the switch on, a busy transaction is tried 3 times and never sleeps."""
    calls: list[str] = []

    def attempt() -> None:
        calls.append("try")
        raise busy_error()

    with pytest.raises(sqlean.OperationalError):
        with_busy_retry(attempt, sleep=lambda s: calls.append("slept"))
    assert (["try"] * 3, True) == (calls, retry.is_testing())
