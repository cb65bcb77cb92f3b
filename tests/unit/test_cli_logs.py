"""MEMHTML_LOG_LEVEL and the stderr handler."""

from __future__ import annotations

import io
import logging
import sys
from pathlib import Path

import pytest

from memhtml.app.cli import logs
from memhtml.app.cli.logs import LOGGER_NAME, configure_logging, log_level
from memhtml.domain.errors import InvalidInput


@pytest.mark.parametrize(
    ("raw", "level"),
    [("", logging.INFO), ("debug", logging.DEBUG), (" WARNING ", logging.WARNING)],
)
def test_level_names_read_case_insensitively(raw: str, level: int) -> None:
    """Unset/empty is info; names ignore case and surrounding space."""
    assert level == log_level({"MEMHTML_LOG_LEVEL": raw})


def test_an_unknown_level_is_refused_after_configuring_info() -> None:
    """A typo is refused, and the logger is still usable at info for reporting it."""
    with pytest.raises(InvalidInput, match="MEMHTML_LOG_LEVEL"):
        configure_logging({"MEMHTML_LOG_LEVEL": "loud"})
    assert logging.INFO == logging.getLogger(LOGGER_NAME).level


def test_configuring_twice_keeps_one_handler_and_no_propagation() -> None:
    """Re-running the entry point in one process must not double every log line."""
    configure_logging({})
    logger = configure_logging({"MEMHTML_LOG_LEVEL": "error"})
    # pytest attaches capture handlers of its own; count only the ones memhtml installs.
    ours = [h for h in logger.handlers if type(h).__module__ == logs.__name__]
    assert (1, False, logging.ERROR) == (len(ours), logger.propagate, logger.level)


def test_a_closed_earlier_stderr_does_not_break_logging(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A record logged after the stderr the handler last wrote to was closed still lands on
    the current stderr (a test runner closes each test's capture file; a closed file, unlike a
    closed StringIO, raises on flush)."""
    old = (tmp_path / "old").open("w", encoding="utf-8")
    monkeypatch.setattr(sys, "stderr", old)
    logger = configure_logging({})
    logger.warning("first")
    old.close()
    current = io.StringIO()
    monkeypatch.setattr(sys, "stderr", current)
    logger.warning("second")
    assert "memhtml: WARNING: second\n" == current.getvalue()
