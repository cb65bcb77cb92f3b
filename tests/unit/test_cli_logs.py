"""MEMHTML_LOG_LEVEL and the stderr handler."""

from __future__ import annotations

import logging

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
