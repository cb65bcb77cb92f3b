"""Turning whatever the git library or the OS raises into the port's ``GitFailure``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from memhtml.ports.errors import GitFailure

_log = logging.getLogger(__name__)


@contextmanager
def git_operation(operation: str) -> Iterator[None]:
    """Run a block as the named port operation; any failure leaves it as ``GitFailure``.

    Broad on purpose: dulwich signals trouble with its own classes and with bare ``KeyError``,
    ``ValueError`` and ``AssertionError`` alike, and a caller of the port must see one type.
    The original error stays on ``__cause__`` and in the debug log, never in the message,
    because git's text can carry a path, a branch name or a hunk.

    Args:
        operation: The port operation, the only thing the message names.

    Raises:
        GitFailure: For every exception raised in the block; a ``GitFailure`` passes as is.
    """
    try:
        yield
    except GitFailure:
        raise
    except Exception as error:
        # Debug, not warning: the caller decides whether this is a failure (it reaches the
        # user as ERR_GIT) or an expected answer (a missing file read is ERR_PATH_NOT_FOUND),
        # and a warning here printed a stray line beside every expected refusal.
        _log.debug("git operation %s failed (%s)", operation, type(error).__name__, exc_info=True)
        raise GitFailure(operation) from error
