"""Embedding a search's query while the index catches up with the tree.

A warm hybrid search spends about as long embedding its query as it does on the freshness
pass that runs before it (docs/decisions.md §20), and neither needs the other: the query's
vector depends on the text only. ``QueryPrefetch`` starts that embedding on a worker thread
when a read begins, so the two overlap (the model's own code runs outside the interpreter
lock, the freshness pass mostly in ``lstat``), and hands the vector to the vector arm when the
planner asks for it.

Only in a warm process: nothing is started ahead until this process has embedded one query on
the calling thread, so a one-shot command loads the model where it always did, and never for a
search that ends without the vector arm (coverage under the floor, another vector space).
A vector started for one text is only ever returned for that same text; anything else is
embedded on the spot, so the answer is the one the plain embedder would give.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Final

from memhtml.ports.embedder import QueryEmbedder, Vector

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

_WORKER_NAME: Final = "memhtml-query-embed"
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _worker() -> ThreadPoolExecutor:
    """One worker thread per process, started on the first prefetch."""
    global _executor
    # Imported here: a read that never prefetches (a cold command) does not load the module.
    from concurrent.futures import ThreadPoolExecutor

    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=_WORKER_NAME)
        return _executor


class QueryPrefetch:
    """A ``QueryEmbedder`` that can start a query's embedding ahead of the search that needs it.

    Safe to share between threads: a search that finds another text started ahead embeds its
    own on the spot.
    """

    def __init__(self, inner: QueryEmbedder) -> None:
        """Wrap ``inner``; nothing is started until :meth:`prefetch` is called in a warm process."""
        self._inner = inner
        self._pending: tuple[str, Future[Vector]] | None = None
        self._warm = False
        self._lock = threading.Lock()

    @property
    def watermark(self) -> str:
        """The wrapped embedder's vector space."""
        return self._inner.watermark

    @property
    def warm(self) -> bool:
        """Whether this process has embedded a query, so a prefetch would be started."""
        return self._warm

    def prefetch(self, text: str) -> None:
        """Start embedding ``text`` on the worker thread, once the model is known to be loaded.

        A failure is not raised here: :meth:`embed_query` raises it for the search that asks.
        """
        if not self._warm:
            return
        future = _worker().submit(self._inner.embed_query, text)
        with self._lock:
            self._pending = (text, future)

    def embed_query(self, text: str) -> Vector:
        """The vector started ahead for this very text, else one embedded now.

        Raises:
            ModelUnavailable: As the wrapped embedder does.
        """
        with self._lock:
            pending, self._pending = self._pending, None
        if pending is not None and pending[0] == text:
            return pending[1].result()
        vector = self._inner.embed_query(text)
        self._warm = True
        return vector
