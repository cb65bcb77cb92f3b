"""Retrying a whole transaction when SQLite stays busy past its own busy timeout
(docs/index-schema.md §1).

The schedule starts at 15 ms, doubles, is jittered by 0.8–1.2 and stops once 20 s have passed
in total. Only ``SQLITE_BUSY`` is retried: any other error is a fact about the statement and
would fail the same way again.

Tests call ``set_testing(True)`` (as hynek/stamina does) so a retry never sleeps and gives up
after a fixed number of attempts instead of a wall-clock budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final, TypeVar

BACKOFF_START_S: Final = 0.015
BACKOFF_FACTOR: Final = 2.0
JITTER_MIN: Final = 0.8
JITTER_MAX: Final = 1.2
RETRY_BUDGET_S: Final = 20.0
SQLITE_BUSY: Final = 5
DEFAULT_TESTING_ATTEMPTS: Final = 3

# 15 ms doubled 11 times is 30 s, past the whole budget; capping the exponent there keeps a
# long busy spell from overflowing the float without changing any delay that can be slept.
_MAX_DOUBLINGS: Final = 11

T = TypeVar("T")


class _Testing:
    """Module-level switch; a class attribute rather than a global so mypy sees one type."""

    enabled: bool = False
    attempts: int = DEFAULT_TESTING_ATTEMPTS


def set_testing(enabled: bool, *, attempts: int = DEFAULT_TESTING_ATTEMPTS) -> None:
    """Turn the backoff off (``enabled``) or back on.

    Args:
        enabled: True to never sleep and to stop after ``attempts`` tries.
        attempts: Total tries per transaction while testing (at least 1).

    Raises:
        ValueError: When ``attempts`` is below 1.
    """
    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    _Testing.enabled = enabled
    _Testing.attempts = attempts


def is_testing() -> bool:
    """Whether the testing switch is on."""
    return _Testing.enabled


def is_busy(error: BaseException) -> bool:
    """Whether a driver error is ``SQLITE_BUSY`` (extended busy codes included).

    Reads ``sqlite_errorcode`` instead of matching a driver class, so the sqlite3 module and its
    drop-in replacements are told apart the same way.
    """
    code = getattr(error, "sqlite_errorcode", None)
    # Extended codes (SQLITE_BUSY_SNAPSHOT = 517…) carry the primary code in the low byte.
    return isinstance(code, int) and code & 0xFF == SQLITE_BUSY


def backoff_delay(retry_index: int, jitter: float) -> float:
    """The nominal delay before retry ``retry_index`` (0-based), scaled by ``jitter``.

    Raises:
        ValueError: When ``retry_index`` is negative or ``jitter`` is outside [0.8, 1.2].
    """
    if retry_index < 0:
        raise ValueError("retry_index must be >= 0")
    if not JITTER_MIN <= jitter <= JITTER_MAX:
        raise ValueError("jitter must lie in [0.8, 1.2]")
    return BACKOFF_START_S * BACKOFF_FACTOR ** min(retry_index, _MAX_DOUBLINGS) * jitter


def next_delay(retry_index: int, elapsed_s: float, jitter: float) -> float | None:
    """How long to wait before the next try, or None once the 20 s budget is spent.

    The delay is clipped so that sleeping it never carries the total past the budget.

    Args:
        retry_index: Retries already made (0 before the first retry).
        elapsed_s: Seconds since the first attempt started.
        jitter: The random factor in [0.8, 1.2].
    """
    remaining = RETRY_BUDGET_S - elapsed_s
    if remaining <= 0:
        return None
    return min(backoff_delay(retry_index, jitter), remaining)


def _random_jitter() -> float:
    # Jitter only spreads competing writers apart; it needs no cryptographic quality.
    return random.uniform(JITTER_MIN, JITTER_MAX)


def with_busy_retry(
    attempt: Callable[[], T],
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    jitter: Callable[[], float] = _random_jitter,
) -> T:
    """Call ``attempt`` until it returns, re-running it whole after each ``SQLITE_BUSY``.

    ``attempt`` must be a whole transaction that leaves nothing open when it raises, because it
    is simply called again.

    Args:
        attempt: The transaction to run.
        sleep: Waits between tries (injectable so tests never sleep).
        clock: Monotonic seconds, for the budget.
        jitter: Source of the random factor.

    Returns:
        What ``attempt`` returned.

    Raises:
        Exception: The last busy error once the budget (or the testing attempt count) is spent,
            and any other error at once.
    """
    started = clock()
    retry_index = 0
    while True:
        try:
            return attempt()
        except Exception as error:
            if not is_busy(error):
                raise
            if _Testing.enabled:
                if retry_index + 1 >= _Testing.attempts:
                    raise
            else:
                delay = next_delay(retry_index, clock() - started, jitter())
                if delay is None:
                    raise
                sleep(delay)
            retry_index += 1
