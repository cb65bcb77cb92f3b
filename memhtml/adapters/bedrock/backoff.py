"""Retrying a throttled Bedrock call with jittered exponential backoff, and the switch tests use.

Bedrock answers bursts with ``ThrottlingException`` long before anything is broken; backfilling
a store sends exactly such bursts, so throttling is waited out here rather than reported as a
missing model.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Final, TypeVar

from memhtml.ports.errors import ModelUnavailable

T = TypeVar("T")

MAX_ATTEMPTS: Final = 6
BACKOFF_BASE_S: Final = 0.5
BACKOFF_CAP_S: Final = 20.0
# Error codes that mean "not now" rather than "not ever". botocore's own retries are switched
# off on our client, so this list is the only retry policy a call sees.
RETRYABLE_CODES: Final = frozenset(
    {
        "ThrottlingException",
        "Throttling",
        "TooManyRequestsException",
        "ServiceUnavailableException",
        "ServiceUnavailable",
        "ModelNotReadyException",
    }
)

_testing = False


def set_testing(enabled: bool) -> None:
    """Turn sleeping between retries off (``True``) or back on.

    Tests drive throttled responses through the real retry loop; without this switch each
    would wait for seconds of real time.
    """
    global _testing
    _testing = enabled


def is_testing() -> bool:
    """Whether :func:`set_testing` has turned sleeping off."""
    return _testing


def backoff_delay(attempt: int, draw: float) -> float:
    """Seconds to wait after failed attempt ``attempt`` (0-based): full jitter.

    A uniform draw over ``[0, min(cap, base · 2^attempt)]`` rather than the ceiling itself, so
    many writers throttled together do not retry in lockstep and collide again.

    Args:
        attempt: How many attempts have failed before this one, minus one.
        draw: A number in ``[0, 1]``; ``random.random()`` in production.
    """
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0 ** min(attempt, 64))
    return max(0.0, min(1.0, draw)) * ceiling


def error_code(error: BaseException) -> str:
    """The service's error code carried by a botocore ``ClientError``, else the class name."""
    response = getattr(error, "response", None)
    if isinstance(response, dict):
        code = response.get("Error", {}).get("Code")
        if isinstance(code, str) and code:
            return code
    return type(error).__name__


def call_with_backoff(
    call: Callable[[], T], *, operation: str, driver_errors: tuple[type[BaseException], ...]
) -> T:
    """Run ``call``, retrying throttling errors; every other driver error fails at once.

    Raises:
        ModelUnavailable: A non-retryable driver error, or throttling that outlasted
            ``MAX_ATTEMPTS``; the message names the operation and the error code only.
    """
    for attempt in range(MAX_ATTEMPTS):
        try:
            return call()
        except driver_errors as e:
            code = error_code(e)
            if code not in RETRYABLE_CODES:
                raise ModelUnavailable(f"{operation}: {code}") from e
            if attempt == MAX_ATTEMPTS - 1:
                raise ModelUnavailable(f"{operation}: {code} after {MAX_ATTEMPTS} attempts") from e
            if not _testing:
                time.sleep(backoff_delay(attempt, random.random()))
    raise AssertionError("unreachable: the last attempt returns or raises")
