"""How a command body opens the store it works on: root, settings, the facade over it.

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
    from memhtml.app.store import Store
    from memhtml.ports.embedder import EmbeddingModel


_warm_embedder: EmbeddingModel | None = None


def use_loaded_embedder(embedder: EmbeddingModel | None) -> None:
    """Make ``open_here`` hand ``embedder`` to every store it opens in this process.

    Only the warm helper calls it: the commands it runs for other processes use the model it
    keeps loaded (the helper serves one configuration, the one every forwarded command has).
    """
    global _warm_embedder
    _warm_embedder = embedder


@contextmanager
def open_here(
    *, embedder: bool = True, heal: bool = True, thorough: bool = False
) -> Iterator[Store]:
    """The invocation's initialized store, closed on exit; index passes it runs on its own
    (a rebuild after a lost index) report their phases on stderr.

    Args:
        embedder: Build the configured embedder (``MEMHTML_EMBED``), behind the warm helper
            when that is on (``app/bootstrap/warm_helper.py``); False for commands that never
            embed, so they cannot fail on a missing model.
        heal: Repair what a killed command or a damaged file left (see ``Services``).
        thorough: Check the databases' pages and sweep the repository (see ``Services``).

    Raises:
        RepoRequired: The root may not be used or is not an initialized store.
        InvalidInput: An environment variable holds a bad value.
    """
    from memhtml.app.cli.progress import command_progress
    from memhtml.app.store import open_store

    root = repo_root()
    chosen: EmbeddingModel | bool | None = False
    if embedder and _warm_embedder is not None:
        chosen = _warm_embedder
    elif embedder:
        from memhtml.app.bootstrap.warm_helper import command_line_embedder

        chosen = command_line_embedder(os.environ)
    store = open_store(
        root,
        environ=os.environ,
        embedder=chosen,
        heal=heal,
        thorough=thorough,
        progress=command_progress(implicit=True),
    )
    try:
        yield store
    finally:
        store.close()
