"""The server's one open store, owned by one thread: calls run there, one at a time.

The store holds one SQLite connection and a lazily loaded embedder; both are opened once per
server (a warm process) and used only from this thread, so the event loop stays free to read
the next message and requests never interleave inside a use case. Freshness is still checked
on every call: each use case brings the index level with git first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from memhtml.app.store import Store

T = TypeVar("T")
logger = logging.getLogger("memhtml")

WARM_QUERY = "warm up"


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
