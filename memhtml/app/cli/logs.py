"""Diagnostics go to stderr, at the level ``MEMHTML_LOG_LEVEL`` names; stdout is the envelope's."""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping
from typing import Final

from memhtml.app.cli.environment import ENV_LOG_LEVEL
from memhtml.domain.errors import InvalidInput

LOGGER_NAME: Final = "memhtml"
DEFAULT_LEVEL: Final = "info"
LEVELS: Final[Mapping[str, int]] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
FORMAT: Final = "memhtml: %(levelname)s: %(message)s"


class _CurrentStderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at emit time.

    A handler bound to the stream at setup would keep writing to a replaced stream (a test
    runner swaps ``sys.stderr`` per invocation) and lose the messages.
    """

    def emit(self, record: logging.LogRecord) -> None:
        # Plain assignment, not ``setStream``: that flushes the previous stream first, and a
        # replaced stream may be closed by now, which turned a log line into a ValueError.
        self.stream = sys.stderr
        super().emit(record)


def log_level(environ: Mapping[str, str]) -> int:
    """The level ``MEMHTML_LOG_LEVEL`` names; unset or empty means ``info``.

    Raises:
        InvalidInput: The value names no level.
    """
    raw = environ.get(ENV_LOG_LEVEL, "").strip()
    level = LEVELS.get(raw.lower() or DEFAULT_LEVEL)
    if level is None:
        raise InvalidInput(f"{ENV_LOG_LEVEL}={raw!r}: use {', '.join(LEVELS)}")
    return level


def configure_logging(environ: Mapping[str, str]) -> logging.Logger:
    """Send the ``memhtml`` logger's records to stderr at the configured level.

    Idempotent: calling it again replaces the handler rather than adding a second one. On a bad
    level the logger is still configured (at ``info``) before the error is raised, so the
    failure itself can be logged.

    Raises:
        InvalidInput: ``MEMHTML_LOG_LEVEL`` names no level.
    """
    logger = logging.getLogger(LOGGER_NAME)
    for handler in [h for h in logger.handlers if isinstance(h, _CurrentStderrHandler)]:
        logger.removeHandler(handler)
    handler = _CurrentStderrHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    # Records stop here: a root handler set up by an embedding program must not echo them,
    # least of all onto stdout.
    logger.propagate = False
    logger.setLevel(LEVELS[DEFAULT_LEVEL])
    logger.setLevel(log_level(environ))
    return logger
