"""Suite-wide switches: no test waits on a real backoff schedule."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memhtml.adapters.sqlite import retry


@pytest.fixture(autouse=True, scope="session")
def _no_backoff_sleeps() -> Iterator[None]:
    """Busy retries run without sleeping; tests that pin the schedule set it themselves."""
    retry.set_testing(True)
    yield
    retry.set_testing(False)
