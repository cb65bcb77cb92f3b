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
    from memhtml.app.cli.held_stores import HeldStores
    from memhtml.app.store import Store
    from memhtml.ports.embedder import EmbeddingModel


_warm_embedder: EmbeddingModel | None = None
_held_stores: HeldStores | None = None


def use_loaded_embedder(embedder: EmbeddingModel | None) -> None:
    """Make ``open_here`` hand ``embedder`` to every store it opens in this process.

    Only the warm helper calls it: the commands it runs for other processes use the model it
    keeps loaded (the helper serves one configuration, the one every forwarded command has).
    """
    global _warm_embedder
    _warm_embedder = embedder


def hold_stores(held: HeldStores | None) -> None:
    """Make ``open_here(hold=True)`` lease its store from ``held`` (``None``: open and close
    every time). Only the warm helper calls it (``held_stores.py``)."""
    global _held_stores
    _held_stores = held


@contextmanager
def open_here(
    *, embedder: bool = True, heal: bool = True, thorough: bool = False, hold: bool = False
) -> Iterator[Store]:
    """The invocation's initialized store, closed on exit; index passes it runs on its own
    (a rebuild after a lost index) report their phases on stderr.

    Args:
        embedder: Build the configured embedder (``MEMHTML_EMBED``), behind the warm helper
            when that is on (``app/bootstrap/warm_helper.py``); False for commands that never
            embed, so they cannot fail on a missing model.
        heal: Repair what a killed command or a damaged file left (see ``Services``).
        thorough: Check the databases' pages and sweep the repository (see ``Services``).
        hold: A read whose store the warm helper may keep open for the next command
            (``held_stores.py``); no effect in a process of its own.

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
    if hold and heal and not thorough and _held_stores is not None:
        from memhtml.app.bootstrap import read_settings
        from memhtml.app.cli.progress import InvocationProgress

        def held_open() -> Store:
            return open_store(
                root, environ=os.environ, embedder=chosen, progress=InvocationProgress()
            )

        with _held_stores.lease(read_settings(root, os.environ), held_open) as store:
            yield store
        return
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
