"""The in-memory storage bundle: every storage port over one ``MemoryTables``.

Nothing survives the process: this backend exists to keep the ports honest (it passes the
same contract suites as SQLite) and to run the application layer fast in tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from memhtml.adapters.memory.assist_lookup import MemoryAssistLookup
from memhtml.adapters.memory.history_store import MemoryHistoryStore
from memhtml.adapters.memory.index_store import MemoryIndexStore, MemoryVectorStore
from memhtml.adapters.memory.rank_store import MemoryRankStore
from memhtml.adapters.memory.reads import (
    MemoryArchiveLookup,
    MemoryCandidateStore,
    MemoryCensus,
    MemoryHealth,
    MemoryLinkGraph,
    MemoryLister,
)
from memhtml.adapters.memory.state import MemoryAccessStore, MemoryRecorder, MemoryStatePlane
from memhtml.adapters.memory.tables import MemoryTables
from memhtml.adapters.memory.trace_store import MemoryTraceStore
from memhtml.domain.fulltext import TOKENIZERS
from memhtml.ports.errors import StorageFailure
from memhtml.ports.storage import OpenedStorage, Storage, StorageLocation


def memory_storage(tables: MemoryTables) -> Storage:
    """Every storage port over ``tables``."""
    health = MemoryHealth(tables)
    return Storage(
        ranks=MemoryRankStore(tables),
        candidates=MemoryCandidateStore(tables),
        archive=MemoryArchiveLookup(tables),
        access=MemoryAccessStore(tables),
        index=MemoryIndexStore(tables),
        vectors=MemoryVectorStore(tables),
        assists=MemoryAssistLookup(tables),
        recorder=MemoryRecorder(tables),
        lister=MemoryLister(tables),
        census=MemoryCensus(tables),
        health=health,
        pruner=health,
        state=MemoryStatePlane(tables),
        rebuild_claim=SoleClaim(),
        traces=MemoryTraceStore(tables),
        has_state=True,
        close=lambda: None,
        links=MemoryLinkGraph(tables),
        history=MemoryHistoryStore(tables),
    )


def open_memory_storage(
    location: StorageLocation,
    *,
    heal: bool = True,
    verify: bool = False,
    exclusive: Callable[[], AbstractContextManager[None]] = nullcontext,
) -> OpenedStorage:
    """A fresh, empty in-memory store (the paths are ignored; nothing can be damaged).

    Raises:
        StorageFailure: The tokenizer is not one this backend implements.
    """
    if location.fts_tokenizer not in TOKENIZERS:
        raise StorageFailure("configure full-text tokenizer")
    return OpenedStorage(storage=memory_storage(MemoryTables(tokenizer=location.fts_tokenizer)))


class SoleClaim:
    """The rebuild claim of a store no other process can open: always free, nesting counted."""

    def __init__(self) -> None:
        """Nothing held."""
        self._held = 0

    @contextmanager
    def held(self, *, wait: bool) -> Iterator[bool]:
        """Always granted (see ``RebuildClaim.held``)."""
        self._held += 1
        try:
            yield True
        finally:
            self._held -= 1

    def busy(self) -> bool:
        """Never: no other process shares the store."""
        return False
