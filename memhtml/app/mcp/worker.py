"""The server's one open store, owned by one thread: calls run there, one at a time.

The store holds one SQLite connection and a lazily loaded embedder; both are opened once per
server (a warm process) and used only from their thread, and requests never interleave inside
a use case. Freshness is still checked on every call: each use case brings the index level
with git first.

Two owners. ``StoreWorker`` (HTTP) keeps the store on a thread of its own, so the event loop
stays free for other clients while a call runs. ``InlineStore`` (stdio) runs each call on the
event loop's thread: one client, whose requests would queue behind the running call anyway,
and two thread hand-offs fewer per call.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from memhtml.app.store import Store

T = TypeVar("T")
logger = logging.getLogger("memhtml")

WARM_QUERY = "warm up"


class StoreRunner(Protocol):
    """Runs a call against the server's one store, after every call submitted before it."""

    async def run(self, work: Callable[[Store], T]) -> T:
        """``work(store)``'s result."""
        ...


class StoreWorker:
    """Opens the store on its thread and runs every call against it there.

    Args:
        opener: Opens the store; runs on the worker thread, before anything else.

    Raises:
        Exception: Whatever ``opener`` raises (``RepoRequired``…), from the constructor, so a
            server that cannot open its store fails before it serves.
    """

    def __init__(self, opener: Callable[[], Store]) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memhtml-store")
        self.calls = 0
        try:
            self._store = self._executor.submit(opener).result()
        except BaseException:
            self._executor.shutdown(wait=True)
            raise

    async def run(self, work: Callable[[Store], T]) -> T:
        """``work(store)`` on the worker thread, after every call submitted before it."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._counted, work)

    def warm(self) -> None:
        """Queue one search, so the first real call finds the embedder loaded and caches hot.

        Runs behind the scenes: the server answers ``initialize`` meanwhile, and a call that
        arrives during the warm-up waits for it. A failure is logged, never raised: the call
        that needs the model will report it.
        """
        self._executor.submit(self._warm)

    def close(self) -> None:
        """Wait for the calls in flight, then close the store."""
        self._executor.submit(self._store.close)
        self._executor.shutdown(wait=True)

    def _counted(self, work: Callable[[Store], T]) -> T:
        self.calls += 1
        return work(self._store)

    def _warm(self) -> None:
        from memhtml.ports.retrieval import SearchRequest

        try:
            self._store.search(SearchRequest(query=WARM_QUERY, limit=1))
        except Exception as error:  # a warm-up must not take the server down
            logger.warning("warm-up search failed (%s); the first call will retry", error)


class InlineStore:
    """Opens the store on the calling thread and runs every call right there, on the loop.

    A call blocks the event loop while it runs: right for one stdio client, whose next request
    would wait for this one anyway, and wrong for HTTP (use ``StoreWorker``).

    Args:
        opener: Opens the store, at once, on the calling thread.

    Raises:
        Exception: Whatever ``opener`` raises, so a server that cannot open its store fails
            before it serves.
    """

    def __init__(self, opener: Callable[[], Store]) -> None:
        self._store = opener()
        self._warming: threading.Thread | None = None
        self.calls = 0

    async def run(self, work: Callable[[Store], T]) -> T:
        """``work(store)``, now, on the calling thread (nothing else runs meanwhile)."""
        self.calls += 1
        return work(self._store)

    def warm(self) -> None:
        """Load the embedder on a thread of its own while the server answers ``initialize``.

        Only the model: it needs no SQLite connection, so it may load beside the loop (the
        store's connection belongs to the loop's thread). A failure is logged, never raised:
        the call that needs the model will report it.
        """
        embedder = self._store.services.query_embedder
        if embedder is None:
            return

        def load() -> None:
            try:
                embedder.embed_query(WARM_QUERY)
            except Exception as error:  # a warm-up must not take the server down
                logger.warning("warm-up embedding failed (%s); the first call will retry", error)

        self._warming = threading.Thread(target=load, name="memhtml-warm-up", daemon=True)
        self._warming.start()

    def close(self) -> None:
        """Wait for the warm-up, then close the store."""
        if self._warming is not None:
            self._warming.join()
        self._store.close()
