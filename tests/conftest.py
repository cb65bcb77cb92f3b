"""Suite-wide switches: no test waits on a real backoff schedule, and no property test fails
on how long an example took.

Hypothesis's default 200 ms deadline turns a loaded machine (a shared 2-core box, a busy CI
runner) into failures of tests that assert nothing about time; speed is measured in bench/.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from memhtml.adapters.sqlite import retry

settings.register_profile("memhtml", deadline=None)
settings.load_profile("memhtml")


@pytest.fixture(autouse=True, scope="session")
def _no_backoff_sleeps() -> Iterator[None]:
    """Busy retries run without sleeping; tests that pin the schedule set it themselves."""
    retry.set_testing(True)
    yield
    retry.set_testing(False)
