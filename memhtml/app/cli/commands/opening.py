"""How a command body opens the store it works on: root, settings, wired services.

Kept in one place so every repository-opening command checks the root the same way and closes
SQLite however the body ends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from memhtml.app.cli.config_root import repo_root

if TYPE_CHECKING:
    from memhtml.app.bootstrap import Services


@contextmanager
def open_services(
    *, embedder: bool = True, heal: bool = True, thorough: bool = False
) -> Iterator[Services]:
    """The wired services of the invocation's initialized repository, closed on exit.

    Args:
        embedder: Build the configured embedder (``MEMHTML_EMBED``); False for commands that
            never embed, so they cannot fail on a missing model.
        heal: Repair what a killed command or a damaged file left (see ``Services``).
        thorough: Check the databases' pages and sweep the repository (see ``Services``).

    Raises:
        RepoRequired: The root may not be used or is not an initialized store.
        InvalidInput: An environment variable holds a bad value.
    """
    from memhtml.app.bootstrap import Services, read_settings

    settings = read_settings(repo_root(), os.environ)
    services = Services(settings, embedder=embedder, heal=heal, thorough=thorough)
    try:
        yield services
    finally:
        services.close()
