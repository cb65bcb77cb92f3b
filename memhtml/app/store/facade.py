"""The Python facade: ``memhtml.open(root)`` returns a :class:`Store` a program can embed.

Each method hands one use case the ports it uses, taken from the store's wired
:class:`~memhtml.app.bootstrap.Services`; the command line, the MCP server, the evaluation
harnesses and the tests all call through here, so they run the same code. The methods are
grouped by plane in this package's modules (``reads``, ``writes``, ``upkeep``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memhtml.app.store.reads import StoreReads
from memhtml.app.store.upkeep import StoreUpkeep
from memhtml.app.store.writes import StoreWrites

if TYPE_CHECKING:
    from memhtml.app.use_cases.init import InitResult


class Store(StoreReads, StoreWrites, StoreUpkeep):
    """One open memory store. Close it (or use ``with``) to release its storage.

    Every method raises the domain and port errors its use case documents (``NotFound``,
    ``InvalidInput``, ``InvalidMemory``, ``StorageFailure``, ``GitFailure``…).
    """

    def initialize(self, *, databases_created: bool) -> InitResult:
        """``memhtml init``'s steps: repository, config, scaffold commit (idempotent).

        Args:
            databases_created: Whether opening this store created its databases (the
                storage is already open by the time this runs).
        """
        from memhtml.app.use_cases.init import init_store

        s = self.services
        return init_store(
            root=s.settings.root,
            git=s.git,
            writer=s.writer,
            configure_repo=s.configure_repo,
            create_databases=lambda: databases_created,
        )
